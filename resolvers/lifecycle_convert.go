package resolvers

import (
	"context"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/resolvers/model"
)

func boolv(p *bool) bool { return p != nil && *p }

func page(first *int, after *string) (domain.Page, error) {
	p := domain.Page{After: str(after)}
	if first != nil {
		if *first < 1 {
			return p, domain.FieldErrorf("first", "must be at least 1")
		}
		p.First = *first
	}
	return p, nil
}

func meta(requestID, sessionID *string) cortex.Meta {
	return cortex.Meta{RequestID: str(requestID), SessionID: str(sessionID)}
}

func typeStrings[T ~string](ts []T) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

// references reads an artifact's references: outgoing or incoming.
func (r *Resolver) references(ctx context.Context, id string, outgoing bool) ([]*domain.Reference, error) {
	n, err := r.Cortex.References(ctx, id)
	if err != nil {
		return nil, err
	}
	out := n.In
	if outgoing {
		out = n.Out
	}
	if out == nil {
		out = []*domain.Reference{}
	}
	return out, nil
}

func (r *Resolver) artifactPage(ctx context.Context, scopeID string, f domain.ArtifactFamily, filter domain.ArtifactFilter, first *int, after *string) (*domain.ArtifactPage, *string, error) {
	p, err := page(first, after)
	if err != nil {
		return nil, nil, err
	}
	ap, err := r.Cortex.ListArtifacts(ctx, scopeID, f, filter, p)
	if err != nil {
		return nil, nil, err
	}
	var cursor *string
	if ap.EndCursor != "" {
		cursor = &ap.EndCursor
	}
	return ap, cursor, nil
}

func digestInput(in model.DigestInput) (cortex.DigestInput, error) {
	out := cortex.DigestInput{ScopeID: in.ScopeID, Propose: boolv(in.Propose), Archive: in.Archive, Remove: in.Remove,
		Meta: meta(in.RequestID, in.SessionID)}
	if in.StaleAfterDays != nil {
		d := *in.StaleAfterDays
		if !(d >= 0 && d <= 36500) { // also refuses NaN
			return out, domain.FieldErrorf("staleAfterDays", "must be within 0..36500")
		}
		w := time.Duration(d * float64(24*time.Hour))
		out.StaleAfter = &w
	}
	return out, nil
}
