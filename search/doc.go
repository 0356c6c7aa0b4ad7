// Package search is totalrecall's full-text index: an on-disk Bleve (scorch) index of memories
// that implements domain.Index.
//
// The index is derived from the event log and holds only what a search needs: the analysed
// content and the keyword and date fields that filters use. It never stores the content itself;
// the graph stays the source of truth and search hits carry only ids and scores.
//
// Writes from concurrent callers are grouped by a single writer goroutine into Bleve batches,
// since every batch pays a fixed cost, so a batch of many documents costs little more than a
// batch of one. A Put returns once its documents are searchable; scorch persists them in the
// background, in order. Durability comes from the event log, not from the index: the watermark
// persisted with a snapshot never runs ahead of that snapshot's documents, and the owner
// re-applies the log from the watermark after a crash.
//
// Every query is confined to one scope, and the caller's text is only ever analysed as plain
// words: it is never parsed as Bleve query-string syntax.
package search
