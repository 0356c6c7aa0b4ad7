package cortex_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/graph/storetest"
)

func TestResolveScope(t *testing.T) {
	ctx := context.Background()
	cx, _ := openTestStack(t).cortex(cortex.MnemonicConfig{})
	// A new name, resolved by eight callers at once, makes one scope with its kernels.
	var wg sync.WaitGroup
	ids := make([]string, 8)
	created := make([]bool, 8)
	for i := range ids {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sc, c, err := cx.ResolveScope(ctx, "  project atlas  ")
			if err != nil {
				t.Error(err)
				return
			}
			ids[i], created[i] = sc.ID, c
		}(i)
	}
	wg.Wait()
	all, err := cx.Scopes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Name != "project atlas" || all[0].AgentKernel == nil || all[0].WorldKernel == nil {
		t.Fatalf("scopes after eight resolutions of one name: %+v", all)
	}
	for i, id := range ids {
		if id != all[0].ID {
			t.Fatalf("resolution %d got scope %s, want %s", i, id, all[0].ID)
		}
	}
	// By id and by name, nothing created.
	for _, ref := range []string{all[0].ID, "project atlas"} {
		sc, c, err := cx.ResolveScope(ctx, ref)
		if err != nil || c || sc.ID != all[0].ID {
			t.Fatalf("ResolveScope(%q) = %+v, %v, %v", ref, sc, c, err)
		}
	}
	// Of two scopes with one name, the older.
	older, err := cx.CreateScope(ctx, "twin", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	if _, err := cx.CreateScope(ctx, "twin", cortex.Meta{}); err != nil {
		t.Fatal(err)
	}
	if sc, _, err := cx.ResolveScope(ctx, "twin"); err != nil || sc.ID != older.ID {
		t.Fatalf("twin resolved to %+v, %v; want the older %s", sc, err, older.ID)
	}
	// Nasty names round-trip; bad refs are refused with the field.
	for _, name := range storetest.Nasty {
		if err := hippocampus.CheckText("scope", name); err != nil || domain.ValidID(name) || len(name) == 0 {
			continue
		}
		sc, c, err := cx.ResolveScope(ctx, name)
		if err != nil {
			t.Fatalf("ResolveScope(%q): %v", name, err)
		}
		if again, c2, err := cx.ResolveScope(ctx, name); err != nil || !c || c2 || again.ID != sc.ID {
			t.Fatalf("ResolveScope(%q) twice: %v %v %v", name, c, c2, err)
		}
	}
	for ref, code := range map[string]string{"": domain.EINVALID, " \t": domain.EINVALID, domain.NewID(): domain.ENOTFOUND,
		"bad\x00name": domain.EINVALID, string(make([]byte, domain.MaxNameBytes+1)): domain.EINVALID} {
		if _, _, err := cx.ResolveScope(ctx, ref); domain.ErrorCode(err) != code {
			t.Errorf("ResolveScope(%q) = %v, want %s", ref, err, code)
		}
	}
}

func TestTotalRecallAndWait(t *testing.T) {
	ctx := context.Background()
	cx, _ := openTestStack(t).cortex(cortex.MnemonicConfig{})
	sc, err := cx.CreateScope(ctx, "recall", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	store := func(content string) *domain.Memory {
		m, err := cx.StoreMemory(ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: sc.ID, Content: content}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b, c := store("the deploy runbook"), store("the deploy window is Tuesday"), store("Tuesday is after the finance close")
	for _, pair := range [][2]string{{a.ID, b.ID}, {b.ID, c.ID}} {
		if _, err := cx.AssociateMemories(ctx, cortex.AssociateInput{SourceID: pair[0], TargetID: pair[1], Type: domain.AssocCausal, Strength: 0.9}); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := cx.TotalRecallAndWait(ctx, cortex.TotalRecallInput{SourceMemoryIDs: []string{a.ID}, MaxDepth: 2, InstanceID: "inst-w"}, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Notification == nil || rec.Declined != "" || rec.Notification.Context.CausationID == "" {
		t.Fatalf("recollection: %+v", rec)
	}
	rs, err := cx.RecalledMemories(ctx, rec.Notification)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.Memory.ID)
	}
	want := []string{b.ID, c.ID}
	sort.Strings(got)
	sort.Strings(want)
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("recalled %v, want %v", got, want)
	}
	// Returned to the caller, it left the instance's queue.
	if q, err := cx.QueuedNotifications(ctx, "inst-w", sc.ID); err != nil || len(q) != 0 {
		t.Fatalf("queue after a returned recollection: %d %v", len(q), err)
	}
	// Without waiting: the origin request id alone; the recollection is queued.
	rec, err = cx.TotalRecallAndWait(ctx, cortex.TotalRecallInput{SourceMemoryIDs: []string{a.ID}, InstanceID: "inst-w"}, 0)
	if err != nil || rec.Notification != nil || rec.OriginRequestID == "" {
		t.Fatalf("no wait: %+v %v", rec, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		q, err := cx.TakeNotifications(ctx, "inst-w", sc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(q) == 1 && q[0].Payload["originRequestId"] == rec.OriginRequestID {
			break
		}
		if len(q) != 0 || time.Now().After(deadline) {
			t.Fatalf("queued: %+v", q)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, w := range []time.Duration{-time.Second, cortex.MaxRecallWait + time.Second} {
		if _, err := cx.TotalRecallAndWait(ctx, cortex.TotalRecallInput{SourceMemoryIDs: []string{a.ID}}, w); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("wait %s: %v", w, err)
		}
	}
}

func TestKeepAlive(t *testing.T) {
	ctx := context.Background()
	stk := openTestStack(t)
	cx, closeIt := stk.cortex(cortex.MnemonicConfig{})
	sc, err := cx.CreateScope(ctx, "beats", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := cx.KeepAlive(ctx, "inst-k", domain.ModeTask); err != nil || ok {
		t.Fatalf("no session yet: %v %v", ok, err)
	}
	start, err := cx.SessionStart(ctx, cortex.SessionStartInput{InstanceID: "inst-k", MindType: "claude-code", ScopeID: sc.ID})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := cx.KeepAlive(ctx, "inst-k", domain.ModeTask); err != nil || !ok {
		t.Fatalf("active session: %v %v", ok, err)
	}
	// The beat lands: the mode changes and the heartbeat moves on.
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := cx.ActiveSession(ctx, "inst-k")
		if err != nil {
			t.Fatal(err)
		}
		if s.Mode == domain.ModeTask && s.Heartbeats >= 1 && !s.LastHeartbeatAt.Before(start.Session.LastHeartbeatAt) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the beat did not land: %+v", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Beats pending when the Cortex closes are written before it closes.
	for i := 0; i < 5; i++ {
		if _, err := cx.KeepAlive(ctx, "inst-k", ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cx.KeepAlive(ctx, "inst-k", domain.ModeIdle); err != nil {
		t.Fatal(err)
	}
	closeIt()
	cx2, _ := stk.cortex(cortex.MnemonicConfig{})
	s, err := cx2.ActiveSession(ctx, "inst-k")
	if err != nil || s.Mode != domain.ModeIdle {
		t.Fatalf("after close and reopen: %+v %v; want mode IDLE written", s, err)
	}
	for _, tc := range []struct {
		inst string
		mode domain.SessionMode
	}{{"", ""}, {"inst-k", "SLEEPING"}, {"bad\x00", ""}} {
		if _, err := cx2.KeepAlive(ctx, tc.inst, tc.mode); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("KeepAlive(%q, %q) = %v", tc.inst, tc.mode, err)
		}
	}
}
