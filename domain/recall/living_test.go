package recall

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// graph is an in-memory association graph for the traversal's unit tests.
type graph map[string]map[string]float64

func (g graph) link(a, b string, s float64) {
	for _, p := range [][2]string{{a, b}, {b, a}} {
		if g[p[0]] == nil {
			g[p[0]] = map[string]float64{}
		}
		g[p[0]][p[1]] = s
	}
}

func (g graph) Neighbours(_ context.Context, ids []string, floor float64) ([]domain.Edge, error) {
	var out []domain.Edge
	for _, id := range ids {
		for to, s := range g[id] {
			if s >= floor {
				out = append(out, domain.Edge{From: id, To: to, Type: domain.AssocCausal, Strength: s})
			}
		}
	}
	return out, nil
}

func TestTotalRecallDepthByDepth(t *testing.T) {
	g := graph{}
	g.link("src", "a", 0.9)
	g.link("a", "b", 0.8)
	g.link("b", "c", 0.5)
	g.link("src", "weak", 0.1)
	g.link("src", "b", 0.4) // reached at depth 1 already, so never again at depth 2
	res, err := TotalRecall(context.Background(), g, []string{"src"}, TotalRecallParams{MaxDepth: 5})
	if err != nil {
		t.Fatal(err)
	}
	// Depth 1 finds a (0.9) and b (0.4); depth 2 adds c through b (0.4·0.5); depth 3 adds nothing.
	if res.DepthReached != 2 {
		t.Fatalf("depth reached %d, want 2 (a level with nothing new stops)", res.DepthReached)
	}
	got := res.Ranked(0)
	var names []string
	for _, r := range got {
		names = append(names, fmt.Sprintf("%s@%d=%.2f", r.MemoryID, r.Depth, r.Activation))
	}
	if strings.Join(names, " ") != "a@1=0.90 b@1=0.40 c@2=0.20" {
		t.Fatalf("recalled %v", names)
	}
	for _, r := range got {
		if r.MemoryID == "weak" || r.MemoryID == "src" {
			t.Fatalf("recalled %s", r.MemoryID)
		}
	}
	// maxDepth bounds it; the beam keeps the strongest.
	res, _ = TotalRecall(context.Background(), g, []string{"src"}, TotalRecallParams{MaxDepth: 1, Beam: 1})
	if res.DepthReached != 1 || len(res.Levels[0]) != 1 || res.Levels[0][0].MemoryID != "a" {
		t.Fatalf("beam 1, depth 1: %+v", res.Levels)
	}
	if top := res.Ranked(0); top[0].Via.From != "src" {
		t.Fatalf("via = %+v", top[0].Via)
	}
	// Nothing above the floor: depth 0.
	res, _ = TotalRecall(context.Background(), g, []string{"weak"}, TotalRecallParams{Floor: 0.5})
	if res.DepthReached != 0 || len(res.Ranked(0)) != 0 {
		t.Fatalf("isolated source: %+v", res)
	}
}

func TestTotalRecallPrefersTheStrongestPath(t *testing.T) {
	g := graph{}
	g.link("s1", "x", 0.5)
	g.link("s2", "y", 0.9)
	g.link("y", "z", 0.9)
	g.link("x", "z", 0.9)
	res, _ := TotalRecall(context.Background(), g, []string{"s1", "s2"}, TotalRecallParams{})
	var z *Recollection
	for _, r := range res.Ranked(0) {
		if r.MemoryID == "z" {
			z = &r
		}
	}
	if z == nil || z.Via.From != "y" || fmt.Sprintf("%.2f", z.Activation) != "0.81" {
		t.Fatalf("z = %+v, want reached via y with 0.81", z)
	}
}

func TestFillWorkingMemoryFadesAndPrunes(t *testing.T) {
	mem := func(id string) *domain.Memory { return &domain.Memory{ID: id} }
	hits := []*RankedMemory{{Memory: mem("a"), Score: 0.9}, {Memory: mem("b"), Score: 0.5}, {Memory: mem("c"), Score: 0.3}}
	wm := FillWorkingMemory(nil, "s", "first", 2, hits, time.Unix(0, 0))
	if len(wm.Items) != 2 || wm.Items[0].MemoryID != "a" || wm.Items[1].MemoryID != "b" || wm.Capacity != 2 {
		t.Fatalf("first fill = %+v", wm.Items)
	}
	later := time.Unix(100, 0)
	wm = FillWorkingMemory(wm, "s", "second", 2, []*RankedMemory{{Memory: mem("d"), Score: 0.5}, {Memory: mem("b"), Score: 0.6}}, later)
	// a faded to 0.45, b found again at 0.6 (kept its first addition), d new at 0.5.
	if len(wm.Items) != 2 || wm.Items[0].MemoryID != "b" || wm.Items[0].Relevance != 0.6 || !wm.Items[0].AddedAt.Equal(time.Unix(0, 0)) ||
		wm.Items[1].MemoryID != "d" || wm.Context != "second" {
		t.Fatalf("second fill = %+v", wm.Items)
	}
}

