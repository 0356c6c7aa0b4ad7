package resolvers

import (
	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
)

// artifactOf is the detail's artifact when it is of family f.
func artifactOf(d *cortex.GraphNodeDetail, f domain.ArtifactFamily) *domain.Artifact {
	if d.Artifact == nil || d.Artifact.Family != f {
		return nil
	}
	return d.Artifact
}
