package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The pages in a real browser: Debian's chromium, headless, driven by chromedp. The tests skip
// only when chromium is missing and $CI is unset; under CI a missing browser fails them.

func chromiumPath() string {
	if p := os.Getenv("TOTALRECALL_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// artifactsDir is where the screenshots go: $TOTALRECALL_ARTIFACTS/browser, else a fixed folder
// under the system's temp folder, kept after the test (each run overwrites it).
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(os.TempDir(), "totalrecall-browser-artifacts")
	if a := os.Getenv("TOTALRECALL_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "browser")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

// netLog records every request and websocket a tab opens.
type netLog struct {
	mu   sync.Mutex
	urls []string
}

func (l *netLog) listen(ev any) {
	var u string
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		u = ev.Request.URL
	case *network.EventWebSocketCreated:
		u = ev.URL
	default:
		return
	}
	l.mu.Lock()
	l.urls = append(l.urls, u)
	l.mu.Unlock()
}

// foreign returns the URLs that left 127.0.0.1 (data: and blob: stay in the page).
func (l *netLog) foreign() (out []string, total int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, u := range l.urls {
		pu, err := url.Parse(u)
		if err == nil && (pu.Scheme == "data" || pu.Scheme == "blob" || pu.Scheme == "about") {
			continue
		}
		if err != nil || pu.Hostname() != "127.0.0.1" {
			out = append(out, u)
		}
	}
	return out, len(l.urls)
}

type browser struct {
	ctx context.Context
	dir string
	net *netLog
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but no chromium was found: .ci/run installs Debian's chromium (apt-get install -y chromium)")
		}
		t.Skip("no chromium on this machine (apt-get install -y chromium); CI runs these tests")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true), chromedp.Flag("no-default-browser-check", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1440, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancel := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil {
		cancel()
		cancelAlloc()
		t.Fatalf("start chromium %s: %v", path, err)
	}
	t.Cleanup(func() { cancel(); cancelAlloc() })
	return &browser{ctx: bctx, dir: artifactsDir(t), net: &netLog{}}
}

// tab opens a tab in a browser context of its own (its own storage), recording its requests.
func (b *browser) tab(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext(), chromedp.WithListener(b.net.listen))
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1440, 900)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

func (b *browser) shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(b.dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript predicate until it holds (a liveness bound, not a speed check).
func waitFor(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(50*time.Millisecond),
		chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({state: window.totalrecallExplorer && window.totalrecallExplorer.state(),
			info: window.totalrecallExplorer && window.totalrecallExplorer.info(), toasts: [...document.querySelectorAll('.toast')].map(t => t.textContent)})`))
		t.Fatalf("waiting for %s (%s): %v\npage: %s", what, expr, err, page)
	}
}

func TestBrowserPages(t *testing.T) {
	b := newBrowser(t)
	s := startServer(t, storeFlags{store: "file://" + t.TempDir()})
	defer s.stop(t)
	e := seedExplorerScope(t, s)
	base := "http://" + s.addr

	t.Run("Playground", func(t *testing.T) { testPlaygroundInBrowser(t, b, s, base, e) })
	t.Run("Explorer", func(t *testing.T) { testExplorerInBrowser(t, b, s, base, e) })

	foreign, total := b.net.foreign()
	if len(foreign) > 0 {
		t.Fatalf("requests left 127.0.0.1: %v", foreign)
	}
	if total < 10 {
		t.Fatalf("the network log saw %d requests: it is not listening", total)
	}
	t.Logf("%d requests and websockets, every one to 127.0.0.1", total)
}

func testPlaygroundInBrowser(t *testing.T, b *browser, s *server, base string, e explorerScope) {
	// A query, run with the button as a person would.
	ctx := b.tab(t)
	q := url.Values{"query": {"query Scopes { scopes { id name } }"}}
	do(t, ctx, chromedp.Navigate(base+"/?"+q.Encode()), chromedp.WaitVisible(chromedp.CSS(".graphiql-execute-button")))
	waitFor(t, ctx, "the query in the editor", `document.querySelector('.graphiql-query-editor') && document.querySelector('.graphiql-query-editor').innerText.includes('scopes')`)
	do(t, ctx, chromedp.Click(chromedp.CSS(".graphiql-execute-button")))
	waitFor(t, ctx, "the scope in the response", fmt.Sprintf(`(document.querySelector('.graphiql-response')||{innerText:''}).innerText.includes(%q)`, e.id))
	if href := eval[string](t, ctx, `document.querySelector('a.tr-explore-link').href`); href != base+"/explore" {
		t.Fatalf("the playground links to %q, want %s/explore", href, base)
	}
	b.shot(t, ctx, "playground-1-query")

	// A subscription over graphql-transport-ws: memories stored meanwhile show in the response.
	ctx = b.tab(t)
	vars, _ := json.Marshal(map[string]string{"s": e.id})
	q = url.Values{"query": {"subscription Live($s: ID!) { memoryEvents(scopeId: $s) { type memoryId } }"}, "variables": {string(vars)}}
	do(t, ctx, chromedp.Navigate(base+"/?"+q.Encode()), chromedp.WaitVisible(chromedp.CSS(".graphiql-execute-button")))
	waitFor(t, ctx, "the subscription in the editor", `document.querySelector('.graphiql-query-editor').innerText.includes('memoryEvents')`)
	do(t, ctx, chromedp.Click(chromedp.CSS(".graphiql-execute-button")))
	seen := false
	for i := 0; i < 20 && !seen; i++ { // the subscription registers a moment after the click
		id := s.store(t, map[string]any{"scopeId": e.id, "content": fmt.Sprintf("seen live in the playground %d", i)}).ID
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('.graphiql-response').innerText.includes(%q)`, id),
			chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(1500*time.Millisecond)))
		seen = err == nil
	}
	if !seen {
		t.Fatalf("no MemoryStored reached the playground's subscription; the response shows %q",
			eval[string](t, ctx, `document.querySelector('.graphiql-response').innerText`))
	}
	// GraphiQL shows a subscription's latest event.
	if text := eval[string](t, ctx, `document.querySelector('.graphiql-response').innerText`); !strings.Contains(text, `"memoryEvents"`) {
		t.Fatalf("the response shows %q, want a memoryEvents payload", text)
	}
	b.shot(t, ctx, "playground-2-subscription")
}

