package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/client"
)

// FuzzInput feeds the hooks whatever an agent might write on their standard input. The server
// the client names is not there, so each input is read and checked and the first call fails:
// whatever the input, a hook returns no error, never panics, and answers nothing or one line of
// hook JSON.
func FuzzInput(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","cwd":"/tmp/p"}`,
		`{"session_id":"s1","prompt":"what did we decide?","hook_event_name":"UserPromptSubmit","cwd":"/tmp/p"}`,
		`{"session_id":"","prompt":"x"}`,
		`{"session_id":"s\"1\\","prompt":"<_:a> <b> \"c\" .","cwd":"\u0000"}`,
		`{"session_id":1}`,
		`[]`, `null`, ``, `{`, "\xff\xfe",
	} {
		f.Add(uint8(0), []byte(s))
	}
	recorded, _ := filepath.Glob("testdata/*.json") // what Claude Code and Codex wrote
	for i, p := range recorded {
		if raw, err := os.ReadFile(p); err == nil {
			f.Add(uint8(i), raw)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	c := client.New(dead, "")
	events := []string{SessionStart, UserPromptSubmit}
	f.Fuzz(func(t *testing.T, event uint8, raw []byte) {
		var out, log bytes.Buffer
		err := Run(context.Background(), events[int(event)%len(events)], bytes.NewReader(raw), &out,
			Options{Client: c, Budget: 5 * time.Second, Log: &log})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if out.Len() > 0 {
			var o Output
			if bytes.Count(out.Bytes(), []byte("\n")) != 1 || json.Unmarshal(out.Bytes(), &o) != nil {
				t.Fatalf("answered %q", out.String())
			}
		}
	})
}

// FuzzTranscript feeds the transcript reader (Claude Code's and Codex's JSON Lines) any bytes:
// it never panics, and what it reads back it reads again the same from a file.
func FuzzTranscript(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.jsonl")
	for _, p := range seeds {
		if raw, err := os.ReadFile(p); err == nil {
			f.Add(raw)
		}
	}
	f.Add([]byte(`{"type":"user","message":{"role":"user","content":"hi"}}` + "\n" + `{"type":"assistant","message":{"content":[{"type":"text","text":"hello"}]}}`))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"x"}]}}`))
	f.Add([]byte("{\n\x00\n[]\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		tr, err := parseTranscript(bytes.NewReader(raw))
		path := filepath.Join(t.TempDir(), "t.jsonl")
		if werr := os.WriteFile(path, raw, 0o600); werr != nil {
			t.Fatal(werr)
		}
		tr2, err2 := readTranscript(path)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("parse %v, read %v", err, err2)
		}
		if err == nil {
			a, _ := json.Marshal(tr)
			b, _ := json.Marshal(tr2)
			if !bytes.Equal(a, b) {
				t.Fatalf("parse and read differ:\n%s\n%s", a, b)
			}
		}
	})
}
