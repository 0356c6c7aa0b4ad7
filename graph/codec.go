package graph

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// A memory node keeps what queries filter and sort on as predicates of its own and the rest in
// one JSON document (mem.doc): the engine's cost grows with the number of N-Quads per write.
const memFields = `uid tr.id tr.scope mem.content mem.kind mem.tier mem.tags mem.occurredAt mem.salience
mem.claimed mem.accessCount mem.lastAccessedAt mem.state mem.version mem.doc mem.score`

// memPredicates lists every predicate a memory node may carry, for explicit deletion.
var memPredicates = []string{"tr.kind", "tr.id", "tr.scope", "mem.content", "mem.kind", "mem.tier", "mem.tags",
	"mem.occurredAt", "mem.salience", "mem.claimed", "mem.accessCount", "mem.lastAccessedAt", "mem.state",
	"mem.version", "mem.doc"}

type memNode struct {
	UID            string     `json:"uid"`
	NodeKind       string     `json:"tr.kind"`
	ID             string     `json:"tr.id"`
	Scope          string     `json:"tr.scope"`
	Content        string     `json:"mem.content"`
	Kind           string     `json:"mem.kind"`
	Tier           string     `json:"mem.tier"`
	Tags           []string   `json:"mem.tags"`
	OccurredAt     time.Time  `json:"mem.occurredAt"`
	Salience       float64    `json:"mem.salience"`
	Claimed        bool       `json:"mem.claimed"`
	AccessCount    int        `json:"mem.accessCount"`
	LastAccessedAt *time.Time `json:"mem.lastAccessedAt"`
	State          string     `json:"mem.state"`
	Version        int64      `json:"mem.version"`
	Doc            string     `json:"mem.doc"`
	// Score is the Salience context's checkpoint (packScore), kept by the read cache for
	// scoring rows (readCache.scoreRows); a record does not hold it.
	Score string `json:"mem.score"`
}

