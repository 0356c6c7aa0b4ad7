package domain

import (
	"context"
	"time"
)

// The Synapse's part of the graph: how far it has connected each stream of stored memories, and
// what it grows besides associations (episodes, person facets, vectors).

// SynapseStream is where the Synapse stands in one stream of stored memories: a session of a
// scope (the memories stored with one sessionId), or the memories a scope stores without a
// session. Its id is derived from the scope and Key.
type SynapseStream struct {
	ID      string `json:"id"`
	ScopeID string `json:"scopeId"`
	// Key is "session:" + the session id, or "scope" for the memories stored without one.
	Key string `json:"key"`
	// Last is the stream's last memory and LastAt when it occurred.
	Last   string    `json:"last,omitempty"`
	LastAt time.Time `json:"lastAt"`
	// Episode is the stream's open episode (its Part-th), with what it holds so far.
	Episode      string    `json:"episode,omitempty"`
	Part         int       `json:"part"`
	EpisodeStart time.Time `json:"episodeStart"`
	EpisodeEnd   time.Time `json:"episodeEnd"`
	EpisodeFirst string    `json:"episodeFirst,omitempty"`
	EpisodeCount int       `json:"episodeCount"`
	// EpisodeCreated is when the Synapse opened the episode.
	EpisodeCreated time.Time `json:"episodeCreated"`
	// Persons are the persons the open episode names, by name.
	Persons map[string]*StreamPerson `json:"persons,omitempty"`
}

// StreamPerson is a person an episode names: the first memory naming it, how many do, and the
// best confidence and its role (speaker, mention).
type StreamPerson struct {
	First      string  `json:"first"`
	Count      int     `json:"count"`
	Confidence float64 `json:"confidence"`
	Role       string  `json:"role"`
}

// Clone returns a deep copy.
func (s *SynapseStream) Clone() *SynapseStream {
	if s == nil {
		return nil
	}
	c := *s
	c.Persons = make(map[string]*StreamPerson, len(s.Persons))
	for k, v := range s.Persons {
		p := *v
		c.Persons[k] = &p
	}
	return &c
}

// EpisodeGrowth adds memories to an episode, creating the episode when it is new.
type EpisodeGrowth struct {
	// Episode is the episode as it stands after the growth (its items need not be given).
	Episode *Episode
	// Items are the memories added, at positions FirstPos, FirstPos+1, …
	Items    []string
	FirstPos int
}

// Growth is what the Synapse writes besides associations, in the write that moves its watermark.
// Records are upserted by id; a run's facets not named stay.
type Growth struct {
	Streams       []*SynapseStream
	Definitions   []*EpisodeDefinition
	Episodes      []EpisodeGrowth
	AnalysisTypes []*AnalysisType
	Runs          []*AnalysisRun
	Facets        []*Facet
	Embeddings    []*Embedding
}

// Empty reports whether g writes nothing.
func (g *Growth) Empty() bool {
	return g == nil || len(g.Streams)+len(g.Definitions)+len(g.Episodes)+len(g.AnalysisTypes)+len(g.Runs)+len(g.Facets)+len(g.Embeddings) == 0
}

// MemoryLinks is what the Synapse reads of a memory's associations.
type MemoryLinks struct {
	// Linked counts its PERSON and THEMATIC associations.
	Linked int
	// With are the memories it is associated with (any type), with the types.
	With map[string][]AssociationType
}

// SynapseStore is the store capability the Synapse consumer needs besides LivingStore (whose
// Consume writes Changes.Growth). Implementations are safe for concurrent use.
type SynapseStore interface {
	// SynapseStreams loads the streams among ids that exist.
	SynapseStreams(ctx context.Context, ids []string) (map[string]*SynapseStream, error)
	// MemoryLinks returns the links of each of ids that is a memory: with the memories it is
	// associated with when with is true, its count of PERSON and THEMATIC associations alone
	// (With nil) otherwise.
	MemoryLinks(ctx context.Context, ids []string, with bool) (map[string]*MemoryLinks, error)
}
