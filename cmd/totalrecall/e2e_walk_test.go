package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// The schema walk: every operation of the schema that takes an id, called by a key bound to one
// scope with the ids of another scope, found by introspection — so an operation added later is
// walked too without a line of this test changing.

type typeRef struct {
	Kind   string   `json:"kind"`
	Name   string   `json:"name"`
	OfType *typeRef `json:"ofType"`
}

// named is the named type at the bottom of t (under its lists and non-nulls).
func (t *typeRef) named() *typeRef {
	for t.OfType != nil {
		t = t.OfType
	}
	return t
}

// gql is the type as written in a query: [ID!]!, String, ...
func (t *typeRef) gql() string {
	switch t.Kind {
	case "NON_NULL":
		return t.OfType.gql() + "!"
	case "LIST":
		return "[" + t.OfType.gql() + "]"
	}
	return t.Name
}

type inputValue struct {
	Name string  `json:"name"`
	Type typeRef `json:"type"`
}

type field struct {
	Name string       `json:"name"`
	Args []inputValue `json:"args"`
	Type typeRef      `json:"type"`
}

type fullType struct {
	Kind          string       `json:"kind"`
	Name          string       `json:"name"`
	Fields        []field      `json:"fields"`
	InputFields   []inputValue `json:"inputFields"`
	EnumValues    []struct{ Name string }
	PossibleTypes []struct{ Name string }
}

type schemaInfo struct {
	query, mutation, subscription string
	types                         map[string]*fullType
}

const typeRefFragment = `fragment R on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } }`

func introspect(t *testing.T, s *server) *schemaInfo {
	t.Helper()
	var r struct {
		Schema struct {
			QueryType        struct{ Name string } `json:"queryType"`
			MutationType     struct{ Name string } `json:"mutationType"`
			SubscriptionType struct{ Name string } `json:"subscriptionType"`
			Types            []*fullType           `json:"types"`
		} `json:"__schema"`
	}
	s.ok(t, `query { __schema { queryType { name } mutationType { name } subscriptionType { name }
		types { kind name fields { name args { name type { ...R } } type { ...R } } inputFields { name type { ...R } }
		enumValues { name } possibleTypes { name } } } } `+typeRefFragment, nil, &r)
	si := &schemaInfo{query: r.Schema.QueryType.Name, mutation: r.Schema.MutationType.Name,
		subscription: r.Schema.SubscriptionType.Name, types: map[string]*fullType{}}
	for _, ty := range r.Schema.Types {
		si.types[ty.Name] = ty
	}
	return si
}

// selection selects every field of the named type that needs no argument, objects to depth.
func (si *schemaInfo) selection(name string, depth int) string {
	ty := si.types[name]
	if ty == nil {
		return ""
	}
	switch ty.Kind {
	case "SCALAR", "ENUM":
		return ""
	case "UNION", "INTERFACE":
		parts := []string{"__typename"}
		for _, pt := range ty.PossibleTypes {
			if sel := si.selection(pt.Name, depth); sel != "" {
				parts = append(parts, "... on "+pt.Name+" "+sel)
			}
		}
		return "{ " + strings.Join(parts, " ") + " }"
	}
	var parts []string
	for _, f := range ty.Fields {
		if strings.HasPrefix(f.Name, "__") || requiresArgs(f) {
			continue
		}
		inner := f.Type.named()
		switch si.types[inner.Name].Kind {
		case "SCALAR", "ENUM":
			parts = append(parts, f.Name)
		default:
			if depth > 1 {
				if sel := si.selection(inner.Name, depth-1); sel != "" {
					parts = append(parts, f.Name+" "+sel)
				}
			}
		}
	}
	if len(parts) == 0 {
		return "{ __typename }"
	}
	return "{ " + strings.Join(parts, " ") + " }"
}

func requiresArgs(f field) bool {
	for _, a := range f.Args {
		if a.Type.Kind == "NON_NULL" {
			return true
		}
	}
	return false
}

