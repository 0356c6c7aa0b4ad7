// Package search is totalrecall's full-text index: an on-disk Bleve (scorch) index of memories
// that implements domain.Index.
//
// The index is derived from the event log and holds only what a search needs: the analysed
// content and the keyword and date fields that filters use. It never stores the content itself;
// the graph stays the source of truth and search hits carry only ids and scores.
//
// Writes from concurrent callers are grouped by a single writer goroutine into Bleve batches,
// because one batch of a thousand documents costs about as much as a handful of single-document
// batches. A Put returns once its documents are committed, so they are searchable right away.
//
// Every query is confined to one scope, and the caller's text is only ever analysed as plain
// words: it is never parsed as Bleve query-string syntax.
package search
