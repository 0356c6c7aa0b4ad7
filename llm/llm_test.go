package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

// fakeServer is a local OpenAI-compatible server: embeddings are a deterministic function of
// the text, chat echoes a JSON answer.
func fakeServer(t *testing.T, requests *atomic.Int64) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Header.Get("Authorization") != "Bearer sekret" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error": {"message": "bad key"}}`))
			return
		}
		var req struct {
			Model    string               `json:"model"`
			Input    []string             `json:"input"`
			Messages []domain.ChatMessage `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/v1/embeddings":
			var data []map[string]any
			// Answer out of order: the client must put vectors back by index.
			for i := len(req.Input) - 1; i >= 0; i-- {
				data = append(data, map[string]any{"index": i, "embedding": []float32{float32(len(req.Input[i])), 1, 0}})
			}
			json.NewEncoder(w).Encode(map[string]any{"data": data, "model": req.Model})
		case "/v1/chat/completions":
			json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]any{
				"role": "assistant", "content": "you said: " + req.Messages[len(req.Messages)-1].Content}}}})
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestEmbeddings(t *testing.T) {
	var n atomic.Int64
	srv := fakeServer(t, &n)
	e, err := NewEmbeddings(Config{BaseURL: srv.URL + "/v1", Model: "emb-1", APIKey: "sekret"})
	if err != nil {
		t.Fatal(err)
	}
	e.Batch = 2
	vecs, err := e.Embed(context.Background(), []string{"a", "bbb", "cc", "dddd", "e"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 5 || vecs[1][0] != 3 || vecs[3][0] != 4 || vecs[4][0] != 1 {
		t.Fatalf("vectors = %v", vecs)
	}
	if n.Load() != 3 {
		t.Fatalf("%d requests, want 3 batches of at most 2", n.Load())
	}
	bad, _ := NewEmbeddings(Config{BaseURL: srv.URL + "/v1", Model: "emb-1", APIKey: "wrong"})
	_, err = bad.Embed(context.Background(), []string{"x"})
	if domain.ErrorCode(err) != domain.EUNAVAILABLE || !strings.Contains(err.Error(), "bad key") {
		t.Fatalf("err = %v", err)
	}
}

func TestChat(t *testing.T) {
	var n atomic.Int64
	srv := fakeServer(t, &n)
	c, err := NewChat(Config{BaseURL: srv.URL + "/v1/", Model: "chat-1", APIKey: "sekret"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Complete(context.Background(), []domain.ChatMessage{{Role: "user", Content: "hello"}})
	if err != nil || got != "you said: hello" {
		t.Fatalf("reply = %q, %v", got, err)
	}
}

func TestConfigAndUnreachable(t *testing.T) {
	for _, cfg := range []Config{{Model: "m"}, {BaseURL: "ftp://x", Model: "m"}, {BaseURL: "http://x"}} {
		if _, err := NewChat(cfg); domain.ErrorCode(err) != domain.EINVALID {
			t.Fatalf("NewChat(%+v) err = %v", cfg, err)
		}
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c, _ := NewChat(Config{BaseURL: url, Model: "m"})
	if _, err := c.Complete(context.Background(), nil); domain.ErrorCode(err) != domain.EUNAVAILABLE {
		t.Fatalf("err = %v", err)
	}
}
