package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// The stdio side of the MCP server: `totalrecall mcp` relays JSON-RPC between a client that
// spawned it (newline-delimited on stdin and stdout) and the running server's streamable HTTP
// endpoint, /mcp. Every tool runs on the server; the server's messages — responses, and the
// notifications of the standalone stream (channel notifications among them) — come back on
// stdout. A server that restarts loses its MCP sessions: the bridge opens a new one with the
// client's own initialize, unseen by the client.

// BridgeOptions bind the bridged connection.
type BridgeOptions struct {
	// Scope names the scope (id or name); Instance the mind instance, when known.
	Scope, Instance string
	// Channels, when set, asks for (or refuses) channel notifications whatever the client
	// declares.
	Channels *bool
	// Log receives one line per problem (the client's stderr).
	Log io.Writer
}

// MaxMCPLine is the longest JSON-RPC message the bridge relays.
const MaxMCPLine = 64 << 20

type bridge struct {
	c        *Client
	endpoint string
	log      io.Writer
	out      io.Writer
	outMu    sync.Mutex

	mu       sync.Mutex
	session  string
	version  string
	initReq  json.RawMessage // the client's initialize, replayed when the session is lost
	initDone bool
	reinit   int
	stream   context.CancelFunc

	wg sync.WaitGroup
}

type rpcHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"params"`
}

func (h rpcHead) isRequest() bool { return h.Method != "" && len(h.ID) > 0 && string(h.ID) != "null" }

// BridgeMCP relays MCP between in/out and the server until in ends (or ctx does). It fails at
// once, with one UNAVAILABLE line naming the address, when no server answers.
func (c *Client) BridgeMCP(ctx context.Context, in io.Reader, out io.Writer, opts BridgeOptions) error {
	if strings.TrimSpace(opts.Scope) == "" {
		return domain.FieldErrorf("scope", "name the scope: --scope NAME-or-ID, or $TOTALRECALL_SCOPE")
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if err := c.Ping(ctx, 3*time.Second); err != nil {
		return err
	}
	q := url.Values{"scope": {opts.Scope}}
	if opts.Instance != "" {
		q.Set("instance", opts.Instance)
	}
	if opts.Channels != nil {
		q.Set("channels", fmt.Sprint(*opts.Channels))
	}
	b := &bridge{c: c, endpoint: c.base + "/mcp?" + q.Encode(), log: opts.Log, out: out}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), MaxMCPLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		msg := append(json.RawMessage(nil), line...)
		var h rpcHead
		if err := json.Unmarshal(msg, &h); err != nil {
			b.writeError(json.RawMessage("null"), -32700, "parse error: "+err.Error())
			continue
		}
		switch {
		case h.Method == "initialize":
			b.mu.Lock()
			b.initReq = msg
			b.mu.Unlock()
			b.send(ctx, msg, h)
		case h.isRequest() && b.initialized():
			// Requests run side by side: a tool that waits must not hold the others up.
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				b.send(ctx, msg, h)
			}()
		default:
			b.send(ctx, msg, h)
			if h.Method == "notifications/initialized" {
				b.mu.Lock()
				b.initDone = true
				b.mu.Unlock()
				b.openStream(ctx)
			}
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(b.log, "totalrecall mcp: reading stdin: %v\n", err)
	}
	b.wg.Wait()
	b.close()
	return nil
}

func (b *bridge) initialized() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.initDone
}

// send posts one message and relays what answers it; a request that gets no answer gets a
// JSON-RPC error, so the client never waits in vain.
func (b *bridge) send(ctx context.Context, msg json.RawMessage, h rpcHead) {
	err := b.post(ctx, msg, h, true)
	if err == nil {
		return
	}
	fmt.Fprintf(b.log, "totalrecall mcp: %s\n", oneLine(err))
	if h.isRequest() {
		b.writeError(h.ID, -32000, oneLine(err))
	}
}

var errSessionGone = errors.New("the server no longer knows the session")

func (b *bridge) post(ctx context.Context, msg json.RawMessage, h rpcHead, retry bool) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.endpoint, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	sess := b.headers(req)
	resp, err := b.c.http.Do(req)
	if err != nil {
		return b.c.unavailable(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound && sess != "" && h.Method != "initialize" {
		io.Copy(io.Discard, resp.Body)
		if !retry {
			return errSessionGone
		}
		if err := b.reinitialize(ctx, sess); err != nil {
			return err
		}
		return b.post(ctx, msg, h, false)
	}
	if resp.StatusCode >= 300 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if jsonRPC(resp) && h.isRequest() {
			b.relay(raw) // a JSON-RPC error the client can read
			return nil
		}
		if e := statusError(resp, raw); e != nil {
			return e
		}
		return fmt.Errorf("%s answered %s", b.c.base, resp.Status)
	}
	if h.Method == "initialize" {
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			b.mu.Lock()
			b.session = id
			b.mu.Unlock()
		}
	}
	return b.relayBody(resp, h.Method == "initialize", nil)
}

func jsonRPC(resp *http.Response) bool {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt == "application/json"
}

func (b *bridge) headers(req *http.Request) string {
	if b.c.key != "" {
		req.Header.Set("Authorization", "Bearer "+b.c.key)
	}
	b.mu.Lock()
	sess, ver := b.session, b.version
	b.mu.Unlock()
	if sess != "" {
		req.Header.Set("Mcp-Session-Id", sess)
	}
	if ver != "" {
		req.Header.Set("Mcp-Protocol-Version", ver)
	}
	return sess
}

// relayBody writes the messages of a response (JSON or a stream of events) to the client; with
// swallow set (a replayed initialize) they are read, not relayed. initialize's answer sets the
// protocol version.
func (b *bridge) relayBody(resp *http.Response, initialize bool, swallow func(json.RawMessage)) error {
	each := func(data []byte) {
		if initialize {
			var r struct {
				Result struct {
					ProtocolVersion string `json:"protocolVersion"`
				} `json:"result"`
			}
			if json.Unmarshal(data, &r) == nil && r.Result.ProtocolVersion != "" {
				b.mu.Lock()
				b.version = r.Result.ProtocolVersion
				b.mu.Unlock()
			}
		}
		if swallow != nil {
			swallow(data)
			return
		}
		b.relay(data)
	}
	if jsonRPC(resp) {
		raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxMCPLine))
		if err != nil {
			return b.c.unavailable(err)
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			return nil
		}
		if raw[0] == '[' {
			var batch []json.RawMessage
			if err := json.Unmarshal(raw, &batch); err != nil {
				return err
			}
			for _, m := range batch {
				each(m)
			}
			return nil
		}
		each(raw)
		return nil
	}
	return readEvents(resp.Body, each)
}

// readEvents calls fn with the data of each server-sent event of r.
func readEvents(r io.Reader, fn func([]byte)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxMCPLine)
	var data [][]byte
	flush := func() {
		if len(data) > 0 {
			fn(bytes.Join(data, []byte("\n")))
		}
		data = nil
	}
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			flush()
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(line[5:], []byte(" "))
			data = append(data, append([]byte(nil), d...))
		}
	}
	flush()
	if err := sc.Err(); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// relay writes one message to the client, on a line of its own.
func (b *bridge) relay(data []byte) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		fmt.Fprintf(b.log, "totalrecall mcp: the server sent something that is not JSON: %.80q\n", data)
		return
	}
	buf.WriteByte('\n')
	b.outMu.Lock()
	defer b.outMu.Unlock()
	b.out.Write(buf.Bytes())
}

func (b *bridge) writeError(id json.RawMessage, code int, msg string) {
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	b.relay(raw)
}

// openStream holds the standalone stream open, reopening it when it drops, until ctx ends.
func (b *bridge) openStream(ctx context.Context) {
	sctx, cancel := context.WithCancel(ctx)
	b.mu.Lock()
	if b.stream != nil {
		b.stream()
	}
	b.stream = cancel
	b.mu.Unlock()
	go func() {
		backoff := 200 * time.Millisecond
		for sctx.Err() == nil {
			gone, err := b.listen(sctx)
			if sctx.Err() != nil {
				return
			}
			if gone {
				b.mu.Lock()
				sess := b.session
				b.mu.Unlock()
				if err := b.reinitialize(sctx, sess); err != nil {
					fmt.Fprintf(b.log, "totalrecall mcp: %s\n", oneLine(err))
				} else {
					return // reinitialize opened a new stream
				}
			} else if err != nil {
				fmt.Fprintf(b.log, "totalrecall mcp: notification stream: %s; reconnecting\n", oneLine(err))
			}
			select {
			case <-sctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, 30*time.Second)
		}
	}()
}

// listen reads the standalone stream once; gone reports a session the server no longer knows.
func (b *bridge) listen(ctx context.Context) (gone bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.endpoint, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if b.headers(req) == "" {
		return false, errors.New("no session to listen on")
	}
	resp, err := b.c.http.Do(req)
	if err != nil {
		return false, b.c.unavailable(err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return true, nil
	case resp.StatusCode == http.StatusMethodNotAllowed:
		<-ctx.Done() // the server offers no stream
		return false, nil
	case resp.StatusCode >= 300:
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return false, statusError(resp, raw)
	}
	return false, readEvents(resp.Body, func(data []byte) { b.relay(data) })
}

// reinitialize opens a new session with the client's own initialize after the server lost the
// old one (it restarted); the client sees nothing of it.
func (b *bridge) reinitialize(ctx context.Context, lost string) error {
	b.mu.Lock()
	if b.session != lost {
		b.mu.Unlock()
		return nil // another goroutine did it already
	}
	init := b.initReq
	b.session, b.version = "", ""
	b.reinit++
	n := b.reinit
	b.mu.Unlock()
	if init == nil {
		return errSessionGone
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(init, &m); err != nil {
		return err
	}
	m["id"] = json.RawMessage(fmt.Sprintf(`"totalrecall-bridge-reinitialize-%d"`, n))
	raw, _ := json.Marshal(m)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.endpoint, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	b.headers(req)
	resp, err := b.c.http.Do(req)
	if err != nil {
		return b.c.unavailable(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("reopening the MCP session: %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	b.mu.Lock()
	b.session = resp.Header.Get("Mcp-Session-Id")
	b.mu.Unlock()
	if err := b.relayBody(resp, true, func(json.RawMessage) {}); err != nil {
		return err
	}
	fmt.Fprintf(b.log, "totalrecall mcp: the server lost the session (it restarted?); a new one is open\n")
	if err := b.post(ctx, json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), rpcHead{Method: "notifications/initialized"}, false); err != nil {
		return err
	}
	b.openStream(context.WithoutCancel(ctx))
	return nil
}

// close ends the server's session (DELETE) and the stream.
func (b *bridge) close() {
	b.mu.Lock()
	sess, stop := b.session, b.stream
	b.mu.Unlock()
	if stop != nil {
		stop()
	}
	if sess == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, b.endpoint, nil)
	if err != nil {
		return
	}
	b.headers(req)
	if resp, err := b.c.http.Do(req); err == nil {
		resp.Body.Close()
	}
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
