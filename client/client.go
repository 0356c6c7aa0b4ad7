// Package client is a client of a running totalrecall server's GraphQL API, shared by the CLI's
// commands, the coding-agent hooks and the MCP stdio bridge: every process but the one server
// talks to the data through it, so one data folder has one owner.
//
// Errors are *domain.Error values with the server's stable codes (extensions.code), so callers
// handle a refusal the same way whether it came from the Cortex in-process or over HTTP. A server
// that does not answer is UNAVAILABLE with one line naming the address.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// DefaultServer is the address used when neither --server nor $TOTALRECALL_SERVER names one.
const DefaultServer = "http://127.0.0.1:8080"

// Environment variables the clients read.
const (
	EnvServer = "TOTALRECALL_SERVER"
	EnvKey    = "TOTALRECALL_KEY"
)

// EUNAUTHENTICATED is the code of a request without a valid key (HTTP 401).
const EUNAUTHENTICATED = "UNAUTHENTICATED"

// Client talks to one server. Safe for concurrent use.
type Client struct {
	base string
	key  string
	http *http.Client
}

// ServerURL resolves the server address: the flag's value, else $TOTALRECALL_SERVER, else
// DefaultServer. A bare HOST:PORT gets http://.
func ServerURL(flagValue string) string {
	s := strings.TrimSpace(flagValue)
	if s == "" {
		s = strings.TrimSpace(os.Getenv(EnvServer))
	}
	if s == "" {
		s = DefaultServer
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	return strings.TrimRight(s, "/")
}

// New returns a client of the server at base (resolved with ServerURL) sending key, when not
// empty, as a bearer token.
func New(base, key string) *Client {
	return &Client{base: ServerURL(base), key: key, http: &http.Client{Timeout: 0}}
}

// FromEnv returns a client of ServerURL(flagValue) with the key of $TOTALRECALL_KEY.
func FromEnv(flagValue string) *Client {
	return New(flagValue, strings.TrimSpace(os.Getenv(EnvKey)))
}

// Base is the server's address (scheme://host:port, no trailing slash).
func (c *Client) Base() string { return c.base }

// Key is the bearer token the client sends ("" for none).
func (c *Client) Key() string { return c.key }

// WithHTTPClient replaces the HTTP client (timeouts, transports in tests).
func (c *Client) WithHTTPClient(h *http.Client) *Client {
	cp := *c
	cp.http = h
	return &cp
}

type gqlRequest struct {
	Query     string         `json:"query"`
	Variables map[string]any `json:"variables,omitempty"`
}

type gqlError struct {
	Message    string         `json:"message"`
	Extensions map[string]any `json:"extensions"`
}

type gqlResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []gqlError      `json:"errors"`
}

// Do runs one GraphQL operation and decodes its data into out (a pointer, or nil to discard).
// The first GraphQL error is returned as a *domain.Error with its code and field.
func (c *Client) Do(ctx context.Context, query string, vars map[string]any, out any) error {
	body, err := json.Marshal(gqlRequest{Query: query, Variables: vars})
	if err != nil {
		return domain.Errorf(domain.EINVALID, "encoding the request: %v", err)
	}
	resp, err := c.send(ctx, http.MethodPost, "/query", bytes.NewReader(body), "application/json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return c.unavailable(err)
	}
	var gr gqlResponse
	if jerr := json.Unmarshal(raw, &gr); jerr != nil {
		if e := statusError(resp, raw); e != nil {
			return e
		}
		return domain.Errorf(domain.EUNAVAILABLE, "%s answered %s with something that is not GraphQL", c.base, resp.Status)
	}
	if len(gr.Errors) > 0 {
		return toError(gr.Errors[0], resp.StatusCode)
	}
	if e := statusError(resp, raw); e != nil {
		return e
	}
	if out == nil || len(gr.Data) == 0 || string(gr.Data) == "null" {
		return nil
	}
	if err := json.Unmarshal(gr.Data, out); err != nil {
		return domain.Errorf(domain.EINTERNAL, "decoding the answer of %s: %v", c.base, err)
	}
	return nil
}