// takesID reports whether a value of type t carries an ID anywhere (inputs followed).
func (si *schemaInfo) takesID(t *typeRef, seen map[string]bool) bool {
	n := t.named()
	if n.Name == "ID" {
		return true
	}
	ty := si.types[n.Name]
	if ty == nil || ty.Kind != "INPUT_OBJECT" || seen[n.Name] {
		return false
	}
	seen[n.Name] = true
	for _, f := range ty.InputFields {
		if si.takesID(&f.Type, seen) {
			return true
		}
	}
	return false
}

// value makes a value of type t: every ID is id, except those named scopeId, which are own
// when own is set. Nullable values other than IDs (and inputs holding them) are left out (nil).
func (si *schemaInfo) value(name string, t *typeRef, id, own string) any {
	required := t.Kind == "NON_NULL"
	if required {
		t = t.OfType
	}
	if t.Kind == "LIST" {
		v := si.value(name, t.OfType, id, own)
		if v == nil {
			if !required {
				return nil
			}
			return []any{}
		}
		return []any{v}
	}
	ty := si.types[t.Name]
	switch {
	case t.Name == "ID":
		if name == "scopeId" && own != "" {
			return own
		}
		return id
	case !required && !si.takesID(t, map[string]bool{}):
		return nil
	case ty.Kind == "ENUM":
		return ty.EnumValues[0].Name
	case ty.Kind == "INPUT_OBJECT":
		obj := map[string]any{}
		for _, f := range ty.InputFields {
			if v := si.value(f.Name, &f.Type, id, own); v != nil {
				obj[f.Name] = v
			}
		}
		return obj
	}
	switch t.Name {
	case "String":
		return "x"
	case "Int":
		return 1
	case "Float":
		return 0.5
	case "Boolean":
		return false
	case "Time":
		return "2024-01-01T00:00:00Z"
	case "JSON":
		return map[string]any{}
	}
	return "x"
}

// operation is one root field, called with variables for each argument.
type operation struct {
	kind  string // query, mutation, subscription
	field field
	text  string
}

func (si *schemaInfo) operations() []operation {
	var out []operation
	for _, root := range []struct{ kind, typ string }{{"query", si.query}, {"mutation", si.mutation}, {"subscription", si.subscription}} {
		ty := si.types[root.typ]
		if ty == nil {
			continue
		}
		for _, f := range ty.Fields {
			ids := false
			for _, a := range f.Args {
				ids = ids || si.takesID(&a.Type, map[string]bool{})
			}
			if !ids {
				continue
			}
			var decl, args []string
			for i, a := range f.Args {
				decl = append(decl, fmt.Sprintf("$a%d: %s", i, a.Type.gql()))
				args = append(args, fmt.Sprintf("%s: $a%d", a.Name, i))
			}
			sel := si.selection(f.Type.named().Name, 3)
			text := fmt.Sprintf("%s walk(%s) { %s(%s) %s }", root.kind, strings.Join(decl, ", "), f.Name, strings.Join(args, ", "), sel)
			out = append(out, operation{kind: root.kind, field: f, text: text})
		}
	}
	return out
}

func (si *schemaInfo) vars(op operation, id, own string) map[string]any {
	vars := map[string]any{}
	for i, a := range op.field.Args {
		if v := si.value(a.Name, &a.Type, id, own); v != nil {
			vars[fmt.Sprintf("a%d", i)] = v
		}
	}
	return vars
}

func hasScopeArg(si *schemaInfo, op operation) bool {
	var walk func(name string, t *typeRef, seen map[string]bool) bool
	walk = func(name string, t *typeRef, seen map[string]bool) bool {
		n := t.named()
		if n.Name == "ID" {
			return name == "scopeId"
		}
		ty := si.types[n.Name]
		if ty == nil || ty.Kind != "INPUT_OBJECT" || seen[n.Name] {
			return false
		}
		seen[n.Name] = true
		for _, f := range ty.InputFields {
			if walk(f.Name, &f.Type, seen) {
				return true
			}
		}
		return false
	}
	for _, a := range op.field.Args {
		if walk(a.Name, &a.Type, map[string]bool{}) {
			return true
		}
	}
	return false
}

