package resolvers

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/resolvers/model"
)

// TestImportDataIsAtMost32MiB: importData refuses data above 32 MiB before it reads any (the
// check comes before the Cortex is used, so none is needed here).
func TestImportDataIsAtMost32MiB(t *testing.T) {
	big := strings.Repeat("x", 32<<20+1)
	_, err := importData(context.Background(), nil, "6f1c7f0e-1d2b-4c1a-9e55-5f2b8c6a7d10", model.ImportFormatEvents, big, "", "", cortex.Meta{})
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.EINVALID || de.Field != "data" {
		t.Fatalf("32 MiB and a byte of data: %v, want INVALID_ARGUMENT on data", err)
	}
}
