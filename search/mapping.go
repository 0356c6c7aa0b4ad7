package search

import (
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/totalrecall/totalrecall/domain"
)

// Field names of the index.
const (
	FieldScope      = "scopeId"
	FieldContent    = "content" // English analyser: lower case, stop words, stemming
	FieldExact      = "exact"   // the same content, standard analyser: exact word forms
	FieldTags       = "tags"
	FieldKind       = "kind"
	FieldTier       = "tier"
	FieldState      = "state"
	FieldOccurredAt = "occurredAt"
)

// schemaVersion names the mapping an index was built with. An index found on disk with another
// version is rebuilt empty (the caller replays the event log from watermark zero).
const schemaVersion = "2"

// Mapping returns the Bleve index mapping of the index, so that other code (a baseline, a tool)
// can build a raw Bleve index that analyses documents exactly as Index does. Feed it documents
// made by BleveDoc.
func Mapping() mapping.IndexMapping { return newMapping() }

func newMapping() *mapping.IndexMappingImpl {
	im := bleve.NewIndexMapping()
	im.IndexDynamic = false
	im.StoreDynamic = false
	im.DocValuesDynamic = false
	im.DefaultAnalyzer = standard.Name

	dm := bleve.NewDocumentStaticMapping()
	// The _all composite field would index every term a second time; queries name their fields.
	dm.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())

	// Content is indexed twice, never stored. The English field finds "run" for "running"; the
	// standard field ranks the exact word form higher ("news" should not rank like "new").
	// Term vectors (positions) on the English field serve the phrase boost.
	dm.AddFieldMappingsAt(FieldContent,
		&mapping.FieldMapping{Type: "text", Analyzer: en.AnalyzerName, Index: true, IncludeTermVectors: true},
		&mapping.FieldMapping{Name: FieldExact, Type: "text", Analyzer: standard.Name, Index: true},
	)
	// The scope is a clause of the conjunction when it holds a small part of the index, boosted
	// to zero; the other keywords only filter and keep no frequencies or norms.
	dm.AddFieldMappingsAt(FieldScope, &mapping.FieldMapping{Type: "text", Analyzer: keyword.Name, Index: true})
	for _, f := range []string{FieldKind, FieldTier, FieldState, FieldTags} {
		dm.AddFieldMappingsAt(f, &mapping.FieldMapping{Type: "text", Analyzer: keyword.Name, Index: true, SkipFreqNorm: true})
	}
	for _, f := range []string{FieldOccurredAt} {
		dm.AddFieldMappingsAt(f, &mapping.FieldMapping{Type: "datetime", Index: true})
	}
	im.DefaultMapping = dm
	return im
}

// bleveDoc is the value mapped into Bleve; its json names are the field names above.
type bleveDoc struct {
	ScopeID    string     `json:"scopeId"`
	Content    string     `json:"content"`
	Tags       []string   `json:"tags"`
	Kind       string     `json:"kind"`
	Tier       string     `json:"tier"`
	State      string     `json:"state"`
	OccurredAt *time.Time `json:"occurredAt"`
}

// BleveDoc returns the value Index gives Bleve for d, to index with bleve.Batch.Index(d.ID, v)
// under Mapping(). Zero times are left out rather than indexed as year 1, and the content goes
// through the same clean-up as query text (invisible and control characters, invalid UTF-8).
func BleveDoc(d domain.IndexDoc) any { return toBleve(d) }

func toBleve(d domain.IndexDoc) *bleveDoc {
	b := &bleveDoc{
		ScopeID: d.ScopeID,
		Content: clean(d.Content),
		Tags:    d.Tags,
		Kind:    string(d.Kind),
		Tier:    string(d.Tier),
		State:   string(d.State),
	}
	if !d.OccurredAt.IsZero() {
		t := d.OccurredAt
		b.OccurredAt = &t
	}
	return b
}
