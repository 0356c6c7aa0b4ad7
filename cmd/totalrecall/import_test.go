package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportCommand drives `totalrecall import events` on a file, on the embedded engine and on
// a cluster: malformed lines are reported by line and skipped, and running the import again
// resumes it — what is in stays, the rest comes in.
func TestImportCommand(t *testing.T) {
	for _, name := range []string{"embedded", "cluster"} {
		t.Run(name, func(t *testing.T) {
			sf, ok := backends(t)[name]
			if !ok {
				t.Skip("TOTALRECALL_TEST_DGRAPH not set: no cluster configured")
			}
			testImportCommand(t, sf(t))
		})
	}
}

func testImportCommand(t *testing.T, sf storeFlags) {
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
	flags := []string{"--store", sf.store}
	if sf.index != "" {
		flags = append(flags, "--index", sf.index)
	}
	importArgs := func(scope string) []string {
		return append(append([]string{"import", "events"}, flags...), "--scope", scope, file)
	}
	var out, errOut bytes.Buffer
	if err := run(importArgs(""), &out, &errOut); err != nil {
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
	if err := run(importArgs(scope), &out, &errOut); err != nil {
		t.Fatalf("import: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "2 events (1 new, 1 already imported)") || !strings.Contains(out.String(), "skipped line 2:") {
		t.Fatalf("resumed run: %s", out.String())
	}
	if err := run(importArgs("not-a-scope"), &out, &errOut); err == nil {
		t.Fatal("an import into a scope that is no UUID must fail")
	}
}
