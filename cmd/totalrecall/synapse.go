package main

import (
	"flag"

	"github.com/totalrecall/totalrecall/domain/synapse"
)

// registerSynapseFlags adds the Synapse's rules to serve (docs/synapse.md); every other command
// runs with the defaults.
func registerSynapseFlags(fs *flag.FlagSet, p *synapse.Params) {
	p.Given = true // every field below has its flag, with its default
	fs.DurationVar(&p.TemporalScale, "synapse-temporal-scale", synapse.DefaultTemporalScale, "time over which a TEMPORAL association weakens to its floor of 0.5 (stored sessions and imports alike)")
	fs.DurationVar(&p.SessionGap, "synapse-session-gap", synapse.DefaultSessionGap, "memories stored without a sessionId further apart than this open a new episode of their scope")
	fs.IntVar(&p.EpisodeMax, "synapse-episode-max", synapse.DefaultEpisodeMax, "most memories of an episode the Synapse forms; the next opens another")
	fs.IntVar(&p.Candidates, "synapse-candidates", synapse.DefaultCandidates, "best index matches weighed for each stored memory")
	fs.Float64Var(&p.ThematicThreshold, "synapse-thematic-threshold", synapse.DefaultThematicThreshold, "text similarity (0..1] from which two memories are THEMATIC")
	fs.IntVar(&p.ThematicMax, "synapse-thematic-max", synapse.DefaultThematicMax, "most THEMATIC associations a stored memory gets")
	fs.Float64Var(&p.PersonThreshold, "synapse-person-threshold", synapse.DefaultPersonThreshold, "text similarity (0..1] from which two memories naming the same person are PERSON")
	fs.IntVar(&p.PersonMax, "synapse-person-max", synapse.DefaultPersonMax, "most PERSON associations a stored memory gets per person it names")
	fs.Float64Var(&p.VectorThreshold, "synapse-vector-threshold", synapse.DefaultVectorThreshold, "cosine similarity (0..1] of vectors from which two memories are THEMATIC, where vectors exist")
	fs.IntVar(&p.MaxAssociations, "synapse-max-associations", synapse.DefaultMaxAssociations, "most automatic associations of a memory (two kept for its TEMPORAL neighbours)")
	fs.Float64Var(&p.ClaimStrengthen, "synapse-claim-strengthen", synapse.DefaultClaimStrengthen, "strength a claim adds to each association of the claimed memory (0..1)")
	fs.DurationVar(&p.Quiet, "synapse-quiet", synapse.DefaultQuiet, "the Synapse waits while memories come closer together than this (negative: never waits)")
	fs.DurationVar(&p.MaxDefer, "synapse-max-defer", synapse.DefaultMaxDefer, "the Synapse waits no longer than until what it has to connect is this old (0..1h)")
}
