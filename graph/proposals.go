package graph

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	gojson "github.com/goccy/go-json"

	"github.com/totalrecall/totalrecall/domain"
)

// A propose pass's proposals are kept beside its report, in artifact id order, in pages of
// proposalPage: nodes of kind DigestProposals in the report's scope, with tr.id "<report
// id>/proposals/<k>" and the page's proposals packed in digest.doc. The report's document holds
// the first artifact id of each page, which is all a read after a given artifact id needs to
// find its page. A pass packs its pages (and the pages of its proposed event's history
// payloads, see aboutPages) as they fill and commits them ahead of its own write, a few pages a
// commit, so that neither the pass nor any one commit holds a million proposals; until the
// pass's write commits its report, no report names them, and a pass whose write fails deletes
// them. Reports written before pages kept their proposals in their own document; they are read
// as they are.
const (
	kindDigestProposals  = "DigestProposals"
	proposalPage         = 1000
	proposalPagesACommit = 10
	// aboutPagesACommit bounds the pages of history payloads one commit ahead writes, as for
	// any event about many artifacts: each names aboutPage artifacts in an indexed list, and
	// the engine holds a posting list per artifact named until the commit is done.
	aboutPagesACommit = aboutInline
)

func proposalPageID(reportID string, k int) string {
	return fmt.Sprintf("%s/proposals/%d", reportID, k)
}

// reportDocument is what a report's digest.doc holds.
type reportDocument struct {
	domain.DigestReport
	// Pages is the first artifact id of each page of the report's proposals.
	Pages []string `json:"pages,omitempty"`
	// Proposals are the proposals of a report written before pages, in its own document.
	Proposals []domain.Proposal `json:"proposals,omitempty"`
}

// reportDocument reads and decodes report id's document.
func (s *Store) reportDocument(ctx context.Context, id string) (*reportDocument, error) {
	r, err := s.reportDoc(ctx, id)
	if err != nil {
		return nil, err
	}
	var doc reportDocument
	if err := decodeWhole(r, &doc); err != nil {
		return nil, fmt.Errorf("digest report %s: %w", id, err)
	}
	if doc.Pages == nil && len(doc.Proposals) > 0 {
		doc.ProposalCount = len(doc.Proposals)
	}
	return &doc, nil
}

// DigestProposals reads report id's proposals in artifact id order: at most limit of those after
// artifact id after, from the pages that hold them.
func (s *Store) DigestProposals(ctx context.Context, id, after string, limit int) ([]domain.Proposal, error) {
	if limit < 1 || limit > domain.MaxProposalPage {
		return nil, domain.FieldErrorf("first", "must be between 1 and %d", domain.MaxProposalPage)
	}
	if after != "" && !domain.ValidID(after) {
		return nil, domain.FieldErrorf("after", "%q is not an artifact id", after)
	}
	doc, err := s.reportDocument(ctx, id)
	if err != nil {
		return nil, err
	}
	out := []domain.Proposal{}
	if doc.Pages == nil {
		i := sort.Search(len(doc.Proposals), func(i int) bool { return doc.Proposals[i].ArtifactID > after })
		return append(out, doc.Proposals[i:min(len(doc.Proposals), i+limit)]...), nil
	}
	// The page holding the first id after after is the last whose first id is not above it.
	k := max(0, sort.Search(len(doc.Pages), func(i int) bool { return doc.Pages[i] > after })-1)
	for ; k < len(doc.Pages) && len(out) < limit; k++ {
		page, err := s.proposalPage(ctx, id, k)
		if err != nil {
			return nil, err
		}
		i := sort.Search(len(page), func(i int) bool { return page[i].ArtifactID > after })
		out = append(out, page[i:min(len(page), i+limit-len(out))]...)
	}
	return out, nil
}

