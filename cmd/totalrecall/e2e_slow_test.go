package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// testSlowSubscriberNeverBlocksWrites opens a subscription whose client never reads, then
// writes far more events than any buffer on the way holds: every write still succeeds.
func testSlowSubscriberNeverBlocksWrites(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "slow subscriber")
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, ReadBufferSize: 512}
	conn, _, err := d.Dial("ws://"+s.addr+"/query", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.WriteJSON(map[string]any{"type": "connection_init"}); err != nil {
		t.Fatal(err)
	}
	var ack map[string]any
	if err := conn.ReadJSON(&ack); err != nil {
		t.Fatal(err)
	}
	if err := conn.WriteJSON(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{
		"query": `subscription($s: ID!) { memoryEvents(scopeId: $s) { type memoryId payload } }`, "variables": map[string]any{"s": scope}}}); err != nil {
		t.Fatal(err)
	}
	// The client now never reads. Large events fill every buffer between server and client.
	big := fmt.Sprintf("%0*d", 60000, 0)
	start := time.Now()
	ins := make([]map[string]any, 50)
	for round := 0; round < 6; round++ {
		for i := range ins {
			ins[i] = map[string]any{"scopeId": scope, "content": fmt.Sprintf("slow %d %d %s", round, i, big)}
		}
		var out struct{ StoreMemories []struct{ ID string } }
		s.ok(t, `mutation($in: [StoreMemoryInput!]!) { storeMemories(inputs: $in) { id } }`, map[string]any{"in": ins}, &out)
		if len(out.StoreMemories) != len(ins) {
			t.Fatalf("round %d stored %d", round, len(out.StoreMemories))
		}
	}
	t.Logf("300 memories of 60 KB written past a stalled subscriber in %v", time.Since(start))
}