// idsIn collects the UUIDs of a response, each with where it was found (its field's name and
// the name of the object holding it), the "class" of the id.
func idsIn(v any, parent string, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		typ, _ := x["__typename"].(string)
		for k, e := range x {
			if s, ok := e.(string); ok && domain.ValidID(s) {
				if _, seen := out[s]; !seen {
					out[s] = parent + "/" + typ + "." + k
				}
				continue
			}
			idsIn(e, k, out)
		}
	case []any:
		for _, e := range x {
			idsIn(e, parent, out)
		}
	}
}

// sseSubscribe opens a subscription over SSE and gathers what it streams until ctx ends.
func sseSubscribe(ctx context.Context, s *server, query string, vars map[string]any) *bytes.Buffer {
	buf := &bytes.Buffer{}
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+s.addr+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if s.key != "" {
		req.Header.Set("Authorization", "Bearer "+s.key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			fmt.Fprintf(buf, "transport error: %v", err)
		}
		return buf
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		buf.WriteString(sc.Text())
		buf.WriteByte('\n')
	}
	return buf
}

// snapshot reads what the other scope holds, through a READ key of its own (so the instance's
// session is the one of that scope), without recording retrievals.
func snapshot(t *testing.T, reader *server, scope, instance string, memories []string) string {
	t.Helper()
	var r map[string]any
	reader.ok(t, `query($s: ID!, $i: ID!) {
		scope(id: $s) { name agentKernel { id content } worldKernel { id content } }
		memories(scopeId: $s, first: 1000, filter: {states: [ACTIVE, ARCHIVED]}) { totalCount nodes { id content tier kind salience claimed accessCount version state metadata tags sessionId } }
		knowledgePages(scopeId: $s, filter: {states: [ACTIVE, ARCHIVED]}) { nodes { id title content version state tags } }
		skills(scopeId: $s, filter: {states: [ACTIVE, ARCHIVED]}) { nodes { id title content version state } }
		workingStates(scopeId: $s) { nodes { id content version } }
		workingMemory(scopeId: $s) { context capacity items { memory { id } } }
		session(instanceId: $i) { id scopeId endedAt lastHeartbeatAt }
		episodes(scopeId: $s) { id memories { id } }
		agentSessions(scopeId: $s) { id }
		analysisRuns(scopeId: $s) { id status }
	}`, map[string]any{"s": scope, "i": instance}, &r)
	var assoc []any
	for _, id := range memories {
		var a map[string]any
		reader.ok(t, `query($m: ID!) { associations(memoryId: $m) { sourceId targetId type strength } history(memoryId: $m) { id } }`,
			map[string]any{"m": id}, &a)
		assoc = append(assoc, a)
	}
	r["associations"] = assoc
	raw, _ := json.Marshal(r)
	return string(raw)
}

const marker = "PLUMSECRET"

// callerTokens are fields whose values the caller chose (and the walk sends the other scope's
// ids in).
var callerTokens = map[string]bool{"sessionId": true, "requestId": true, "instanceId": true, "causationId": true}

