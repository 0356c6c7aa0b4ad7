package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportCommand drives `totalrecall import events` on a file: malformed lines are reported
// by line and skipped, and running the import again resumes it — what is in stays, the rest
// comes in.
func TestImportCommand(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		`{"timestamp": "2024-05-01T10:00:00Z", "channel": "sms", "content": "first", "thread_id": "t", "source_id": "1"}`,
		`{broken`,
		`{"timestamp": "2024-05-01T10:01:00Z", "channel": "sms", "content": "second", "thread_id": "t", "source_id": "2"}`,
	}
	file := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines[:1], "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	store := "file://" + filepath.Join(dir, "data")
	var out, errOut bytes.Buffer
	if err := run([]string{"import", "events", "--store", store, "--scope", "", file}, &out, &errOut); err != nil {
		t.Fatalf("import: %v\n%s", err, errOut.String())
	}
	scope := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(errOut.String(), "\n", 2)[0], "created scope"))
	if !strings.Contains(out.String(), "1 events (1 new, 0 already imported)") {
		t.Fatalf("first run: %s", out.String())
	}
	// The whole file now: the first event is skipped, the broken line reported, the rest in.
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run([]string{"import", "events", "--store", store, "--scope", scope, file}, &out, &errOut); err != nil {
		t.Fatalf("import: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "2 events (1 new, 1 already imported)") || !strings.Contains(out.String(), "skipped line 2:") {
		t.Fatalf("resumed run: %s", out.String())
	}
	if err := run([]string{"import", "events", "--store", store, "--scope", "not-a-scope", file}, &out, &errOut); err == nil {
		t.Fatal("an import into a scope that is no UUID must fail")
	}
}
