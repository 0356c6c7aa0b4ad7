package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestReadmeTour runs the five-minute tour of README.md, its GraphQL blocks read from the file,
// against a fresh server: create a scope, store, associate, search with associations, subscribe
// to notifications and ask for a total recall. The ids a step returns go where the next names
// them (SCOPE_ID, BIRTHDAY_ID, CAKE_ID), as a reader pastes them.
func TestReadmeTour(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, tour, ok := strings.Cut(string(raw), "\n## A five-minute tour\n")
	if !ok {
		t.Fatal("README.md has no section \"## A five-minute tour\"")
	}
	tour, _, _ = strings.Cut(tour, "\n## ")
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```graphql\n(.*?)\n```").FindAllStringSubmatch(tour, -1) {
		blocks = append(blocks, m[1])
	}
	if len(blocks) != 6 {
		t.Fatalf("the tour has %d GraphQL blocks; this test runs the six steps it knows (update both together)", len(blocks))
	}
	s := startServer(t, storeFlags{store: "file://" + t.TempDir()})
	defer s.stop(t)
	ids := map[string]string{}
	fill := func(block string) string {
		for k, v := range ids {
			block = strings.ReplaceAll(block, k, v)
		}
		if left := regexp.MustCompile(`\b[A-Z]+_ID\b`).FindString(block); left != "" {
			t.Fatalf("the tour names %s before a step returns it:\n%s", left, block)
		}
		return block
	}
	run := func(block string, out any) {
		t.Helper()
		s.ok(t, fill(block), nil, out)
	}

	var created struct {
		CreateScope struct {
			ID          string
			AgentKernel struct{ ID string }
			WorldKernel struct{ ID string }
		}
	}
	run(blocks[0], &created)
	if created.CreateScope.ID == "" || created.CreateScope.AgentKernel.ID == "" || created.CreateScope.WorldKernel.ID == "" {
		t.Fatalf("step 1: %+v", created)
	}
	ids["SCOPE_ID"] = created.CreateScope.ID

	var stored struct{ Birthday, Cake memory }
	run(blocks[1], &stored)
	// SEMANTIC goes to LONG_TERM, the rest to ACTIVE_CONTEXT; salience starts at 0.25 + 0.30 × importance.
	if b, c := stored.Birthday, stored.Cake; b.Tier != "LONG_TERM" || !sameScore(b.Salience, 0.49) ||
		c.Tier != "ACTIVE_CONTEXT" || !sameScore(c.Salience, 0.25) {
		t.Fatalf("step 2: %+v", stored)
	}
	ids["BIRTHDAY_ID"], ids["CAKE_ID"] = stored.Birthday.ID, stored.Cake.ID

	var assoc struct {
		AssociateMemories struct {
			Type     string
			Strength float64
		}
	}
	run(blocks[2], &assoc)
	if assoc.AssociateMemories.Type != "THEMATIC" || assoc.AssociateMemories.Strength != 0.8 {
		t.Fatalf("step 3: %+v", assoc)
	}

	var found struct {
		SearchMemory []struct {
			Score  float64
			Reason string
			Via    *struct {
				Type     string
				Strength float64
			}
			Memory struct{ Content string }
		}
	}
	run(blocks[3], &found)
	hits := found.SearchMemory
	if len(hits) != 2 || hits[0].Reason != "TEXT" || hits[0].Memory.Content != "Ada's birthday is on March 3" ||
		hits[1].Reason != "ASSOCIATION" || hits[1].Memory.Content != "Ada loves lemon cake" || hits[1].Via == nil ||
		hits[1].Via.Type != "THEMATIC" || !nearly(hits[1].Score, hits[0].Score*0.8*0.5) {
		t.Fatalf("step 4: %+v", hits)
	}

	conn, notes := subscribeWS(t, s.addr, fill(blocks[4]), nil)
	defer conn.Close()
	time.Sleep(300 * time.Millisecond) // let the subscription register before anything is pushed
	var advised struct{ TotalRecallAdvisory string }
	run(blocks[5], &advised)
	if advised.TotalRecallAdvisory == "" {
		t.Fatal("step 6 returned no origin request id")
	}
	select {
	case p := <-notes:
		var n struct {
			Data struct {
				Notifications struct {
					Typename     string `json:"__typename"`
					DepthReached int
					Recalled     []struct {
						Depth      int
						Activation float64
						Memory     struct{ Content string }
					}
				}
			}
		}
		b, _ := json.Marshal(p)
		if err := json.Unmarshal(b, &n); err != nil {
			t.Fatal(err)
		}
		got := n.Data.Notifications
		if got.Typename != "TotalRecallNotification" || got.DepthReached != 1 || len(got.Recalled) != 1 ||
			got.Recalled[0].Memory.Content != "Ada loves lemon cake" || got.Recalled[0].Depth != 1 || got.Recalled[0].Activation != 0.8 {
			t.Fatalf("step 5 received %s", b)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("step 5 received no notification within 15s of step 6")
	}
}
