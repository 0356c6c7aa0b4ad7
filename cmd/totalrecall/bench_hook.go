package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/totalrecall/totalrecall/cli"
	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/resolvers"
)

// benchHook measures the user-prompt-submit hook as a coding agent runs it — a process started
// per prompt, talking to the running server — from process start to its answer, at a corpus of
// --corpus memories, beside the resonate query alone (the same query the hook sends, over HTTP
// to the same server). Hook runs and queries alternate, so load on the machine weighs on both.
func benchHook(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench hook", flag.ContinueOnError)
	var sf storeFlags
	data := fs.String("data", "", "keep the corpus in this folder and reuse it on later runs (default: a temp folder, removed)")
	corpus := fs.Int("corpus", 100000, "memories in the scope")
	runs := fs.Int("runs", 300, "hook runs (and as many resonate queries) for the latency figures")
	slow := fs.Int("slow-runs", 30, "hook runs without the fast path (the engine initialised first), for comparison (0: none)")
	pace := fs.Duration("pace", 50*time.Millisecond, "pause between runs (a mind's turns are seconds apart)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	dir := *data
	if dir == "" {
		tmp, err := os.MkdirTemp("", "totalrecall-bench-hook-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	sf.store = "file://" + dir
	ctx := context.Background()
	st, idx, cx, err := sf.open(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer st.Close()
	defer idx.Close()
	defer cx.Close()
	const scopeName = "bench-hook"
	sc, _, err := cx.ResolveScope(ctx, scopeName)
	if err != nil {
		return err
	}
	words := vocabulary()
	rng := rand.New(rand.NewPCG(5, 6))
	page, err := cx.Memories(ctx, sc.ID, domain.MemoryFilter{}, domain.Page{First: 1})
	if err != nil {
		return err
	}
	have := page.TotalCount
	if have < *corpus {
		start := time.Now()
		for have < *corpus {
			ins := make([]hippocampus.StoreInput, min(1000, *corpus-have))
			for i := range ins {
				imp := rng.Float64()
				ins[i] = hippocampus.StoreInput{ScopeID: sc.ID, Content: sentence(rng, words), Importance: &imp}
			}
			if _, err := cx.StoreMemories(ctx, ins, cortex.Meta{}); err != nil {
				return err
			}
			have += len(ins)
		}
		waitConsumers(cx)
		fmt.Fprintf(stdout, "set-up: %d memories stored in %s\n", have, time.Since(start).Round(time.Second))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: routes(cx, func() bool { return true }, resolvers.Options{})}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String()
	c := &benchClient{url: url + "/query", http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	const instance = "bench-hook-session"
	if _, err := cx.SessionStart(ctx, cortex.SessionStartInput{InstanceID: instance, MindType: "claude-code", ScopeID: sc.ID}); err != nil {
		return err
	}
	empty := 0
	message := func() string {
		ws := strings.Fields(sentence(rng, words))
		return strings.Join(ws[:4+rng.IntN(5)], " ")
	}
	hook := func(prompt string, env ...string) (time.Duration, int64, error) {
		in, _ := json.Marshal(map[string]any{"session_id": instance, "transcript_path": "/nonexistent/transcript.jsonl", "cwd": "/home/dev/" + scopeName,
			"permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": prompt})
		cmd := exec.Command(bin, "hook", "user-prompt-submit", "--server", url)
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdin = bytes.NewReader(in)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			return 0, 0, fmt.Errorf("hook: %v: %s", err, errb.String())
		}
		el := time.Since(t0)
		if errb.Len() > 0 || !strings.Contains(out.String(), `"additionalContext":"[totalrecall] Memories this prompt brings back`) {
			if strings.Contains(errb.String(), "past its budget") {
				empty++ // answered nothing, as a hook past its budget does: counted at its latency
				return el, 0, nil
			}
			return 0, 0, fmt.Errorf("hook answered %q (log %q)", out.String(), errb.String())
		}
		return el, 0, nil
	}
	// The resident memory of a hook process: a child's own rusage counts the memory of the
	// process that forked it, so it is read by /usr/bin/time, a small parent.
	hookRSS := func(env ...string) int64 {
		in, _ := json.Marshal(map[string]any{"session_id": instance, "cwd": "/home/dev/" + scopeName, "hook_event_name": "UserPromptSubmit", "prompt": message()})
		cmd := exec.Command("/usr/bin/time", "-f", "%M", bin, "hook", "user-prompt-submit", "--server", url)
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdin = bytes.NewReader(in)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if cmd.Run() != nil {
			return 0
		}
		lines := strings.Fields(errb.String())
		if len(lines) == 0 {
			return 0
		}
		kib, _ := strconv.ParseInt(lines[len(lines)-1], 10, 64)
		return kib
	}
	resonate := func(m string) (time.Duration, error) {
		t0 := time.Now()
		err := c.do(`query($s: ID!, $m: String!, $n: Int) { resonate(scopeId: $s, message: $m, maxResults: $n) { score memory { id content tier } } }`,
			map[string]any{"s": sc.ID, "m": m, "n": 3}, nil)
		return time.Since(t0), err
	}
	// The read cache filled as serve fills it at start, then both paths warmed.
	if ws, err := st.Warm(ctx); err == nil {
		fmt.Fprintf(stdout, "read cache warm: %d memories, %d associations in %s\n", ws.Memories, ws.Edges, ws.Duration.Round(time.Millisecond))
	}
	for i := 0; i < 20; i++ {
		if _, _, err := hook(message()); err != nil {
			return err
		}
		if _, err := resonate(message()); err != nil {
			return err
		}
	}
	var hlat, rlat, slat []time.Duration
	empty = 0
	for i := 0; i < *runs; i++ {
		el, _, err := hook(message())
		if err != nil {
			return err
		}
		hlat = append(hlat, el)
		time.Sleep(*pace)
		rl, err := resonate(message())
		if err != nil {
			return err
		}
		rlat = append(rlat, rl)
		time.Sleep(*pace)
	}
	measuredEmpty := empty
	for i := 0; i < *slow; i++ {
		el, _, err := hook(message(), cli.EnvNoFastPath+"=1")
		if err != nil {
			return err
		}
		slat = append(slat, el)
		time.Sleep(*pace)
	}
	rssMax, slowRSS := hookRSS(), hookRSS(cli.EnvNoFastPath+"=1")
	var self syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	fmt.Fprintf(stdout, "totalrecall bench hook — %d memories in one scope, %d cores, %d hook runs alternated with %d resonate queries\n\n",
		have, runtimeCPUs(), *runs, *runs)
	fmt.Fprintf(stdout, "%-62s %12s   %s\n", "figure", "totalrecall", "baseline (same run, same server)")
	for _, p := range []int{50, 90, 99} {
		fmt.Fprintf(stdout, "%-62s %10.1fms   %7.1fms resonate query alone over HTTP\n",
			fmt.Sprintf("user-prompt-submit hook, process start to answer, p%d", p), ms(pct(hlat, p)), ms(pct(rlat, p)))
	}
	fmt.Fprintf(stdout, "%-62s %12d   of %d runs (the hook's budget: 2s)\n", "hook runs past their budget, answering nothing", measuredEmpty, *runs)
	if len(slat) > 0 {
		for _, p := range []int{50, 99} {
			fmt.Fprintf(stdout, "%-62s %10.1fms   %7.1fms the hook with its fast path (above)\n",
				fmt.Sprintf("the same hook, the engine initialised first, p%d (%d runs)", p, len(slat)), ms(pct(slat, p)), ms(pct(hlat, p)))
		}
	}
	fmt.Fprintf(stdout, "%-62s %9.1fMiB   %6.1fMiB without the fast path; the server (this process): %.0f MiB\n", "hook process, max resident memory",
		float64(rssMax)/1024, float64(slowRSS)/1024, float64(self.Maxrss)/1024)
	return nil
}