// pageState is window.totalrecallExplorer.state().
type pageState struct {
	Nodes    int     `json:"nodes"`
	Edges    int     `json:"edges"`
	Selected *string `json:"selected"`
}

const settled = `(() => { const x = window.totalrecallExplorer; if (!x) return false; const i = x.info(); return i.busy === 0 && !i.layout && i.live; })()`

// quiet holds once the page has settled and no live event arrived for 800 ms: what follows a
// write (salience rescored, tiers) has reached the page, so the panel will not redraw under a click.
const quiet = `(() => { const x = window.totalrecallExplorer; if (!x) return false; const i = x.info();
  const q = window.__quiet || (window.__quiet = { n: -1, t: 0 }); const now = Date.now();
  if (i.events !== q.n || i.busy !== 0 || i.layout || !i.live) { q.n = i.events; q.t = now; return false; }
  return now - q.t > 800; })()`

// shown counts what the page should show of a subgraph: every node but the archived ones, and
// the edges between the nodes shown, the weaker associations than floor left out.
func shown(nodes map[string]string, edges map[string]float64, floor float64) (int, int) {
	n := 0
	for _, state := range nodes {
		if state != "ARCHIVED" && state != "REMOVED" {
			n++
		}
	}
	m := 0
	for k, w := range edges {
		ends := strings.SplitN(k, "|", 3)
		if nodes[ends[0]] == "" || nodes[ends[1]] == "" || nodes[ends[0]] == "ARCHIVED" || nodes[ends[1]] == "ARCHIVED" {
			continue
		}
		if w >= 0 && w < floor {
			continue
		}
		m++
	}
	return n, m
}

// occurred are the occurredAt of the nodes union has seen.
var occurred = map[string]string{}

// union adds a subgraph to the node states and edge strengths (-1: no strength) kept so far.
func union(nodes map[string]string, edges map[string]float64, g subgraph) {
	for _, n := range g.Nodes {
		nodes[n.ID] = n.State
		if n.OccurredAt != nil {
			occurred[n.ID] = *n.OccurredAt
		}
	}
	for _, ed := range g.Edges {
		w := -1.0
		if ed.Strength != nil {
			w = *ed.Strength
		}
		typ := ""
		if ed.Type != nil {
			typ = *ed.Type
		}
		edges[ed.Source+"|"+ed.Target+"|"+ed.Kind+"|"+typ] = w
	}
}

