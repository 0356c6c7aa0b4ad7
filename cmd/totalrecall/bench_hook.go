package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/cli"
	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
)

// benchHook measures the user-prompt-submit hook as a coding agent runs it — a process started
// per prompt, talking to the running server — from process start to its answer, at a corpus of
// --corpus memories, beside the resonate query alone (the same query the hook sends, over HTTP
// to the same server). Hook runs and queries alternate, so load on the machine weighs on both.
func benchHook(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench hook", flag.ContinueOnError)
	data := fs.String("data", "", "keep the corpus in this folder and reuse it on later runs (default: a temp folder, removed)")
	corpus := fs.Int("corpus", 100000, "memories in the scope")
	runs := fs.Int("runs", 300, "hook runs (and as many resonate queries) for the latency figures")
	slow := fs.Int("slow-runs", 30, "hook runs without the fast path (the engine initialised first), for comparison (0: none)")
	limit := fs.String("memory-limit", formatSize(defaultMemoryLimit), "the server's --memory-limit")
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
	const scopeName = "bench-hook"
	scopeID, have, err := hookCorpus(dir, scopeName, *corpus, stdout)
	if err != nil {
		return err
	}
	// The hook talks to serve as a user runs it: its own process, its default memory budget, its
	// read cache warmed at start.
	logPath := filepath.Join(dir, "server.log")
	_ = os.Remove(logPath)
	srv, err := startServeProc(dir, *limit, logPath)
	if err != nil {
		return err
	}
	defer srv.stop()
	for start := time.Now(); warmTook(logPath) == ""; time.Sleep(100 * time.Millisecond) {
		if err := srv.alive(); err != nil {
			return err
		}
		if time.Since(start) > 10*time.Minute {
			return errors.New("serve did not warm its read cache within 10 minutes")
		}
	}
	// The consumers catch up with what the set-up left them, then the measuring starts.
	waitProcIdle(srv.cmd.Process.Pid, time.Minute)
	fmt.Fprintf(stdout, "serve (--memory-limit %s) ready in %s, read cache warm in %s; its log: %s\n", *limit, srv.ready.Round(time.Millisecond), warmTook(logPath), logPath)
	url := "http://" + srv.addr
	c := &benchClient{url: url + "/query", http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	sc := struct{ ID string }{scopeID}
	const instance = "bench-hook-session"
	if err := c.do(`mutation($i: ID!, $s: ID!) { sessionStart(instanceId: $i, mindType: "claude-code", scopeId: $s) { welcome } }`,
		map[string]any{"i": instance, "s": sc.ID}, nil); err != nil {
		return err
	}
	empty := 0
	words := vocabulary()
	rng := rand.New(rand.NewPCG(7, 8))
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
	// Both paths warmed.
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
	srvMem := srv.rss.Peak()
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
	fmt.Fprintf(stdout, "%-62s %9.1fMiB   %6.1fMiB without the fast path\n", "hook process, max resident memory",
		float64(rssMax)/1024, float64(slowRSS)/1024)
	fmt.Fprintf(stdout, "%-62s %9.1fMiB   %6.1fMiB its mapped index and table files (page cache)\n", "serve, peak anonymous resident memory (RssAnon)",
		float64(srvMem.Anon)/(1<<20), float64(srvMem.File)/(1<<20))
	return nil
}

// hookCorpus makes sure the scope scopeName of the store in dir holds corpus memories (a corpus
// from an earlier run is reused), lets the consumers connect them, and closes the store again.
func hookCorpus(dir, scopeName string, corpus int, stdout io.Writer) (scopeID string, have int, err error) {
	var sf storeFlags
	sf.store = "file://" + dir
	ctx := context.Background()
	st, idx, cx, err := sf.open(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return "", 0, err
	}
	// Closed in this order, and the folders' locks given back: serve opens them next.
	defer sf.unlockData()
	defer st.Close()
	defer idx.Close()
	defer cx.Close()
	sc, _, err := cx.ResolveScope(ctx, scopeName)
	if err != nil {
		return "", 0, err
	}
	words := vocabulary()
	rng := rand.New(rand.NewPCG(5, 6))
	page, err := cx.Memories(ctx, sc.ID, domain.MemoryFilter{}, domain.Page{First: 1})
	if err != nil {
		return "", 0, err
	}
	have = page.TotalCount
	if have < corpus {
		start := time.Now()
		for have < corpus {
			ins := make([]hippocampus.StoreInput, min(1000, corpus-have))
			for i := range ins {
				imp := rng.Float64()
				ins[i] = hippocampus.StoreInput{ScopeID: sc.ID, Content: sentence(rng, words), Importance: &imp}
			}
			if _, err := cx.StoreMemories(ctx, ins, cortex.Meta{}); err != nil {
				return "", 0, err
			}
			have += len(ins)
		}
		waitConsumers(cx)
		fmt.Fprintf(stdout, "set-up: %d memories stored in %s\n", have, time.Since(start).Round(time.Second))
	}
	return sc.ID, have, nil
}