// testSchemaWalk walks every operation that takes an id with the ids of a scope the key has no
// grant on: nothing of that scope comes back, nothing of it changes, nothing answers INTERNAL.
func testSchemaWalk(t *testing.T, admin *server, own, writer *server, ownScope string) {
	si := introspect(t, admin)
	// The other scope, with some of everything.
	other, _, _ := admin.createScope(t, "walk other "+runID)
	instance := "walk-mind-" + runID
	reqID := "walk-req-" + runID
	m1 := admin.store(t, map[string]any{"scopeId": other, "content": marker + " the plum is under the stairs", "requestId": reqID,
		"metadata": map[string]any{"secret": marker}, "tags": []string{"plum"}})
	m2 := admin.store(t, map[string]any{"scopeId": other, "content": marker + " plums ripen in August"})
	admin.ok(t, `mutation($in: AssociateInput!) { associateMemories(input: $in) { type } }`,
		map[string]any{"in": map[string]any{"sourceId": m1.ID, "targetId": m2.ID, "type": "CAUSAL", "strength": 0.7}}, nil)
	k := admin.saveKnowledge(t, map[string]any{"scopeId": other, "type": "FACT", "title": marker + " fact", "content": marker + " plums"})
	sk := admin.saveSkill(t, map[string]any{"scopeId": other, "type": "PROCEDURE", "title": marker + " skill", "content": marker, "steps": []string{marker}})
	admin.saveWorkingState(t, other, marker+" scratch")
	admin.ref(t, sk.ID, "DEPENDS_ON", k.ID)
	admin.ok(t, `mutation($in: DigestInput!) { runDigest(input: $in) { id } }`, map[string]any{"in": map[string]any{"scopeId": other, "propose": true}}, nil)
	sess := admin.sessionStart(t, instance, "claude", other)
	// The story and the journal: a chapter telling a memory stored in the session, and a file.
	admin.store(t, map[string]any{"scopeId": other, "content": marker + " told in a chapter", "sessionId": sess.SessionID})
	for deadline := time.Now().Add(30 * time.Second); ; {
		var p struct {
			PendingNarrative struct{ Memories []struct{ ID string } }
		}
		admin.ok(t, `query($s: ID!) { pendingNarrative(scopeId: $s) { memories { id } } }`, map[string]any{"s": other}, &p)
		if len(p.PendingNarrative.Memories) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the memory stored in the session never reached the pending log")
		}
		time.Sleep(50 * time.Millisecond)
	}
	admin.ok(t, `mutation($s: ID!) { consolidateStory(scopeId: $s) { id } }`, map[string]any{"s": other}, nil)
	var story struct{ Story struct{ Markdown string } }
	admin.ok(t, `query($s: ID!) { story(scopeId: $s) { markdown } }`, map[string]any{"s": other}, &story)
	if !strings.Contains(story.Story.Markdown, marker+" told in a chapter") {
		t.Fatalf("the other scope's story does not tell its memory:\n%s", story.Story.Markdown)
	}
	admin.ok(t, `mutation($s: ID!, $f: [JournalFileInput!]!) { importJournal(scopeId: $s, files: $f) { pages } }`,
		map[string]any{"s": other, "f": []map[string]any{{"path": "MEMORY.md", "content": "# " + marker + "\n\n" + marker + " notes\n"}}}, nil)
	admin.ok(t, `mutation($s: ID!) { updateContext(scopeId: $s, text: "plum PLUMSECRET stairs", capacity: 3) { capacity } }`, map[string]any{"s": other}, nil)
	admin.importData(t, other, "LOCOMO", strings.ReplaceAll(locomoConversation, "Caroline", marker), "walk-conv-"+runID)
	var def struct{ DefineEpisodes struct{ ID string } }
	admin.ok(t, `mutation($s: ID!) { defineEpisodes(scopeId: $s, input: {name: "per thread", strategy: THREAD}) { id } }`, map[string]any{"s": other}, &def)
	admin.ok(t, `mutation($s: ID!) { chunkEpisodes(scopeId: $s, definition: "per thread") { episodes } }`, map[string]any{"s": other}, nil)
	admin.ok(t, `mutation($s: ID!, $d: ID) { analyzeEpisodes(scopeId: $s, type: "persons", definitionId: $d) { id } }`,
		map[string]any{"s": other, "d": def.DefineEpisodes.ID}, nil)
	admin.importData(t, other, "AGENT_SESSIONS", agentTranscript, "")
	var adv struct{ TotalRecallAdvisory string }
	admin.ok(t, `mutation($m: [ID!]!) { totalRecallAdvisory(sourceMemoryIds: $m) }`, map[string]any{"m": []string{m1.ID}}, &adv)

	// Every id of the other scope its ADMIN can see, by where it was found; one of each kind is
	// tried in every id position.
	found := map[string]string{}
	for _, op := range si.operations() {
		if op.kind != "query" || !hasScopeArg(si, op) {
			continue
		}
		vars := si.vars(op, other, other)
		r, err := admin.try(op.text, vars)
		if err != nil {
			t.Fatal(err)
		}
		var data any
		_ = json.Unmarshal(r.Data, &data)
		idsIn(data, op.field.Name, found)
	}
	for _, id := range []string{other, m1.ID, m2.ID, k.ID, sk.ID} {
		found[id] = "given/" + id
	}
	classes := map[string]string{}
	for id, class := range found {
		if id == ownScope {
			t.Fatalf("the own scope's id turned up in the other scope's data at %s", class)
		}
		if old, ok := classes[class]; !ok || id < old {
			classes[class] = id
		}
	}
	candidates := []string{instance, reqID, adv.TotalRecallAdvisory}
	for _, id := range classes {
		candidates = append(candidates, id)
	}
	sort.Strings(candidates)
	var memIDs []string
	for id, class := range found {
		if strings.Contains(class, "Memory.id") {
			memIDs = append(memIDs, id)
		}
	}
	sort.Strings(memIDs)
	t.Logf("the other scope: %d ids seen, %d kinds tried in every id position", len(found), len(candidates))
	// The consumers settle what the set-up wrote (salience, episodes) before the walk: the
	// Synapse connects stored memories about a second after the stores pause, once the index has
	// written them (about a second more), so the scope counts as settled when nothing changed
	// for settleQuiet, not between two looks.
	const settleQuiet = 4 * time.Second
	reader := admin.as(createKey(t, admin, "READ", other, "the other scope's reader"))
	before := snapshot(t, reader, other, instance, memIDs)
	for deadline, still := time.Now().Add(2*time.Minute), time.Now(); time.Since(still) < settleQuiet; {
		time.Sleep(300 * time.Millisecond)
		again := snapshot(t, reader, other, instance, memIDs)
		if again == before {
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("the other scope kept changing by itself: %s", snapshotDiff(before, again))
		}
		before, still = again, time.Now()
	}

	// A leak is the other scope's content, or one of its ids as the value of a field that is not
	// a caller's own token (a sessionId or requestId the walk sent earlier may come back with
	// what it wrote in its own scope).
	leaks := func(what, body, sent string) {
		t.Helper()
		if strings.Contains(body, marker) {
			t.Fatalf("%s: the other scope's content came back:\n%s", what, body)
		}
		var walk func(key string, v any)
		walk = func(key string, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					walk(k, e)
				}
			case []any:
				for _, e := range x {
					walk(key, e)
				}
			case string:
				if class, ok := found[x]; ok && x != sent && !callerTokens[key] {
					t.Fatalf("%s: the other scope's id %s (%s) came back as %s:\n%s", what, x, class, key, body)
				}
			}
		}
		var data any
		if err := json.Unmarshal([]byte(body), &data); err == nil {
			walk("", data)
			return
		}
		// A stream: each data line is a response.
		for _, line := range strings.Split(body, "\n") {
			if rest, ok := strings.CutPrefix(line, "data:"); ok && json.Unmarshal([]byte(rest), &data) == nil {
				walk("", data)
			}
		}
	}
	type call struct {
		op   operation
		what string
		sent string
		vars map[string]any
	}
	// First every id position foreign; then, where an operation names a scope, its own scope
	// with every other id foreign (what it made of its own under a foreign name comes after).
	var calls, subscriptions []call
	for _, own := range []string{"", ownScope} {
		for _, op := range si.operations() {
			if own != "" && !hasScopeArg(si, op) {
				continue
			}
			for _, id := range candidates {
				c := call{op: op, sent: id, vars: si.vars(op, id, own),
					what: fmt.Sprintf("%s %s (id %s %s, own scope %v)", op.kind, op.field.Name, found[id], id, own != "")}
				if op.kind == "subscription" {
					subscriptions = append(subscriptions, c)
				} else {
					calls = append(calls, c)
				}
			}
		}
	}
	// Every write commits events: the other scope's stream stays silent through the walk.
	watch, watched := wsSubscribe(t, admin, admin.key, `subscription($s: ID!) { memoryEvents(scopeId: $s) { type memoryId } }`,
		map[string]any{"s": other})
	defer watch.Close()
	time.Sleep(200 * time.Millisecond) // let the subscription register
	refused := map[string]int{}
	for _, c := range calls {
		r, err := writer.try(c.op.text, c.vars)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		raw, _ := json.Marshal(r)
		for _, e := range r.Errors {
			code, _ := e.Extensions["code"].(string)
			if code == domain.EINTERNAL || code == "" {
				t.Fatalf("%s answered %q: %s", c.what, code, raw)
			}
			refused[code]++
		}
		leaks(c.what, string(r.Data), c.sent)
		if strings.Contains(string(raw), marker) {
			t.Fatalf("%s: the other scope's content came back in an error: %s", c.what, raw)
		}
	}
	t.Logf("%d calls of %d operations; refusals by code: %v", len(calls)+len(subscriptions), len(si.operations()), refused)
	if refused[domain.EFORBIDDEN] == 0 || refused[domain.ENOTFOUND] == 0 {
		t.Fatalf("the walk refused nothing as FORBIDDEN or NOT_FOUND (%v): it did not reach the checks", refused)
	}
	time.Sleep(300 * time.Millisecond)
	for len(watched) > 0 {
		m := <-watched
		raw, _ := json.Marshal(m)
		t.Fatalf("the walk wrote in the other scope: %s", raw)
	}
	if after := snapshot(t, reader, other, instance, memIDs); after != before {
		t.Fatalf("the walk changed the other scope: %s", snapshotDiff(before, after))
	}

	// Subscriptions: open while the other scope lives, nothing of it may reach them.
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	bufs := make([]*bytes.Buffer, len(subscriptions))
	for i, c := range subscriptions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bufs[i] = sseSubscribe(ctx, writer, c.op.text, c.vars)
		}()
	}
	time.Sleep(500 * time.Millisecond)
	admin.store(t, map[string]any{"scopeId": other, "content": marker + " live while subscribed"})
	admin.boolMutation(t, `mutation($i: ID!) { sessionEnd(instanceId: $i, reason: EXPLICIT) }`, map[string]any{"i": instance})
	admin.sessionStart(t, instance, "claude", other)
	admin.ok(t, `mutation($m: [ID!]!) { totalRecallAdvisory(sourceMemoryIds: $m) }`, map[string]any{"m": []string{m1.ID}}, nil)
	time.Sleep(1500 * time.Millisecond)
	cancel()
	wg.Wait()
	for i, c := range subscriptions {
		body := bufs[i].String()
		leaks(c.what, body, c.sent)
		if strings.Contains(body, `"code":"INTERNAL"`) {
			t.Fatalf("%s answered INTERNAL: %s", c.what, body)
		}
	}
}

// snapshotDiff names the parts of two snapshots that differ, with both versions.
func snapshotDiff(a, b string) string {
	var x, y map[string]json.RawMessage
	_ = json.Unmarshal([]byte(a), &x)
	_ = json.Unmarshal([]byte(b), &y)
	var out []string
	for k := range x {
		if string(x[k]) != string(y[k]) {
			out = append(out, fmt.Sprintf("%s:\n  before %s\n  after  %s", k, x[k], y[k]))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}