func state(t *testing.T, ctx context.Context) pageState {
	t.Helper()
	raw := eval[[]byte](t, ctx, `window.totalrecallExplorer.state()`)
	var st pageState
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// nodeAt pans the node to the middle of the view and answers where it is drawn on the page.
func nodeAt(t *testing.T, ctx context.Context, id string) (x, y float64) {
	t.Helper()
	if !eval[bool](t, ctx, fmt.Sprintf(`window.totalrecallExplorer.center(%q)`, id)) {
		t.Fatalf("node %s is not on the page", id)
	}
	var p struct{ X, Y float64 }
	if err := json.Unmarshal(eval[[]byte](t, ctx, fmt.Sprintf(`window.totalrecallExplorer.position(%q)`, id)), &p); err != nil {
		t.Fatal(err)
	}
	return p.X, p.Y
}

func clickNode(t *testing.T, ctx context.Context, id string, opts ...chromedp.MouseOption) {
	t.Helper()
	x, y := nodeAt(t, ctx, id)
	do(t, ctx, chromedp.MouseClickXY(x, y, opts...))
}

func doubleClickNode(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	x, y := nodeAt(t, ctx, id)
	do(t, ctx, chromedp.MouseClickXY(x, y), chromedp.MouseClickXY(x, y, chromedp.ClickCount(2)))
}

func testExplorerInBrowser(t *testing.T, b *browser, s *server, base string, e explorerScope) {
	ctx := b.tab(t)
	// 1. The seeded scope from the URL: its newest memories, two levels deep.
	do(t, ctx, chromedp.Navigate(base+"/explore?scope="+url.QueryEscape(e.id)))
	waitFor(t, ctx, "the scope loaded and live", settled+` && window.totalrecallExplorer.state().nodes > 0`)
	var mem struct {
		Memories struct{ Nodes []struct{ ID string } }
	}
	s.ok(t, `query($s: ID!) { memories(scopeId: $s, first: 30) { nodes { id } } }`, map[string]any{"s": e.id}, &mem)
	var seeds []string
	for _, m := range mem.Memories.Nodes {
		seeds = append(seeds, m.ID)
	}
	nodes, edges := map[string]string{}, map[string]float64{}
	union(nodes, edges, s.neighborhood(t, e.id, seeds, 2))
	wantN, wantE := shown(nodes, edges, 0)
	if st := state(t, ctx); st.Nodes != wantN || st.Edges != wantE || st.Selected != nil || wantN < 10 {
		t.Fatalf("loaded: state %+v, want %d nodes and %d edges (the API's neighborhood without the archived)", st, wantN, wantE)
	}
	b.shot(t, ctx, "explorer-1-loaded")
	// Archived memories, shown faded on request: the two consolidated into e.merged.
	do(t, ctx, chromedp.Click(chromedp.ID("showarchived")))
	if st := state(t, ctx); st.Nodes != len(nodes) || st.Nodes != wantN+2 {
		t.Fatalf("with the archived: %+v, want %d nodes", st, len(nodes))
	}
	do(t, ctx, chromedp.Click(chromedp.ID("showarchived")))

	// 2. Search: the hits seed the view, one level deep, and the URL says so.
	do(t, ctx, chromedp.SetValue(chromedp.ID("q"), "climbing"), chromedp.Click(chromedp.CSS(`#search button[type=submit]`)))
	waitFor(t, ctx, "the search", settled+` && location.search.includes('q=climbing') && window.totalrecallExplorer.has(`+jsq(e.climbing)+`)`)
	var hits struct{ SearchArtifacts []struct{ ID string } }
	s.ok(t, `query($s: ID!) { searchArtifacts(scopeId: $s, query: "climbing", maxResults: 25, includeArchived: true) { id } }`, map[string]any{"s": e.id}, &hits)
	seeds = nil
	for _, h := range hits.SearchArtifacts {
		seeds = append(seeds, h.ID)
	}
	nodes, edges = map[string]string{}, map[string]float64{}
	union(nodes, edges, s.neighborhood(t, e.id, seeds, 1))
	wantN, wantE = shown(nodes, edges, 0)
	if st := state(t, ctx); st.Nodes != wantN || st.Edges != wantE {
		t.Fatalf("search: state %+v, want %d nodes and %d edges", st, wantN, wantE)
	}
	b.shot(t, ctx, "explorer-2-search")

	// 3. Expand: a double click on the book loads its neighbourhood (depth 2 by default).
	union(nodes, edges, s.neighborhood(t, e.id, []string{e.book}, 2))
	wantN, wantE = shown(nodes, edges, 0)
	expanded := fmt.Sprintf(settled+` && window.totalrecallExplorer.state().nodes === %d`, wantN)
	for try := 0; ; try++ {
		doubleClickNode(t, ctx, e.book)
		// Two clicks count as one double click within 450 ms of the page's clock; on a loaded
		// machine they may arrive further apart, so the gesture is tried again (a bounded loop).
		if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expanded, chromedp.WithPollingInterval(50*time.Millisecond),
			chromedp.WithPollingTimeout(5*time.Second))); err == nil || try == 2 {
			break
		}
	}
	waitFor(t, ctx, "the expansion", expanded)
	if st := state(t, ctx); st.Nodes != wantN || st.Edges != wantE {
		t.Fatalf("expanded: state %+v, want %d nodes and %d edges", st, wantN, wantE)
	}
	b.shot(t, ctx, "explorer-3-expanded")

	// 4. Filters: associations weaker than 0.5 leave the view; then "memories" off leaves the rest.
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`(el => { el.value = '0.5'; el.dispatchEvent(new Event('input')); })(document.getElementById('minstrength'))`))
	_, wantWeak := shown(nodes, edges, 0.5)
	if st := state(t, ctx); st.Edges != wantWeak || wantWeak >= wantE {
		t.Fatalf("min strength 0.5: %d edges, want %d (of %d)", st.Edges, wantWeak, wantE)
	}
	b.shot(t, ctx, "explorer-4-filtered")
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`(el => { el.value = '0'; el.dispatchEvent(new Event('input')); })(document.getElementById('minstrength'))`))
	if st := state(t, ctx); st.Edges != wantE {
		t.Fatalf("min strength back to 0: %d edges, want %d", st.Edges, wantE)
	}
	// The time slider at its start: only what happened first, and what has no time, stays.
	first, timeless := "", 0
	for id, st := range nodes {
		if st == "ARCHIVED" {
			continue
		}
		switch at, ok := occurred[id]; {
		case !ok:
			timeless++
		case first == "" || at < first:
			first = at
		}
	}
	atFirst := 0
	for id, st := range nodes {
		if st != "ARCHIVED" && occurred[id] == first {
			atFirst++
		}
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`(el => { el.value = '0'; el.dispatchEvent(new Event('input')); })(document.getElementById('tto'))`))
	if st := state(t, ctx); st.Nodes != timeless+atFirst || st.Nodes >= wantN {
		t.Fatalf("time slider at the start: %d nodes, want %d without a time and %d at %s", st.Nodes, timeless, atFirst, first)
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`(el => { el.value = '1000'; el.dispatchEvent(new Event('input')); })(document.getElementById('tto'))`))
	if st := state(t, ctx); st.Nodes != wantN || st.Edges != wantE {
		t.Fatalf("time slider back at the end: %+v, want %d nodes and %d edges", st, wantN, wantE)
	}

	// 5. The detail panel of a memory: content, tier, claim, tags, metadata, history with its
	// TransactionContext, derived view, episodes, facets.
	clickNode(t, ctx, e.climbing)
	waitFor(t, ctx, "the detail panel", settled+` && document.querySelector('#dbody .content') && document.querySelector('#dbody').innerText.includes('Baker Street every Tuesday')`)
	if st := state(t, ctx); st.Selected == nil || *st.Selected != e.climbing {
		t.Fatalf("selected %v, want %s", st.Selected, e.climbing)
	}
	panel := eval[string](t, ctx, `document.getElementById('dbody').textContent`)
	for _, want := range []string{"ACTIVE_CONTEXT", "salience", "claimed", "climbing", `"place": "Baker Street"`, "MemoryStored",
		"TransactionContext", "requestId", "causationId", "sourceContext", "derived view", "supported", "episodes", "facets", "history"} {
		if !strings.Contains(panel, want) {
			t.Fatalf("the detail panel lacks %q:\n%s", want, panel)
		}
	}
	b.shot(t, ctx, "explorer-5-detail")

	// 6. Actions through the API: claim; archive refused with its code; associate with a second
	// memory picked by shift-click.
	do(t, ctx, chromedp.Click(chromedp.CSS(`#dbody button[data-act=claim]`)))
	waitFor(t, ctx, "the claim", settled+` && !document.querySelector('#dbody button[data-act=claim]') && document.querySelector('#dbody').innerText.includes('yes')`)
	waitFor(t, ctx, "a quiet page", quiet)
	do(t, ctx, chromedp.Click(chromedp.CSS(`#dbody button[data-act=archive]`)))
	waitFor(t, ctx, "the refusal", `document.querySelector('.toast.error[data-code="NOT_A_CANDIDATE"]') !== null`)
	before := state(t, ctx)
	clickNode(t, ctx, e.book, chromedp.ButtonModifiers(chromedp.ModifierShift))
	waitFor(t, ctx, "the second selection", `document.querySelector('#dbody .second button[data-act=associate]') !== null`)
	waitFor(t, ctx, "a quiet page", quiet)
	do(t, ctx, chromedp.SetValue(chromedp.ID("acttype"), "EMOTIONAL"), chromedp.SetValue(chromedp.ID("actstrength"), "0.5"),
		chromedp.Click(chromedp.CSS(`#dbody button[data-act=associate]`)))
	waitFor(t, ctx, "the new association", settled+fmt.Sprintf(` && window.totalrecallExplorer.state().edges === %d`, before.Edges+1))
	var as struct {
		Associations []struct {
			TargetID, Type string
			Strength       float64
		}
	}
	s.ok(t, `query($id: ID!) { associations(memoryId: $id, types: [EMOTIONAL]) { targetId type strength } }`, map[string]any{"id": e.climbing}, &as)
	if len(as.Associations) != 1 || as.Associations[0].TargetID != e.book || as.Associations[0].Strength != 0.5 {
		t.Fatalf("associations after the page's associate: %+v", as)
	}
	b.shot(t, ctx, "explorer-6-actions")

	// 7. Path mode: climbing to book goes through coffee (costs 0.1 + 0.3) rather than the
	// direct EMOTIONAL 0.5 (0.5) or THEMATIC 0.2 (0.8).
	do(t, ctx, chromedp.KeyEvent(kb.Escape), chromedp.Click(chromedp.ID("pathmode")))
	clickNode(t, ctx, e.climbing)
	clickNode(t, ctx, e.book)
	waitFor(t, ctx, "the path", `window.totalrecallExplorer.info().path === 5 && document.getElementById('modebanner').textContent.includes('2 associations')`)
	b.shot(t, ctx, "explorer-7-path")
	do(t, ctx, chromedp.KeyEvent(kb.Escape))

	// 8. Live: a memory stored and associated meanwhile appears without a reload.
	before = state(t, ctx)
	fresh := s.store(t, map[string]any{"scopeId": e.id, "content": "Ada wants to go climbing in Lisbon"}).ID
	s.ok(t, `mutation($in: AssociateInput!) { associateMemories(input: $in) { strength } }`,
		map[string]any{"in": map[string]any{"sourceId": fresh, "targetId": e.climbing, "type": "TEMPORAL", "strength": 0.8}}, nil)
	defer func() {
		if t.Failed() {
			t.Logf("page edges of fresh: %s; API: %+v", eval[string](t, ctx, fmt.Sprintf(`JSON.stringify(window.totalrecallExplorer.edgesOf(%q))`, fresh)),
				s.neighborhood(t, e.id, []string{fresh}, 1).Edges)
		}
	}()
	// The Synapse also connects the fresh memory by itself (a PERSON association to another memory
	// naming Ada, say), a second or so later: the page shows the fresh memory with the TEMPORAL
	// association made here, and every edge it gained is one of the fresh memory's.
	waitFor(t, ctx, "the live memory", settled+fmt.Sprintf(` && window.totalrecallExplorer.has(%[1]q) && (() => {
		const es = window.totalrecallExplorer.edgesOf(%[1]q);
		return es.some(e => e.includes(%[2]q) && e.endsWith('|ASSOCIATION|TEMPORAL')) && window.totalrecallExplorer.state().edges === %[3]d + es.length;
	})()`, fresh, e.climbing, before.Edges))
	if st := state(t, ctx); st.Nodes != before.Nodes+1 {
		t.Fatalf("live: %+v, want %d nodes", st, before.Nodes+1)
	}
	b.shot(t, ctx, "explorer-8-live")

	// 9. The whole scope again, an imported turn selected: its episode and facets in the panel.
	ctx = b.tab(t)
	do(t, ctx, chromedp.Navigate(base+"/explore?scope="+url.QueryEscape(e.id)))
	waitFor(t, ctx, "the scope loaded again", settled+` && window.totalrecallExplorer.state().nodes > 0`)
	clickNode(t, ctx, e.comet)
	waitFor(t, ctx, "the imported turn's panel", settled+` && /episodes\s*1/.test(document.getElementById('dbody').textContent) && document.getElementById('dbody').textContent.includes('person: ')`)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.totalrecallExplorer.center(`+jsq(e.comet)+`)`))
	b.shot(t, ctx, "explorer-9-overview")
}

func jsq(s string) string { b, _ := json.Marshal(s); return string(b) }
