package cortex_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/llm"
)

// awaitSynapse waits until the Synapse consumer has handled the log up to its head.
func awaitSynapse(t *testing.T, cx *cortex.Cortex) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		head := cx.Log().Head()
		if cx.SynapsePosition() >= head {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Synapse is at %d, the log at %d", cx.SynapsePosition(), head)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// storeAt stores content with a sessionId (none when empty) at an occurredAt.
func storeAt(t *testing.T, cx *cortex.Cortex, scope, session, content string, at time.Time) *domain.Memory {
	t.Helper()
	m, err := cx.StoreMemory(context.Background(), cortex.StoreMemoryInput{SessionID: session,
		StoreInput: hippocampus.StoreInput{ScopeID: scope, Content: content, OccurredAt: &at}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// links renders a memory's associations as "TYPE→i strength" with i the index of the other end
// in ids (-1 for a memory not among them), sorted.
func links(t *testing.T, cx *cortex.Cortex, id string, ids []string) []string {
	t.Helper()
	as, err := cx.Associations(context.Background(), id, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range as {
		j := -1
		for k, x := range ids {
			if x == a.TargetID {
				j = k
			}
		}
		out = append(out, fmt.Sprintf("%s→%d %.3f", a.Type, j, a.Strength))
	}
	sort.Strings(out)
	return out
}

var fourMemories = []string{
	"Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
	"Melanie: I painted a lake sunrise last year, painting is my way to relax.",
	"Caroline: The support group made me feel accepted and gave me courage.",
	"Melanie: My new painting of the lake is almost finished.",
}

// Four memories stored one by one in a session, two of Caroline's support group and two of
// Melanie's painting: a TEMPORAL chain, a PERSON link between each person's two, one episode
// with both persons as facets, and events caused by the MemoryStored they connect.
func TestSynapseConnectsFourMemories(t *testing.T) {
	ctx := context.Background()
	s := openTestStack(t)
	cx, _ := s.cortex(cortex.MnemonicConfig{})
	scope, err := cx.CreateScope(ctx, "four memories", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	var ids []string
	for i, text := range fourMemories {
		ids = append(ids, storeAt(t, cx, scope.ID, "chat-1", text, t0.Add(time.Duration(i)*time.Minute)).ID)
		// Connected before the next arrives, so each is measured against the same index in every
		// run (the weight of a word depends on the memories the index holds).
		awaitSynapse(t, cx)
	}
	want := [][]string{
		{"PERSON→2 0.613", "TEMPORAL→1 0.984"},
		{"PERSON→3 0.666", "TEMPORAL→0 0.984", "TEMPORAL→2 0.984"},
		{"PERSON→0 0.613", "TEMPORAL→1 0.984", "TEMPORAL→3 0.984"},
		{"PERSON→1 0.666", "TEMPORAL→2 0.984"},
	}
	for i, id := range ids {
		if got := links(t, cx, id, ids); strings.Join(got, ", ") != strings.Join(want[i], ", ") {
			t.Errorf("memory %d: %v, want %v", i, got, want[i])
		}
	}
	eps, err := cx.Episodes(ctx, scope.ID, domain.EpisodeFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 1 {
		t.Fatalf("%d episodes, want 1", len(eps))
	}
	ep, err := cx.Episode(ctx, eps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ep.Items, ",") != strings.Join(ids, ",") || ep.EventCount != 4 || !ep.StartTime.Equal(t0) ||
		!ep.EndTime.Equal(t0.Add(3*time.Minute)) || ep.FirstEventID != ids[0] || ep.LastEventID != ids[3] {
		t.Fatalf("episode = %+v", ep)
	}
	defs, err := cx.EpisodeDefinitions(ctx, scope.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 1 || defs[0].Name != cortex.SynapseSessionDefinition || defs[0].ID != ep.DefinitionID {
		t.Fatalf("definitions = %+v", defs)
	}
	fs, err := cx.Facets(ctx, scope.ID, domain.FacetFilter{Type: domain.FacetPerson})
	if err != nil {
		t.Fatal(err)
	}
	var persons []string
	for _, f := range fs {
		persons = append(persons, fmt.Sprintf("%s %.1f %v %v", f.Value, f.Confidence, f.Metadata["count"], f.MemoryID == ids[map[string]int{"Caroline": 0, "Melanie": 1}[f.Value]]))
	}
	sort.Strings(persons)
	if got := strings.Join(persons, "; "); got != "Caroline 1.0 2 true; Melanie 1.0 2 true" || fs[0].EpisodeID != ep.ID {
		t.Fatalf("person facets = %s", got)
	}
	runs, err := cx.AnalysisRuns(ctx, scope.ID, domain.RunFilter{EpisodeID: ep.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].TypeName != "persons" || runs[0].Status != domain.RunCompleted {
		t.Fatalf("runs = %+v", runs)
	}
	// The third memory's history: its MemoryStored (touched by the Synapse) caused its
	// AssociationCreated (the fourth's, which names it, is in the fourth's history).
	h, err := cx.History(ctx, ids[2])
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	var stored, created *domain.Event
	for _, e := range h {
		types = append(types, string(e.Type))
		switch {
		case e.Type == domain.EvMemoryStored:
			stored = e
		case e.Type == domain.EvAssociationCreated && e.MemoryID == ids[2] && created == nil:
			created = e
		}
	}
	if got := strings.Join(types, " "); got != "StoreCommand MemoryStored AssociationCreated" {
		t.Fatalf("history = %s", got)
	}
	c := created.Context
	if c.CausationID != stored.Context.MessageID || c.SessionID != "chat-1" || c.RequestID != stored.Context.RequestID ||
		c.SourceContext != domain.CtxSynapse || c.MessageID == stored.Context.MessageID {
		t.Fatalf("AssociationCreated context %+v, MemoryStored %+v", c, stored.Context)
	}
	if got := fmt.Sprint(created.Payload["associations"]); !strings.Contains(got, "type:TEMPORAL") || !strings.Contains(got, "person:Caroline") {
		t.Fatalf("AssociationCreated payload %v", created.Payload)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		evs, err := cx.History(ctx, ids[2])
		if err != nil {
			t.Fatal(err)
		}
		var touched []string
		for _, e := range evs {
			if e.Type == domain.EvMemoryStored {
				for _, tc := range e.Touches {
					touched = append(touched, tc.Context)
				}
			}
		}
		if strings.Contains(strings.Join(touched, ","), domain.CtxSynapse) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("MemoryStored touches %v, want the Synapse's", touched)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// A claim strengthens every association of the claimed memory by 0.1, up to 1.
	claim, err := cx.ClaimMemory(ctx, ids[2], cortex.Meta{RequestID: "claim-2", SessionID: "chat-1"})
	if err != nil {
		t.Fatal(err)
	}
	awaitSynapse(t, cx)
	if got := strings.Join(links(t, cx, claim.ID, ids), ", "); got != "PERSON→0 0.713, TEMPORAL→1 1.000, TEMPORAL→3 1.000" {
		t.Fatalf("after the claim: %s", got)
	}
	trace, _, err := cx.Trace(ctx, "claim-2")
	if err != nil {
		t.Fatal(err)
	}
	if len(trace) != 1 || len(trace[0].Children) != 1 || trace[0].Children[0].Event.Type != domain.EvMemoryClaimed {
		t.Fatalf("trace of the claim: %+v", trace)
	}
	var str *domain.Event
	for _, n := range trace[0].Children[0].Children {
		if n.Event.Type == domain.EvAssociationStrengthened {
			if str != nil {
				t.Fatal("two AssociationStrengthened for one claim")
			}
			str = n.Event
		}
	}
	if str == nil || str.MemoryID != ids[2] || str.Context.SourceContext != domain.CtxSynapse || len(str.Payload["associations"].([]any)) != 3 {
		t.Fatalf("the claim caused %+v", str)
	}
}

// A stream of memories stored across a restart of the server, and through two servers on one
// graph, is connected exactly once: one TEMPORAL chain, one episode holding each memory once,
// one AssociationCreated per memory.
func TestSynapseConnectsOnceAcrossRestarts(t *testing.T) {
	ctx := context.Background()
	s := openTestStack(t)
	cx, closeFirst := s.cortex(cortex.MnemonicConfig{})
	scope, err := cx.CreateScope(ctx, "restarts", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	var ids []string
	store := func(cx *cortex.Cortex, i int) {
		ids = append(ids, storeAt(t, cx, scope.ID, "long-session", fmt.Sprintf("Ann: note number %d about the garden", i), t0.Add(time.Duration(i)*time.Minute)).ID)
	}
	for i := 0; i < 12; i++ {
		store(cx, i)
	}
	// Stopped in the middle of the stream: what the Synapse committed stays, the rest waits.
	closeFirst()
	cx2, _ := s.cortex(cortex.MnemonicConfig{})
	cx3, _ := s.cortex(cortex.MnemonicConfig{}) // a second server on the same graph
	for i := 12; i < 24; i++ {
		if i%2 == 0 {
			store(cx2, i)
		} else {
			store(cx3, i)
		}
	}
	awaitSynapse(t, cx2)
	awaitSynapse(t, cx3)
	for i, id := range ids {
		var temporal []string
		as, err := cx2.Associations(ctx, id, []domain.AssociationType{domain.AssocTemporal}, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range as {
			temporal = append(temporal, a.TargetID)
		}
		var want []string
		if i > 0 {
			want = append(want, ids[i-1])
		}
		if i < len(ids)-1 {
			want = append(want, ids[i+1])
		}
		sort.Strings(temporal)
		sort.Strings(want)
		if strings.Join(temporal, ",") != strings.Join(want, ",") {
			t.Fatalf("memory %d: TEMPORAL to %v, want %v", i, temporal, want)
		}
		h, err := cx2.History(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		created := 0
		for _, e := range h {
			if e.Type == domain.EvAssociationCreated && e.MemoryID == id && e.Context.SourceContext == domain.CtxSynapse &&
				e.Payload["memoryId"] == id {
				created++
			}
		}
		if want := map[bool]int{true: 0, false: 1}[i == 0]; created != want {
			t.Fatalf("memory %d: %d AssociationCreated of its own, want %d", i, created, want)
		}
	}
	eps, err := cx2.Episodes(ctx, scope.ID, domain.EpisodeFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 1 {
		t.Fatalf("%d episodes, want 1", len(eps))
	}
	ep, err := cx2.Episode(ctx, eps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ep.Items, ",") != strings.Join(ids, ",") || ep.EventCount != len(ids) {
		t.Fatalf("episode holds %d items (count %d), want the %d memories once, in order", len(ep.Items), ep.EventCount, len(ids))
	}
}

// Nothing crosses scopes: the same session id and the same words in two scopes make two chains,
// two episodes, and no association between the scopes.
func TestSynapseStaysInScope(t *testing.T) {
	ctx := context.Background()
	s := openTestStack(t)
	cx, _ := s.cortex(cortex.MnemonicConfig{})
	a, err := cx.CreateScope(ctx, "a", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := cx.CreateScope(ctx, "b", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	var inA, inB []string
	for i, text := range fourMemories {
		at := t0.Add(time.Duration(i) * time.Minute)
		inA = append(inA, storeAt(t, cx, a.ID, "same-session", text, at).ID)
		inB = append(inB, storeAt(t, cx, b.ID, "same-session", text, at).ID)
	}
	awaitSynapse(t, cx)
	for _, set := range [][2][]string{{inA, inB}, {inB, inA}} {
		for i, id := range set[0] {
			for _, l := range links(t, cx, id, set[0]) {
				if strings.Contains(l, "→-1") {
					t.Fatalf("memory %d is associated outside its scope: %v", i, links(t, cx, id, set[1]))
				}
			}
			if n := len(links(t, cx, id, set[0])); n < 2 {
				t.Fatalf("memory %d has %d associations in its scope", i, n)
			}
		}
	}
	for _, sc := range []string{a.ID, b.ID} {
		eps, err := cx.Episodes(ctx, sc, domain.EpisodeFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(eps) != 1 || eps[0].EventCount != 4 {
			t.Fatalf("scope %s: episodes %+v", sc, eps)
		}
	}
}

// Memories stored without a session form episodes of their scope split where they lie more than
// the session gap apart, chained only within one.
func TestSynapseTimeGapEpisodes(t *testing.T) {
	ctx := context.Background()
	s := openTestStack(t)
	cx, _ := s.cortex(cortex.MnemonicConfig{})
	scope, err := cx.CreateScope(ctx, "no session", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 6, 1, 8, 0, 0, 0, time.UTC)
	offsets := []time.Duration{0, 10 * time.Minute, 35 * time.Minute, 3 * time.Hour, 3*time.Hour + time.Minute}
	var ids []string
	for i, off := range offsets {
		ids = append(ids, storeAt(t, cx, scope.ID, "", fmt.Sprintf("errand %d: buy bread", i), t0.Add(off)).ID)
	}
	awaitSynapse(t, cx)
	eps, err := cx.Episodes(ctx, scope.ID, domain.EpisodeFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, e := range eps {
		sizes = append(sizes, e.EventCount)
	}
	if fmt.Sprint(sizes) != "[3 2]" {
		t.Fatalf("episodes of %v memories, want [3 2]", sizes)
	}
	temporal := func(i int) string {
		var out []string
		for _, l := range links(t, cx, ids[i], ids) {
			if strings.HasPrefix(l, "TEMPORAL") {
				out = append(out, l)
			}
		}
		return strings.Join(out, ", ")
	}
	// Across the three hours' gap there is no TEMPORAL association.
	if got := temporal(2); got != "TEMPORAL→1 0.717" {
		t.Fatalf("memory 2: %s", got)
	}
	if got := temporal(3); got != "TEMPORAL→4 0.984" {
		t.Fatalf("memory 3: %s", got)
	}
	defs, err := cx.EpisodeDefinitions(ctx, scope.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 1 || defs[0].Name != cortex.SynapseTimeGapDefinition || defs[0].Config["gap_seconds"] != 1800.0 {
		t.Fatalf("definitions %+v", defs)
	}
	// Its definitions are the Synapse's: not to be redefined nor re-chunked.
	_, err = cx.ChunkEpisodes(ctx, scope.ID, cortex.SynapseTimeGapDefinition, cortex.Meta{})
	if domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("chunkEpisodes of the Synapse's definition: %v", err)
	}
	_, err = cx.DefineEpisodes(ctx, scope.ID, cortex.DefinitionInput{Name: cortex.SynapseSessionDefinition, Strategy: domain.StrategyThread}, cortex.Meta{})
	if domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("defineEpisodes with the Synapse's name: %v", err)
	}
}

// Where the scope has vectors, the Synapse embeds what is stored and links memories whose
// vectors are near though they share no word; a memory near none stays unlinked.
func TestSynapseThematicByVectors(t *testing.T) {
	ctx := context.Background()
	s := openTestStack(t)
	srv := fakeModels(t)
	emb, err := llm.NewEmbeddings(llm.Config{BaseURL: srv.URL + "/v1", Model: "fake-emb"})
	if err != nil {
		t.Fatal(err)
	}
	cx, _ := s.cortex(cortex.MnemonicConfig{Embedder: emb})
	scope, err := cx.CreateScope(ctx, "vectors", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 2, 1, 8, 0, 0, 0, time.UTC)
	// Each in a session of its own: no TEMPORAL association between them.
	first := storeAt(t, cx, scope.ID, "s1", "canine", t0)
	awaitSynapse(t, cx)
	if n, err := cx.EmbedMemories(ctx, scope.ID, cortex.Meta{}); err != nil || n != 1 {
		t.Fatalf("EmbedMemories = %d, %v; want 1", n, err)
	}
	second := storeAt(t, cx, scope.ID, "s2", "puppy", t0.Add(time.Hour))
	third := storeAt(t, cx, scope.ID, "s3", "automobile", t0.Add(2*time.Hour))
	awaitSynapse(t, cx)
	ids := []string{first.ID, second.ID, third.ID}
	for i, want := range []string{"THEMATIC→1 1.000", "THEMATIC→0 1.000", ""} {
		if got := strings.Join(links(t, cx, ids[i], ids), ", "); got != want {
			t.Errorf("memory %d: %q, want %q", i, got, want)
		}
	}
	// The Synapse kept the vectors it made: nothing is left to embed.
	if n, err := cx.EmbedMemories(ctx, scope.ID, cortex.Meta{}); err != nil || n != 0 {
		t.Fatalf("EmbedMemories after the Synapse = %d, %v; want 0", n, err)
	}
}
