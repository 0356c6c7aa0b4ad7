// Package llm holds clients of OpenAI-compatible model servers: chat completions (for the llm
// analyser) and embeddings (for hybrid search). Any server speaking the OpenAI HTTP API works —
// OpenAI, a local llama.cpp or vLLM server, Ollama's /v1 endpoint. Clients are safe for
// concurrent use.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Config names a server and model.
type Config struct {
	// BaseURL is the API root, e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1.
	BaseURL string
	APIKey  string
	Model   string
	// HTTP is the client to use (default: one with a 120 s timeout).
	HTTP *http.Client
}

func (c Config) client() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: 120 * time.Second}
}

func (c Config) check() error {
	if c.BaseURL == "" || !(strings.HasPrefix(c.BaseURL, "http://") || strings.HasPrefix(c.BaseURL, "https://")) {
		return domain.FieldErrorf("baseURL", "must be an http(s) URL")
	}
	if c.Model == "" {
		return domain.FieldErrorf("model", "must be named")
	}
	return nil
}

// post sends a JSON request to path and decodes the JSON answer into out.
func (c Config) post(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.BaseURL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	resp, err := c.client().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return domain.Errorf(domain.EUNAVAILABLE, "model server %s: %v", c.BaseURL, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return domain.Errorf(domain.EUNAVAILABLE, "model server %s: %v", c.BaseURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(raw, &e)
		msg := e.Error.Message
		if msg == "" {
			msg = strings.TrimSpace(string(raw))
			if len(msg) > 200 {
				msg = msg[:200]
			}
		}
		return domain.Errorf(domain.EUNAVAILABLE, "model server %s answered %d: %s", c.BaseURL, resp.StatusCode, msg)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return domain.Errorf(domain.EUNAVAILABLE, "model server %s: unreadable answer: %v", c.BaseURL, err)
	}
	return nil
}

// Chat is a chat-completions client (POST {BaseURL}/chat/completions).
type Chat struct{ cfg Config }

var _ domain.ChatModel = (*Chat)(nil)

// NewChat returns a chat client. Errors: INVALID_ARGUMENT.
func NewChat(cfg Config) (*Chat, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	return &Chat{cfg: cfg}, nil
}

func (c *Chat) Model() string { return c.cfg.Model }

// Complete returns the first choice's message content.
func (c *Chat) Complete(ctx context.Context, messages []domain.ChatMessage) (string, error) {
	var out struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	req := map[string]any{"model": c.cfg.Model, "messages": messages, "temperature": 0}
	if err := c.cfg.post(ctx, "/chat/completions", req, &out); err != nil {
		return "", err
	}
	if len(out.Choices) == 0 {
		return "", domain.Errorf(domain.EUNAVAILABLE, "model server %s: no choices in the answer", c.cfg.BaseURL)
	}
	return out.Choices[0].Message.Content, nil
}

// Embeddings is an embeddings client (POST {BaseURL}/embeddings).
type Embeddings struct {
	cfg Config
	// Batch is the most texts sent in one request (default 256).
	Batch int
}

var _ domain.Embedder = (*Embeddings)(nil)

// NewEmbeddings returns an embeddings client. Errors: INVALID_ARGUMENT.
func NewEmbeddings(cfg Config) (*Embeddings, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	return &Embeddings{cfg: cfg, Batch: 256}, nil
}

func (e *Embeddings) Model() string { return e.cfg.Model }

// Embed returns one vector per text, in order, sending at most Batch texts per request.
func (e *Embeddings) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	batch := e.Batch
	if batch <= 0 {
		batch = 256
	}
	for start := 0; start < len(texts); start += batch {
		part := texts[start:min(len(texts), start+batch)]
		var r struct {
			Data []struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
		}
		if err := e.cfg.post(ctx, "/embeddings", map[string]any{"model": e.cfg.Model, "input": part}, &r); err != nil {
			return nil, err
		}
		if len(r.Data) != len(part) {
			return nil, domain.Errorf(domain.EUNAVAILABLE, "model server %s: %d embeddings for %d texts", e.cfg.BaseURL, len(r.Data), len(part))
		}
		vecs := make([][]float32, len(part))
		dims := -1
		for _, d := range r.Data {
			if d.Index < 0 || d.Index >= len(part) || vecs[d.Index] != nil {
				return nil, domain.Errorf(domain.EUNAVAILABLE, "model server %s: bad embedding index %d", e.cfg.BaseURL, d.Index)
			}
			if len(d.Embedding) == 0 || (dims >= 0 && len(d.Embedding) != dims) {
				return nil, domain.Errorf(domain.EUNAVAILABLE, "model server %s: embeddings of unequal or zero length", e.cfg.BaseURL)
			}
			dims = len(d.Embedding)
			vecs[d.Index] = d.Embedding
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// String describes the client for logs.
func (e *Embeddings) String() string {
	return fmt.Sprintf("embeddings %s at %s", e.cfg.Model, e.cfg.BaseURL)
}