func TestBuildPromptContext(t *testing.T) {
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	mems := map[string]*domain.Memory{
		"a": {ID: "a", Tier: domain.TierIdentityCore, OccurredAt: at, Content: "I keep\nthe lighthouse"},
		"b": {ID: "b", Tier: domain.TierLongTerm, OccurredAt: at, Content: strings.Repeat("記憶", 40)},
	}
	items := []domain.WorkingItem{{MemoryID: "b", Relevance: 0.5}, {MemoryID: "gone", Relevance: 0.9}, {MemoryID: "a", Relevance: 0.8}}
	pc := BuildPromptContext(items, mems, 10, 1000)
	want := "- [IDENTITY_CORE 2026-03-01] I keep the lighthouse\n- [LONG_TERM 2026-03-01] " + strings.Repeat("記憶", 40)
	if pc.Text != want || pc.Truncated || len(pc.Items) != 2 || pc.Items[0].Memory.ID != "a" {
		t.Fatalf("prompt = %q %+v", pc.Text, pc)
	}
	pc = BuildPromptContext(items, mems, 1, 1000)
	if len(pc.Items) != 1 || strings.Contains(pc.Text, "\n") || pc.Truncated {
		t.Fatalf("one memory: %+v", pc)
	}
	for budget := 1; budget < 80; budget++ {
		pc = BuildPromptContext(items, mems, 10, budget)
		if pc.Tokens > budget || EstimateTokens(pc.Text) > budget+1 || !utf8Valid(pc.Text) {
			t.Fatalf("budget %d: %d tokens, %q", budget, pc.Tokens, pc.Text)
		}
		if budget < 14 && !pc.Truncated {
			t.Fatalf("budget %d: not marked truncated", budget)
		}
		if n := len(pc.Items); n > 0 && pc.Items[n-1].Truncated && !strings.HasSuffix(pc.Text, "…") {
			t.Fatalf("budget %d: a cut memory does not end with an ellipsis: %q", budget, pc.Text)
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestReflectJudge(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	weak := 0.3
	from, to := now.Add(-100*24*time.Hour), now.Add(-50*24*time.Hour)
	c := ReflectCriteria{StaleAfter: 30 * 24 * time.Hour, WeakBelow: &weak, From: &from, To: &to}
	old := now.Add(-60 * 24 * time.Hour)
	row := &domain.ReflectRow{Memory: &domain.Memory{OccurredAt: old, CreatedAt: old}, ReinforcedAt: &old, Associations: 2, Strongest: 0.2}
	if got := fmt.Sprint(c.Judge(row, now)); got != "[STALE IN_TIME_SPAN WEAKLY_ASSOCIATED]" {
		t.Fatalf("judge = %s", got)
	}
	fresh := now.Add(-time.Hour)
	row = &domain.ReflectRow{Memory: &domain.Memory{OccurredAt: fresh, CreatedAt: old}, ReinforcedAt: &fresh, Associations: 1, Strongest: 0.9}
	if got := c.Judge(row, now); len(got) != 0 {
		t.Fatalf("fresh, strongly associated, outside the span: %v", got)
	}
	// Without a reinforcement on record, the creation or last retrieval counts.
	row = &domain.ReflectRow{Memory: &domain.Memory{OccurredAt: fresh, CreatedAt: old, LastAccessedAt: &fresh}, Associations: 1, Strongest: 0.9}
	if got := c.Judge(row, now); len(got) != 0 {
		t.Fatalf("recently retrieved: %v", got)
	}
}

// TestTotalRecallDefaults pins the documented bounds of a total recall without parameters:
// associations of at least 0.3, 3 levels deep, the 16 strongest of each level, 30 results.
func TestTotalRecallDefaults(t *testing.T) {
	if got, want := (TotalRecallParams{}).WithDefaults(), (TotalRecallParams{MaxDepth: 3, Floor: 0.3, Beam: 16, MaxResults: 30}); got != want {
		t.Fatalf("defaults %+v, want %+v", got, want)
	}
	if got := (TotalRecallParams{MaxDepth: 11}).WithDefaults().MaxDepth; got != 10 {
		t.Fatalf("maxDepth 11 walks %d deep, want at most 10", got)
	}
	g := graph{}
	chain := []string{"src", "a", "b", "c", "d", "e"}
	for i := 1; i < len(chain); i++ {
		g.link(chain[i-1], chain[i], 0.9)
	}
	g.link("src", "floor", 0.3)
	g.link("src", "below", 0.29)
	res, err := TotalRecall(context.Background(), g, []string{"src"}, TotalRecallParams{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range res.Ranked(0) {
		names = append(names, fmt.Sprintf("%s@%d=%.3f", r.MemoryID, r.Depth, r.Activation))
	}
	if res.DepthReached != 3 || strings.Join(names, " ") != "a@1=0.900 b@2=0.810 c@3=0.729 floor@1=0.300" {
		t.Fatalf("depth %d, recalled %v", res.DepthReached, names)
	}
	// A level keeps its 16 strongest: of 20 neighbours of 0.50..0.69, those of 0.54 and more.
	hub := graph{}
	for i := 0; i < 20; i++ {
		hub.link("hub", fmt.Sprintf("n%02d", i), 0.50+float64(i)/100)
	}
	res, err = TotalRecall(context.Background(), hub, []string{"hub"}, TotalRecallParams{})
	if err != nil {
		t.Fatal(err)
	}
	if l := res.Levels[0]; len(l) != 16 || l[15].MemoryID != "n04" || l[0].MemoryID != "n19" {
		t.Fatalf("level 1 kept %d: %+v", len(l), l)
	}
}

// TestDocumentedWorkingMemoryAndPromptNumbers pins the numbers docs/concepts.md states for the
// working memory (capacity 12 unless given; what it held fades to half) and the prompt context
// (10 memories and 1,000 tokens unless given; a token is 4 bytes, rounded up; a memory that does
// not fit whole is cut with "…" when 8 of its tokens fit), and reflect's defaults (stale for 30
// days, weaker than 0.3, at most 50).
func TestDocumentedWorkingMemoryAndPromptNumbers(t *testing.T) {
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var hits []*RankedMemory
	mems := map[string]*domain.Memory{}
	for i := 0; i < 13; i++ {
		id := fmt.Sprintf("m%02d", i)
		mems[id] = &domain.Memory{ID: id, Tier: domain.TierLongTerm, OccurredAt: at, Content: "memory " + id}
		hits = append(hits, &RankedMemory{Memory: mems[id], Score: 1 - float64(i)/100})
	}
	wm := FillWorkingMemory(nil, "s", "context", 0, hits, at)
	if wm.Capacity != 12 || len(wm.Items) != 12 {
		t.Fatalf("default capacity %d with %d items, want 12 and 12", wm.Capacity, len(wm.Items))
	}
	wm = FillWorkingMemory(wm, "s", "next", 0, nil, at)
	if wm.Items[0].MemoryID != "m00" || wm.Items[0].Relevance != 0.5 {
		t.Fatalf("after a context that found nothing: %+v, want m00 faded from 1 to 0.5", wm.Items[0])
	}
	for s, want := range map[string]int{"": 0, "a": 1, "abcd": 1, "abcde": 2, "記憶": 2} {
		if got := EstimateTokens(s); got != want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", s, got, want)
		}
	}
	pc := BuildPromptContext(wm.Items, mems, 0, 0)
	if len(pc.Items) != 10 || pc.Truncated {
		t.Fatalf("default prompt: %d memories, truncated %v; want 10 within 1,000 tokens", len(pc.Items), pc.Truncated)
	}
	long := map[string]*domain.Memory{"l": {ID: "l", Tier: domain.TierLongTerm, OccurredAt: at, Content: strings.Repeat("word ", 1000)}}
	items := []domain.WorkingItem{{MemoryID: "l", Relevance: 1}}
	if pc := BuildPromptContext(items, long, 0, 0); pc.Tokens > 1000 || pc.Tokens < 990 || !pc.Truncated || !strings.HasSuffix(pc.Text, "…") {
		t.Fatalf("a 5,000-byte memory in the default budget: %d tokens, truncated %v", pc.Tokens, pc.Truncated)
	}
	if pc := BuildPromptContext(items, long, 0, 7); len(pc.Items) != 0 || !pc.Truncated {
		t.Fatalf("7 tokens: %+v, want the memory left out", pc)
	}
	if pc := BuildPromptContext(items, long, 0, 8); len(pc.Items) != 1 || !pc.Items[0].Truncated || !strings.HasSuffix(pc.Text, "…") {
		t.Fatalf("8 tokens: %+v, want the memory cut", pc)
	}
	c := DefaultReflectCriteria()
	if c.StaleAfter != 30*24*time.Hour || c.WeakBelow == nil || *c.WeakBelow != 0.3 || c.Limit != 50 {
		t.Fatalf("reflect defaults %+v", c)
	}
}
