package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// MaxLineBytes bounds one JSON Lines record.
const MaxLineBytes = 4 << 20

// eventLine is one line of the events format. Field names follow seed 001's events table;
// camelCase spellings are accepted too.
type eventLine struct {
	ID            string          `json:"id"`
	Timestamp     json.RawMessage `json:"timestamp"`
	Channel       string          `json:"channel"`
	ContentTypes  []string        `json:"content_types"`
	ContentTypesC []string        `json:"contentTypes"`
	Content       *string         `json:"content"`
	Direction     string          `json:"direction"`
	Thread        string          `json:"thread"`
	ThreadID      string          `json:"thread_id"`
	ThreadIDC     string          `json:"threadId"`
	ThreadName    string          `json:"thread_name"`
	ParentThread  string          `json:"parent_thread_id"`
	ReplyTo       string          `json:"reply_to"`
	ReplyToC      string          `json:"replyTo"`
	SourceAdapter string          `json:"source_adapter"`
	SourceAdapC   string          `json:"sourceAdapter"`
	SourceID      string          `json:"source_id"`
	SourceIDC     string          `json:"sourceId"`
	Sender        string          `json:"sender"`
	Speaker       string          `json:"speaker"`
	Metadata      map[string]any  `json:"metadata"`
	MetadataJSON  string          `json:"metadata_json"`
	Tags          []string        `json:"tags"`
}

func first(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

// ParseTime reads a timestamp: RFC 3339 text, or a number of seconds (or milliseconds, when it
// is too large for seconds) since the Unix epoch.
func ParseTime(raw json.RawMessage) (time.Time, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return time.Time{}, fmt.Errorf("timestamp is required")
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return time.Time{}, err
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t.UTC(), nil
			}
		}
		if n, err := strconv.ParseFloat(s, 64); err == nil {
			return unixTime(n), nil
		}
		return time.Time{}, fmt.Errorf("unreadable timestamp %q", s)
	}
	n, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("unreadable timestamp %s", raw)
	}
	return unixTime(n), nil
}

func unixTime(n float64) time.Time {
	if n > 1e11 { // milliseconds
		return time.UnixMilli(int64(n)).UTC()
	}
	sec := int64(n)
	return time.Unix(sec, int64((n-float64(sec))*1e9)).UTC()
}

// Lines calls fn with every non-blank line of r and its 1-based number. A line longer than
// MaxLineBytes is reported to fn with a nil line.
func Lines(r io.Reader, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	n := 0
	for {
		line, err := readLine(br)
		if err == io.EOF && line == nil {
			return nil
		}
		if err != nil && err != io.EOF && err != errLongLine {
			return err
		}
		n++
		if err == errLongLine {
			if ferr := fn(n, nil); ferr != nil {
				return ferr
			}
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if ferr := fn(n, line); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

var errLongLine = fmt.Errorf("line too long")

func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			if out != nil {
				return out, nil
			}
			return nil, err
		}
		if len(out)+len(chunk) > MaxLineBytes {
			for isPrefix { // skip the rest of the line
				_, isPrefix, err = br.ReadLine()
				if err != nil {
					break
				}
			}
			return nil, errLongLine
		}
		out = append(out, chunk...)
		if !isPrefix {
			if out == nil {
				out = []byte{}
			}
			return out, nil
		}
	}
}

// ReadEvents reads the events format from r, calling fn with batches of at most batch events
// (and the threads first named in them) and the problems of their lines. adapter keys the
// events unless a line names its own source_adapter.
//
// A line: {"timestamp": "2024-05-01T10:00:00Z" | 1714557600, "channel": "imessage",
// "content": "...", "direction": "sent"|"received"|"observed", "thread_id": "...",
// "thread_name": "...", "source_id": "...", "reply_to": "...", "sender": "...",
// "content_types": ["text"], "metadata": {...}, "tags": [...]}. source_id (or id) is required.
func ReadEvents(r io.Reader, adapter string, batch int, fn func(*domain.SourceBatch, []domain.SourceProblem) error) error {
	if batch <= 0 {
		batch = domain.MaxImportRecords
	}
	cur := &domain.SourceBatch{Adapter: adapter}
	var problems []domain.SourceProblem
	threads := map[string]bool{}
	flush := func() error {
		if len(cur.Events) == 0 && len(problems) == 0 && len(cur.Threads) == 0 {
			return nil
		}
		err := fn(cur, problems)
		cur, problems = &domain.SourceBatch{Adapter: adapter}, nil
		return err
	}
	err := Lines(r, func(n int, line []byte) error {
		bad := func(format string, args ...any) {
			problems = append(problems, domain.SourceProblem{Line: n, Message: fmt.Sprintf(format, args...)})
		}
		if line == nil {
			bad("line longer than %d bytes", MaxLineBytes)
			return nil
		}
		var l eventLine
		if err := json.Unmarshal(line, &l); err != nil {
			bad("not a JSON object: %v", err)
			return nil
		}
		id := first(l.SourceID, l.SourceIDC, l.ID)
		if id == "" {
			bad("source_id is required")
			return nil
		}
		at, err := ParseTime(l.Timestamp)
		if err != nil {
			bad("%v", err)
			return nil
		}
		if l.Content == nil {
			bad("content is required")
			return nil
		}
		md := l.Metadata
		if l.MetadataJSON != "" && md == nil {
			if err := json.Unmarshal([]byte(l.MetadataJSON), &md); err != nil {
				bad("metadata_json is not a JSON object")
				return nil
			}
		}
		if md == nil {
			md = map[string]any{}
		}
		thread := first(l.ThreadID, l.ThreadIDC, l.Thread)
		ev := &domain.SourceEvent{Adapter: first(l.SourceAdapter, l.SourceAdapC), SourceID: id, ThreadSourceID: thread,
			Timestamp: at, Channel: l.Channel, ContentTypes: first2(l.ContentTypes, l.ContentTypesC), Content: *l.Content,
			Direction: strings.ToLower(l.Direction), Speaker: first(l.Sender, l.Speaker), ReplyTo: first(l.ReplyTo, l.ReplyToC),
			Metadata: md, Tags: l.Tags, Line: n}
		if ev.Adapter == adapter {
			ev.Adapter = ""
		}
		if thread != "" && !threads[thread] && ev.Adapter == "" {
			threads[thread] = true
			cur.Threads = append(cur.Threads, &domain.SourceThread{SourceID: thread, Channel: l.Channel, Name: l.ThreadName,
				ParentSourceID: l.ParentThread, CreatedAt: at})
		}
		cur.Events = append(cur.Events, ev)
		if len(cur.Events) >= batch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

func first2(a, b []string) []string {
	if len(a) > 0 {
		return a
	}
	return b
}