// memDoc is the part of a memory kept in mem.doc.
type memDoc struct {
	SuggestedTier string         `json:"suggestedTier,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
	CreatedAt     time.Time      `json:"createdAt"`
	UpdatedAt     time.Time      `json:"updatedAt"`
	Importance    float64        `json:"importance,omitempty"`
	ClaimedAt     *time.Time     `json:"claimedAt,omitempty"`
	SessionID     string         `json:"sessionId,omitempty"`
}

// nodeOf is the node a read decodes of m once written on uid with the document doc (see
// memoryJSON): the same predicates, without the round trip through the engine.
func nodeOf(uid string, m *domain.Memory, doc string) *memNode {
	return &memNode{UID: uid, NodeKind: kindMemory, ID: m.ID, Scope: m.ScopeID, Content: m.Content,
		Kind: string(m.Kind), Tier: string(m.Tier), Tags: slices.Clone(m.Tags), OccurredAt: m.OccurredAt,
		Salience: m.Salience, Claimed: m.Claimed, AccessCount: m.AccessCount, LastAccessedAt: utcPtr(m.LastAccessedAt),
		State: string(m.State), Version: m.Version, Doc: doc}
}

func (n *memNode) memory() (*domain.Memory, error) {
	d, err := n.doc()
	if err != nil {
		return nil, err
	}
	return n.build(d), nil
}

// doc decodes the node's mem.doc.
func (n *memNode) doc() (memDoc, error) {
	var d memDoc
	if n.Doc != "" {
		if err := decode([]byte(n.Doc), &d); err != nil {
			return d, fmt.Errorf("memory %s: bad document: %w", n.ID, err)
		}
	}
	return d, nil
}

// build is the memory of the node whose document is d; it shares d's metadata.
func (n *memNode) build(d memDoc) *domain.Memory {
	m := &domain.Memory{
		ID: n.ID, ScopeID: n.Scope, Content: n.Content, Kind: domain.MemoryKind(n.Kind),
		Tier: domain.Tier(n.Tier), SuggestedTier: domain.Tier(d.SuggestedTier), Tags: slices.Clone(n.Tags), Metadata: d.Metadata,
		OccurredAt: n.OccurredAt.UTC(), CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(),
		Salience: n.Salience, Importance: d.Importance, Claimed: n.Claimed, ClaimedAt: utcPtr(d.ClaimedAt),
		AccessCount: n.AccessCount, LastAccessedAt: utcPtr(n.LastAccessedAt),
		State: domain.LifecycleState(n.State), SessionID: d.SessionID, Version: n.Version,
	}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	// The engine keeps a list predicate as a set in an order of its own: reads give it sorted.
	slices.Sort(m.Tags)
	m.Tags = slices.Compact(m.Tags)
	if m.Metadata == nil {
		m.Metadata = map[string]any{}
	}
	return m
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// memoryJSON is the set-mutation of m on node uid; a new node (blank uid) gets its kind and tags.
func memoryJSON(uid string, m *domain.Memory, isNew bool) (map[string]any, error) {
	doc, err := json.Marshal(memDoc{SuggestedTier: string(m.SuggestedTier), Metadata: m.Metadata,
		CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(), Importance: m.Importance,
		ClaimedAt: utcPtr(m.ClaimedAt), SessionID: m.SessionID})
	if err != nil {
		return nil, domain.FieldErrorf("metadata", "is not JSON-encodable: %v", err)
	}
	obj := map[string]any{
		"uid": uid, "mem.content": m.Content, "mem.kind": string(m.Kind), "mem.tier": string(m.Tier),
		"mem.scopeTier":  scopeTier(m.ScopeID, m.Tier),
		"mem.occurredAt": ts(m.OccurredAt), "mem.salience": m.Salience, "mem.state": string(m.State),
		"mem.version": m.Version, "mem.doc": string(doc),
	}
	if isNew {
		obj["tr.kind"], obj["tr.id"], obj["tr.scope"] = kindMemory, m.ID, m.ScopeID
		if len(m.Tags) > 0 {
			obj["mem.tags"] = m.Tags
		}
	}
	if m.Claimed || !isNew {
		obj["mem.claimed"] = m.Claimed
	}
	if m.AccessCount > 0 || !isNew {
		obj["mem.accessCount"] = m.AccessCount
	}
	if m.LastAccessedAt != nil {
		obj["mem.lastAccessedAt"] = ts(*m.LastAccessedAt)
	}
	return obj, nil
}

// scopeTier is the key of a memory's scope and tier together (mem.scopeTier): a sweep lists one
// tier of one scope with a single index lookup, where eq(mem.tier) filtered by eq(tr.scope)
// intersected the tier's list with every node of the scope (its events included).
func scopeTier(scopeID string, t domain.Tier) string { return scopeID + "|" + string(t) }

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// An event node keeps what queries look up by as predicates and the rest in ev.body. An event
// about further artifacts (domain.Event.About) has pages besides (see aboutPages).
const eventFields = `uid tr.scope ev.seq ev.type ev.memory ev.requestId ev.messageId ev.body ev.touches ev.count ev.pack`

type eventNode struct {
	UID       string   `json:"uid"`
	Scope     string   `json:"tr.scope"`
	Seq       uint64   `json:"ev.seq"`
	Type      string   `json:"ev.type"`
	Memory    string   `json:"ev.memory"`
	RequestID string   `json:"ev.requestId"`
	MessageID string   `json:"ev.messageId"`
	Body      string   `json:"ev.body"`
	Touches   []string `json:"ev.touches"`
	// Count and Pack are a pack's: the number of events it holds, from Seq on, and their
	// items (see eventPackJSON). An erased pack keeps its Count.
	Count int    `json:"ev.count"`
	Pack  string `json:"ev.pack"`
}

type eventBody struct {
	SessionID   string         `json:"sessionId"`
	CausationID string         `json:"causationId"`
	Timestamp   time.Time      `json:"timestamp"`
	Source      string         `json:"source"`
	Payload     map[string]any `json:"payload,omitempty"`
	Touches     []domain.Touch `json:"touches,omitempty"`
}

func (n *eventNode) event() *domain.Event {
	var b eventBody
	_ = json.Unmarshal([]byte(n.Body), &b)
	return n.eventWith(b)
}

// eventWith is event with the body already decoded into b (which it keeps: b is not to be used
// again).
func (n *eventNode) eventWith(b eventBody) *domain.Event {
	ev := &domain.Event{
		Seq: n.Seq, Type: domain.EventType(n.Type), ScopeID: n.Scope, MemoryID: n.Memory, Payload: b.Payload,
		Context: domain.TransactionContext{
			SessionID: b.SessionID, RequestID: n.RequestID, MessageID: n.MessageID,
			CausationID: b.CausationID, Timestamp: b.Timestamp.UTC(), SourceContext: b.Source,
		},
		Touches: b.Touches,
	}
	for _, t := range n.Touches {
		c, at, ok := strings.Cut(t, "|")
		if !ok {
			continue
		}
		when, _ := time.Parse(time.RFC3339Nano, at)
		ev.Touches = append(ev.Touches, domain.Touch{Context: c, At: when.UTC()})
	}
	sortTouches(ev.Touches)
	return ev
}

func sortTouches(ts []domain.Touch) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].At.Before(ts[j-1].At); j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

func touchValue(t domain.Touch) string { return t.Context + "|" + ts(t.At) }

// eventJSON is the node of an event, its body rendered (renderEvent). An event is the node with
// an ev.seq; it carries no tr.kind: that index key would name every event of the store, and
// adding to it was an eighth of the CPU of a storeMemory's write (BenchmarkInsertScoredMemory), a
// search's retrievals alike. Events written before carry tr.kind Event, which the readers still
// accept.
func eventJSON(uid string, ev *domain.Event, r *renderedEvent) map[string]any {
	obj := map[string]any{
		"uid": uid, "tr.scope": ev.ScopeID, "ev.seq": ev.Seq, "ev.type": string(ev.Type),
		"ev.requestId": ev.Context.RequestID, "ev.messageId": ev.Context.MessageID, "ev.body": r.body,
	}
	if ev.MemoryID != "" {
		obj["ev.memory"] = ev.MemoryID
	}
	return obj
}

// renderedEvent is what an event's node holds besides its Seq: ev.body, and, once decode has run,
// the body as a read decodes it, for the event log that is handed the commit (committedEvents).
type renderedEvent struct {
	body    string
	decoded *eventBody
}

// renderEvent renders ev's body. It depends on nothing the write assigns (Seq, uids), so a caller
// that knows its events renders them before it takes the write lock (renderEvents,
// tx.emitRendered); the rest are rendered under it.
func renderEvent(ev *domain.Event) *renderedEvent {
	body, _ := json.Marshal(eventBody{SessionID: ev.Context.SessionID, CausationID: ev.Context.CausationID,
		Timestamp: ev.Context.Timestamp.UTC(), Source: ev.Context.SourceContext, Payload: ev.Payload, Touches: ev.Touches})
	return &renderedEvent{body: string(body)}
}

// decode returns the body as a read decodes it, decoding it the first time. What it returns is
// handed to one event (eventWith keeps its payload and touches).
func (r *renderedEvent) decode() eventBody {
	if r.decoded == nil {
		var b eventBody
		_ = json.Unmarshal([]byte(r.body), &b)
		r.decoded = &b
	}
	return *r.decoded
}

// renderEvents renders evs, in order, and on the embedded engine, whose commits are handed to the
// event log (committedEvents), decodes them too: all of it outside the write lock.
func (s *Store) renderEvents(evs []*domain.Event) []*renderedEvent {
	out := make([]*renderedEvent, len(evs))
	for i, ev := range evs {
		out[i] = renderEvent(ev)
		if s.embedded {
			out[i].decode()
		}
	}
	return out
}

// aboutPage is how many artifacts one page of an event about several artifacts names.
const aboutPage = 500

// aboutPages renders the pages of an event about further artifacts (domain.Event.About; the
// event node is uid): nodes of kind EventAbout, in the event's scope, each naming up to
// aboutPage of the artifacts in ev.about (indexed: their histories find the page) with their
// payloads in ev.aboutDoc, and linked to the event by ev.of. A page's tr.id is the event's
// message id and its number. Pages keep every write and read small: Dgraph adds a value to a
// list in time proportional to the list (one list of 33,000 ids cost seconds), and the history
// of one artifact reads only its page. Ids that are not UUIDs (artifact ids all are) are left
// out.
func aboutPages(uid string, ev *domain.Event) []map[string]any {
	ab := newAboutPager(ev)
	var out []map[string]any
	for k := range ab.pages() {
		out = append(out, ab.page(k, fmt.Sprintf("%s.about%d", uid, k), uid))
	}
	return out
}

// aboutPager renders an event's pages one at a time (see aboutPages).
type aboutPager struct {
	ev  *domain.Event
	ids []string
	key string
}

func newAboutPager(ev *domain.Event) *aboutPager {
	ids := make([]string, 0, len(ev.About))
	for id := range ev.About {
		if domain.ValidID(id) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	key := ev.Context.MessageID
	if key == "" {
		key = domain.NewID()
	}
	return &aboutPager{ev: ev, ids: ids, key: key}
}

func (a *aboutPager) pages() int { return (len(a.ids) + aboutPage - 1) / aboutPage }

// page renders page k as node pageUID of the event node eventUID (each a blank node or a uid).
func (a *aboutPager) page(k int, pageUID, eventUID string) map[string]any {
	ids := a.ids[k*aboutPage : min((k+1)*aboutPage, len(a.ids))]
	return aboutPageNode(a.key, a.ev.ScopeID, k, ids, a.ev.About, pageUID, eventUID)
}

// aboutPageNode renders page k (node pageUID) of the event node eventUID ("": linked later),
// whose pages are keyed by key, in scope scopeID: the artifacts ids with their payloads in about.
func aboutPageNode(key, scopeID string, k int, ids []string, about map[string]any, pageUID, eventUID string) map[string]any {
	obj := map[string]any{"uid": pageUID, "tr.kind": kindEventAbout,
		"tr.id": fmt.Sprintf("%s/about/%d", key, k), "ev.about": ids, "ev.aboutDoc": packDoc(aboutDoc(ids, about))}
	if eventUID != "" {
		obj["ev.of"] = map[string]any{"uid": eventUID}
	}
	if scopeID != "" {
		obj["tr.scope"] = scopeID
	}
	return obj
}

// aboutDoc renders the payloads of ids as one line each: the id, a tab and the payload's JSON
// (which holds no raw tab or newline), so that one artifact's payload is found without
// decoding the others' (aboutPayload).
func aboutDoc(ids []string, about map[string]any) string {
	var b strings.Builder
	for _, id := range ids {
		pl, _ := json.Marshal(about[id])
		b.WriteString(id)
		b.WriteByte('\t')
		b.Write(pl)
		b.WriteByte('\n')
	}
	return b.String()
}

// aboutPayload finds the payload of artifact id in an aboutDoc (nil when it has none).
func aboutPayload(doc, id string) map[string]any {
	doc, err := unpackDoc(doc)
	if err != nil {
		return nil
	}
	key := id + "\t"
	for off := 0; ; {
		i := strings.Index(doc[off:], key)
		if i < 0 {
			return nil
		}
		i += off
		if i == 0 || doc[i-1] == '\n' {
			line := doc[i+len(key):]
			if j := strings.IndexByte(line, '\n'); j >= 0 {
				line = line[:j]
			}
			var pl map[string]any
			if json.Unmarshal([]byte(line), &pl) != nil {
				return nil
			}
			return pl
		}
		off = i + len(key)
	}
}

// afterCursor checks a paging cursor (a uid this store handed out, or "" for the first page) and
// renders it as the ", after: UID" argument of a DQL root ("" for the first page).
func afterCursor(cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	if !uidRE.MatchString(cursor) {
		return "", domain.FieldErrorf("cursor", "is not a cursor of this store")
	}
	return ", after: " + cursor, nil
}

// idList renders validated ids as a DQL list literal. Callers pass only UUIDs (checked by
// domain.ValidID), so no id can carry DQL syntax.
func idList(ids []string) string {
	var b strings.Builder
	b.WriteByte('[')
	n := 0
	for _, id := range ids {
		if !domain.ValidID(id) {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(id)
		b.WriteByte('"')
		n++
	}
	b.WriteByte(']')
	return b.String()
}

// Large documents (a digest report, a page of the payloads an event is about) are kept
// compressed: gzip, then base64 behind the prefix "gz:". A propose pass over 100,000 artifacts
// writes two of about 16 MB of JSON each, which the engine took seconds to quote, parse and
// store. Small documents stay plain JSON; readers accept both.
const (
	packPrefix = "gz:"
	packAbove  = 8 << 10
)

func packDoc(s string) string {
	if len(s) < packAbove {
		return s
	}
	var b bytes.Buffer
	b.WriteString(packPrefix)
	enc := base64.NewEncoder(base64.StdEncoding, &b)
	zw, _ := gzip.NewWriterLevel(enc, gzip.BestSpeed)
	_, _ = zw.Write([]byte(s))
	_ = zw.Close()
	_ = enc.Close()
	return b.String()
}

func unpackDoc(s string) (string, error) {
	if !strings.HasPrefix(s, packPrefix) {
		return s, nil
	}
	r, err := docReader(s)
	if err != nil {
		return "", err
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("unpack document: %w", err)
	}
	return string(raw), nil
}

// packJSON is packDoc(the JSON of v) without holding that JSON whole: v is encoded straight
// into the compressor once it outgrows packAbove. A report of a million proposals is hundreds of
// megabytes of JSON, where its packed form is a tenth of that.
func packJSON(v any) (string, error) {
	var w packWriter
	if err := json.NewEncoder(&w).Encode(v); err != nil {
		return "", err
	}
	return w.close()
}

// packWriter keeps what is written plain until it outgrows packAbove, then packed.
type packWriter struct {
	plain  []byte
	packed *bytes.Buffer
	b64    io.WriteCloser
	zw     *gzip.Writer
}

func (w *packWriter) Write(p []byte) (int, error) {
	if w.zw == nil && len(w.plain)+len(p) < packAbove {
		w.plain = append(w.plain, p...)
		return len(p), nil
	}
	if w.zw == nil {
		w.packed = bytes.NewBufferString(packPrefix)
		w.b64 = base64.NewEncoder(base64.StdEncoding, w.packed)
		w.zw, _ = gzip.NewWriterLevel(w.b64, gzip.BestSpeed)
		if _, err := w.zw.Write(w.plain); err != nil {
			return 0, err
		}
		w.plain = nil
	}
	return w.zw.Write(p)
}

// close returns the document: the plain JSON (without the encoder's last newline), or packed.
func (w *packWriter) close() (string, error) {
	if w.zw == nil {
		return strings.TrimSuffix(string(w.plain), "\n"), nil
	}
	if err := w.zw.Close(); err != nil {
		return "", err
	}
	if err := w.b64.Close(); err != nil {
		return "", err
	}
	return w.packed.String(), nil
}

// docReader reads a document, packed or plain, without unpacking it whole.
func docReader(s string) (io.Reader, error) {
	if !strings.HasPrefix(s, packPrefix) {
		return strings.NewReader(s), nil
	}
	zr, err := gzip.NewReader(base64.NewDecoder(base64.StdEncoding, strings.NewReader(s[len(packPrefix):])))
	if err != nil {
		return nil, fmt.Errorf("unpack document: %w", err)
	}
	return zr, nil
}
