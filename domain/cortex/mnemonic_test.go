package cortex_test

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/domain/recall"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/ingest"
	"github.com/totalrecall/totalrecall/llm"
	"github.com/totalrecall/totalrecall/search"
)

// The pipeline against a real embedded store and Bleve index, with a local fake of an
// OpenAI-compatible model server.

// synonyms make the fake embedder see meaning that shares no word.
var synonyms = map[string]string{"canine": "dog", "puppy": "dog", "hound": "dog", "automobile": "car"}

func fakeVector(text string) []float32 {
	v := make([]float32, 256)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
		if s, ok := synonyms[w]; ok {
			w = s
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%256]++
	}
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n) + 1e-9)
	}
	return v
}

func fakeModels(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input    []string             `json:"input"`
			Messages []domain.ChatMessage `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		switch r.URL.Path {
		case "/v1/embeddings":
			var data []map[string]any
			for i, in := range req.Input {
				data = append(data, map[string]any{"index": i, "embedding": fakeVector(in)})
			}
			json.NewEncoder(w).Encode(map[string]any{"data": data})
		case "/v1/chat/completions":
			prompt := req.Messages[0].Content
			answer := `{"summary": "a chat about pets", "facets": [{"type": "topic", "value": "pets", "confidence": 0.8}]}`
			if strings.Contains(prompt, "gibberish") {
				answer = "I would rather not."
			}
			json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]any{"content": answer}}}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPipelineWithModels(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := graph.Open(ctx, "file://"+filepath.Join(dir, "graph"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	idx, err := search.Open(filepath.Join(dir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	srv := fakeModels(t)
	emb, _ := llm.NewEmbeddings(llm.Config{BaseURL: srv.URL + "/v1", Model: "fake-emb"})
	chat, _ := llm.NewChat(llm.Config{BaseURL: srv.URL + "/v1", Model: "fake-chat"})
	cx, err := cortex.New(ctx, cortex.Config{Store: st, Index: idx, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Mnemonic: cortex.MnemonicConfig{Embedder: emb, Chat: chat}})
	if err != nil {
		t.Fatal(err)
	}
	defer cx.Close()
	// The memory stored below would get an episode of the Synapse's whenever its gathering
	// ends, and that episode would join whichever analysis ran next.
	cx.SetSynapseOff(true)
	sc, err := cx.CreateScope(ctx, "models", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	events := strings.Join([]string{
		`{"timestamp": "2026-01-01T10:00:00Z", "channel": "chat", "content": "My dog Rex loves the beach", "direction": "sent", "thread_id": "a", "source_id": "1", "sender": "Ada"}`,
		`{"timestamp": "2026-01-01T10:01:00Z", "channel": "chat", "content": "We bought a new red car", "direction": "received", "thread_id": "a", "source_id": "2", "sender": "Bob"}`,
		`{"timestamp": "2026-01-05T10:00:00Z", "channel": "chat", "content": "gibberish only", "direction": "sent", "thread_id": "b", "source_id": "3", "sender": "Ada"}`,
	}, "\n")
	src, err := ingest.Open(ingest.KindEvents, "events", strings.NewReader(events), "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := ingest.Import(ctx, cx, sc.ID, src, cortex.Meta{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Imported != 3 || res.Embedded != 3 || res.Episodes != 2 {
		t.Fatalf("import = %+v, want 3 events embedded in 2 episodes", res)
	}
	// Hybrid search: "canine" shares no word with any memory; its vector is the dog's.
	hits, err := cx.SearchMemory(ctx, cortex.SearchInput{ScopeID: sc.ID, Query: "canine", MaxResults: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || !strings.Contains(hits[0].Memory.Content, "dog Rex") || hits[0].Reason != recall.ReasonVector {
		t.Fatalf("hits for canine = %+v", describe(hits))
	}
	hits, err = cx.SearchMemory(ctx, cortex.SearchInput{ScopeID: sc.ID, Query: "red car", MaxResults: 3})
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Memory.Content, "red car") || hits[0].Reason != recall.ReasonText {
		t.Fatalf("hits for red car = %+v, %v", describe(hits), err)
	}
	// Nothing left to embed; a memory stored later gets its vector on the next pass.
	if n, err := cx.EmbedMemories(ctx, sc.ID, cortex.Meta{}); err != nil || n != 0 {
		t.Fatalf("EmbedMemories = %d, %v; want 0", n, err)
	}
	if _, err := cx.StoreMemory(ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: sc.ID, Content: "an automobile"}}); err != nil {
		t.Fatal(err)
	}
	if n, err := cx.EmbedMemories(ctx, sc.ID, cortex.Meta{}); err != nil || n != 1 {
		t.Fatalf("EmbedMemories = %d, %v; want 1", n, err)
	}
	// The llm analysis: one episode completes with the model's facets, the other fails on the
	// model's unreadable answer, and says why.
	runs, err := cx.Analyze(ctx, cortex.AnalyzeInput{ScopeID: sc.ID, Type: "llm"})
	if err != nil {
		t.Fatal(err)
	}
	status := map[domain.AnalysisStatus]int{}
	for _, r := range runs {
		status[r.Status]++
		if r.Status == domain.RunFailed && !strings.Contains(r.ErrorMessage, "JSON") {
			t.Fatalf("failed run says %q", r.ErrorMessage)
		}
		if r.Status == domain.RunCompleted && (r.OutputText != "a chat about pets" || r.FacetCount != 1) {
			t.Fatalf("completed run = %+v", r)
		}
	}
	if status[domain.RunCompleted] != 1 || status[domain.RunFailed] != 1 {
		t.Fatalf("runs = %v", status)
	}
	fs, err := cx.Facets(ctx, sc.ID, domain.FacetFilter{Type: "topic", Value: "pets"})
	if err != nil || len(fs) != 1 || fs[0].Metadata["model"] != "fake-chat" {
		t.Fatalf("llm facets = %+v, %v", fs, err)
	}
	// A completed run is not repeated; the failed one is retried.
	again, err := cx.Analyze(ctx, cortex.AnalyzeInput{ScopeID: sc.ID, Type: "llm"})
	if err != nil || len(again) != 2 {
		t.Fatalf("again = %d, %v", len(again), err)
	}
	stored, err := cx.AnalysisRuns(ctx, sc.ID, domain.RunFilter{Status: domain.RunFailed})
	if err != nil || len(stored) != 1 {
		t.Fatalf("failed runs stored = %d, %v", len(stored), err)
	}
	types, err := cx.AnalysisTypes(ctx, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, at := range types {
		found = found || (at.Name == "llm" && at.Model == "fake-chat" && strings.Contains(at.PromptTemplate, "{{transcript}}"))
	}
	if !found {
		t.Fatalf("analysis types = %+v", types)
	}
}

func describe(rs []*recall.RankedMemory) []string {
	var out []string
	for _, r := range rs {
		out = append(out, string(r.Reason)+" "+r.Memory.Content)
	}
	return out
}