// proposalPage reads page k of report id's proposals.
func (s *Store) proposalPage(ctx context.Context, id string, k int) ([]domain.Proposal, error) {
	var r struct {
		Q []struct {
			Doc string `json:"digest.doc"`
		} `json:"q"`
	}
	if err := s.read(ctx, `query q($id: string) { q(func: eq(tr.id, $id)) @filter(eq(tr.kind, "`+kindDigestProposals+`")) { digest.doc } }`,
		map[string]string{"$id": proposalPageID(id, k)}, &r); err != nil {
		return nil, err
	}
	if len(r.Q) != 1 {
		return nil, fmt.Errorf("digest report %s: page %d of its proposals: %d nodes", id, k, len(r.Q))
	}
	doc, err := docReader(r.Q[0].Doc)
	if err != nil {
		return nil, fmt.Errorf("digest report %s: page %d: %w", id, k, err)
	}
	var page []domain.Proposal
	if err := decodeWhole(doc, &page); err != nil {
		return nil, fmt.Errorf("digest report %s: page %d: %w", id, k, err)
	}
	return page, nil
}

// decodeWhole decodes the JSON r reads into out, read whole first: go-json's stream decoder
// mangles a multi-byte character that its read buffer splits (it reads "🧠" cut in two as two
// invalid sequences), which a page of proposals with non-ASCII reasons hits.
func decodeWhole(r io.Reader, out any) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	return gojson.Unmarshal(raw, out)
}

// ProposalWriter writes the proposals of report reportID a page at a time (see proposalPage).
func (s *Store) ProposalWriter(scopeID, reportID, eventKey string) domain.ProposalWriter {
	if eventKey == "" {
		eventKey = domain.NewID()
	}
	return &proposalWriter{s: s, scopeID: scopeID, reportID: reportID, key: eventKey, about: map[string]any{}}
}

type proposalWriter struct {
	s                      *Store
	scopeID, reportID, key string

	last     string            // the last artifact id added
	count    int               // proposals added
	buf      []domain.Proposal // added, not yet in a page
	aboutIDs []string          // history payloads added, not yet in a page, in id order
	about    map[string]any

	pages      []string       // the first artifact id of each page rendered
	aboutPages int            // pages of history payloads rendered
	rendered   []renderedPage // pages rendered, not yet committed
	// event is the node of the pass's proposed event, once a page of its history payloads is
	// committed linked to it; the pass's write makes that node the event.
	event string
	// undo deletes, for Discard, what the pages committed hold.
	undo []map[string]any
}

// renderedPage is a page packed, waiting for its commit: a page of proposals, or of history
// payloads (about), whose link to the event node its commit sets.
type renderedPage struct {
	obj   map[string]any
	about bool
}

func (w *proposalWriter) Add(ctx context.Context, proposals []domain.Proposal, about map[string]any) error {
	named := 0
	for _, pr := range proposals {
		if !domain.ValidID(pr.ArtifactID) || pr.ArtifactID <= w.last {
			return domain.Errorf(domain.EINTERNAL, "proposal of %q out of artifact id order (after %q)", pr.ArtifactID, w.last)
		}
		w.last = pr.ArtifactID
		if pl, ok := about[pr.ArtifactID]; ok {
			w.aboutIDs = append(w.aboutIDs, pr.ArtifactID)
			w.about[pr.ArtifactID] = pl
			named++
		}
	}
	if named != len(about) {
		return domain.Errorf(domain.EINTERNAL, "history payloads of %d artifacts not among the proposals", len(about)-named)
	}
	w.buf = append(w.buf, proposals...)
	w.count += len(proposals)
	if err := w.render(false); err != nil {
		return err
	}
	// A pass over a million artifacts packs about 120 MB of pages: they are committed as they
	// fill a commit rather than held until the pass's scan is done.
	return w.commit(ctx, true, false)
}

// Flush commits the pages Add packed and has not committed, a few a commit, each commit under
// the store's write lock.
func (w *proposalWriter) Flush(ctx context.Context) error { return w.commit(ctx, true, true) }

