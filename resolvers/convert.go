package resolvers

import (
	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/resolvers/model"
)

type cortexStoreInput = hippocampus.StoreInput

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func storeInput(in *model.StoreMemoryInput) hippocampus.StoreInput {
	out := hippocampus.StoreInput{ScopeID: in.ScopeID, Content: in.Content, Metadata: in.Metadata,
		Tags: in.Tags, OccurredAt: in.OccurredAt, Importance: in.Importance}
	if in.Kind != nil {
		out.Kind = *in.Kind
	}
	if in.SuggestedTier != nil {
		out.SuggestedTier = *in.SuggestedTier
	}
	return out
}

func memoryFilter(f *model.MemoryFilter) domain.MemoryFilter {
	if f == nil {
		return domain.MemoryFilter{}
	}
	return domain.MemoryFilter{Tiers: f.Tiers, Kinds: f.Kinds, Tags: f.Tags, States: f.States,
		From: f.From, To: f.To, Claimed: f.Claimed}
}

// nullIfNotFound answers a nullable lookup of a missing record with null rather than an error.
func nullIfNotFound[T any](v *T, err error) (*T, error) {
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return nil, nil
	}
	return v, err
}
