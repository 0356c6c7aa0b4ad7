package mcpserver

import (
	"testing"
	"time"
)

// A recollection a tool returned stays the tool's: the pusher, which may see it only after the
// tool returned, does not push it. One the tool did not return (the wait ran out) is pushed.
func TestReturnedRecollectionIsNotPushed(t *testing.T) {
	b := &binding{}
	done := b.await("origin-returned")
	if !b.awaits("origin-returned") {
		t.Fatal("awaited: not marked")
	}
	done(true)
	if !b.awaits("origin-returned") {
		t.Fatal("returned by the tool, the recollection would be pushed again")
	}
	done = b.await("origin-pending")
	done(false)
	if b.awaits("origin-pending") || b.awaits("") {
		t.Fatal("a recollection the tool did not return would never be pushed")
	}
	// Marks older than ReturnedFor go when another is added.
	b.returned["origin-returned"] = time.Now().Add(-ReturnedFor - time.Second)
	b.await("origin-later")(true)
	if b.awaits("origin-returned") || !b.awaits("origin-later") || len(b.returned) != 1 {
		t.Fatalf("returned marks: %v", b.returned)
	}
}