// finish packs and commits what is left, inside the pass's write (which holds the store's write
// lock).
func (w *proposalWriter) finish(ctx context.Context) error {
	if err := w.render(true); err != nil {
		return err
	}
	return w.commit(ctx, false, true)
}

// render packs the full pages (with all, the rest too). A page of proposals packed takes a
// tenth of the proposals it holds.
func (w *proposalWriter) render(all bool) error {
	for len(w.buf) >= proposalPage || all && len(w.buf) > 0 {
		page := w.buf[:min(len(w.buf), proposalPage)]
		doc, err := packJSON(page)
		if err != nil {
			return err
		}
		k := len(w.pages)
		w.rendered = append(w.rendered, renderedPage{obj: map[string]any{"uid": fmt.Sprintf("_:proposals%d", k),
			"tr.kind": kindDigestProposals, "tr.id": proposalPageID(w.reportID, k), "tr.scope": w.scopeID, "digest.doc": doc}})
		w.pages = append(w.pages, page[0].ArtifactID)
		w.buf = append(w.buf[:0], w.buf[len(page):]...)
	}
	for len(w.aboutIDs) >= aboutPage || all && len(w.aboutIDs) > 0 {
		// The page keeps its ids until its commit; the list goes on with the rest.
		ids := slices.Clone(w.aboutIDs[:min(len(w.aboutIDs), aboutPage)])
		obj := aboutPageNode(w.key, w.scopeID, w.aboutPages, ids, w.about, fmt.Sprintf("_:about%d", w.aboutPages), "")
		w.rendered = append(w.rendered, renderedPage{obj: obj, about: true})
		w.aboutPages++
		for _, id := range ids {
			delete(w.about, id)
		}
		w.aboutIDs = append(w.aboutIDs[:0], w.aboutIDs[len(ids):]...)
	}
	return nil
}

// commit commits the pages rendered, at most proposalPagesACommit pages of proposals and
// aboutPagesACommit of history payloads a commit: all of them, or (without all) as long as they
// fill a commit. lock takes the store's write lock for each.
func (w *proposalWriter) commit(ctx context.Context, lock, all bool) error {
	for len(w.rendered) > 0 {
		var sets []map[string]any
		props, about, n := 0, 0, 0
		for _, p := range w.rendered {
			if p.about && about == aboutPagesACommit || !p.about && props == proposalPagesACommit {
				break
			}
			if p.about {
				event := w.event
				if event == "" {
					event = "_:event"
				}
				p.obj["ev.of"] = map[string]any{"uid": event}
				about++
			} else {
				props++
			}
			sets = append(sets, p.obj)
			n++
		}
		if !all && props < proposalPagesACommit && about < aboutPagesACommit {
			break // less than a commit's pages: they wait for more
		}
		uids, err := w.s.commitAhead(ctx, sets, nil, lock)
		if err != nil {
			return err
		}
		if w.event == "" && about > 0 {
			if w.event = uids["event"]; w.event == "" {
				return errors.New("the engine gave the proposed event's node no uid")
			}
		}
		for _, obj := range sets {
			undo := map[string]any{"uid": uids[strings.TrimPrefix(obj["uid"].(string), "_:")]}
			for pred := range obj {
				if pred != "uid" {
					undo[pred] = nil
				}
			}
			w.undo = append(w.undo, undo)
		}
		clear(w.rendered[:n])
		w.rendered = w.rendered[n:]
	}
	if len(w.rendered) == 0 {
		w.rendered = nil
	}
	return nil
}

// Discard deletes the pages committed, 500 a commit; what is not committed yet is dropped.
func (w *proposalWriter) Discard(ctx context.Context) error {
	w.rendered, w.buf, w.aboutIDs = nil, nil, nil
	clear(w.about)
	for len(w.undo) > 0 {
		n := min(len(w.undo), 500)
		if _, err := w.s.commitAhead(ctx, nil, w.undo[:n], true); err != nil {
			return err
		}
		w.undo = w.undo[n:]
	}
	return nil
}