// Get fetches a path of the server (for example /export/SCOPE.graphml) with the client's key.
// A status other than 200 is an error with the code the status stands for; the caller closes
// the body of a 200.
func (c *Client) Get(ctx context.Context, path string) (*http.Response, error) {
	resp, err := c.send(ctx, http.MethodGet, path, nil, "")
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusOK {
		return resp, nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if e := statusError(resp, raw); e != nil {
		return nil, e
	}
	return nil, domain.Errorf(domain.EUNAVAILABLE, "%s%s answered %s", c.base, path, resp.Status)
}

// Ping reports whether the server answers its health check, within d.
func (c *Client) Ping(ctx context.Context, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	resp, err := c.send(ctx, http.MethodGet, "/healthz", nil, "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return domain.Errorf(domain.EUNAVAILABLE, "the totalrecall server at %s is not ready (%s)", c.base, resp.Status)
	}
	return nil
}

func (c *Client) send(ctx context.Context, method, path string, body io.Reader, contentType string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, domain.Errorf(domain.EINVALID, "server address %q: %v", c.base, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.unavailable(err)
	}
	return resp, nil
}

// unavailable turns a transport failure into one line a person can act on.
func (c *Client) unavailable(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && (ue.Timeout() || errors.Is(err, context.DeadlineExceeded)) {
		return domain.Errorf(domain.EUNAVAILABLE, "the totalrecall server at %s did not answer in time", c.base)
	}
	if errors.Is(err, context.Canceled) {
		return domain.Errorf(domain.ECANCELED, "canceled")
	}
	var oe *net.OpError
	if errors.As(err, &oe) || errors.Is(err, io.EOF) {
		return domain.Errorf(domain.EUNAVAILABLE,
			"no totalrecall server answers at %s (start one with `totalrecall serve`, or name another with --server or $%s)", c.base, EnvServer)
	}
	return domain.Errorf(domain.EUNAVAILABLE, "the totalrecall server at %s: %v", c.base, err)
}

// statusError maps the HTTP statuses the server's edge answers with to codes; nil for 2xx.
func statusError(resp *http.Response, body []byte) error {
	msg := strings.TrimSpace(string(body))
	if len(msg) > 200 {
		msg = msg[:200]
	}
	switch {
	case resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusUnauthorized:
		return domain.Errorf(EUNAUTHENTICATED, "the server wants an API key: set $%s (%s)", EnvKey, msg)
	case resp.StatusCode == http.StatusForbidden:
		return domain.Errorf(domain.EFORBIDDEN, "%s", orStatus(msg, resp))
	case resp.StatusCode == http.StatusNotFound:
		return domain.Errorf(domain.ENOTFOUND, "%s", orStatus(msg, resp))
	case resp.StatusCode == http.StatusRequestEntityTooLarge:
		return domain.Errorf(domain.ETOOLARGE, "%s", orStatus(msg, resp))
	case resp.StatusCode == http.StatusTooManyRequests:
		return domain.Errorf("RATE_LIMITED", "too many requests; retry after %s s", orDash(resp.Header.Get("Retry-After")))
	case resp.StatusCode == http.StatusServiceUnavailable:
		return domain.Errorf(domain.EUNAVAILABLE, "the server is not ready: %s", orStatus(msg, resp))
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return domain.Errorf(domain.EINVALID, "%s", orStatus(msg, resp))
	}
	return domain.Errorf(domain.EUNAVAILABLE, "%s", orStatus(msg, resp))
}

func orStatus(msg string, resp *http.Response) string {
	if msg == "" {
		return resp.Status
	}
	return msg
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func toError(e gqlError, status int) error {
	code, _ := e.Extensions["code"].(string)
	if code == "" {
		code = domain.EINTERNAL
		if status == http.StatusUnauthorized {
			code = EUNAUTHENTICATED
		}
	}
	field, _ := e.Extensions["field"].(string)
	msg := e.Message
	if field != "" {
		msg = strings.TrimPrefix(msg, field+": ")
	}
	return &domain.Error{Code: code, Message: msg, Field: field}
}

// String is for logs: the server address, never the key.
func (c *Client) String() string { return fmt.Sprintf("totalrecall server %s", c.base) }

// ExportDump writes the server's whole graph (GET /export, JSON Lines) to w and returns the
// number of lines.
func (c *Client) ExportDump(ctx context.Context, w io.Writer) (int, error) {
	resp, err := c.Get(ctx, "/export")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	cw := &lineCounter{w: w}
	if _, err := io.Copy(cw, resp.Body); err != nil {
		return cw.n, c.unavailable(err)
	}
	return cw.n, nil
}

type lineCounter struct {
	w io.Writer
	n int
}

func (l *lineCounter) Write(p []byte) (int, error) {
	l.n += bytes.Count(p, []byte{'\n'})
	return l.w.Write(p)
}

// ImportDump loads a dump into the server (POST /import) and returns the number of lines read.
func (c *Client) ImportDump(ctx context.Context, r io.Reader) (int, error) {
	resp, err := c.send(ctx, http.MethodPost, "/import", r, "application/x-ndjson")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var out struct {
		Lines int `json:"lines"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &out) == nil && out.Error != nil {
		return 0, &domain.Error{Code: out.Error.Code, Message: out.Error.Message}
	}
	if e := statusError(resp, raw); e != nil {
		return 0, e
	}
	return out.Lines, nil
}
