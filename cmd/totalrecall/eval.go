package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/domain/ledger"
	"github.com/totalrecall/totalrecall/domain/recall"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/ingest"
	"github.com/totalrecall/totalrecall/search"
)

// evalKs are the cut-offs of evidence recall.
var evalKs = []int{1, 5, 10, 20}

// locomoCategories names LoCoMo's answerable question categories.
var locomoCategories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

// recallSums accumulates evidence recall@k over questions.
type recallSums struct {
	n   int
	sum []float64
}

func (r *recallSums) add(ranked []string, evidence []string) {
	if r.sum == nil {
		r.sum = make([]float64, len(evalKs))
	}
	r.n++
	for i, k := range evalKs {
		top := map[string]bool{}
		for _, id := range ranked[:min(k, len(ranked))] {
			top[id] = true
		}
		hit := 0
		for _, e := range evidence {
			if top[e] {
				hit++
			}
		}
		r.sum[i] += float64(hit) / float64(len(evidence))
	}
}

func (r *recallSums) at(i int) float64 {
	if r.n == 0 {
		return 0
	}
	return r.sum[i] / float64(r.n)
}

// evalResult is what one eval run measured.
type evalResult struct {
	Questions  int
	Turns      int
	Overall    *recallSums
	ByCategory map[int]*recallSums
	Raw        *recallSums
	RawByCat   map[int]*recallSums
	Latency    []time.Duration
	RawLatency []time.Duration
	// ImportTook and RawIndexing are medians over Rounds imports of every conversation.
	ImportTook  time.Duration
	RawIndexing time.Duration
	// ImportCPU is the process CPU of all Rounds imports until the process idled again (Settle
	// after the last import returned); RawCPU that of all rounds of raw batch indexing.
	ImportCPU, RawCPU, Settle time.Duration
	Rounds                    int
	// Engine is the import's graph writes by themselves (nil when the eval ran on a store it was
	// given).
	Engine *engineAlone
	// Variants are the same questions through the previous method and, with --sensitivity,
	// through the ranking with one weight halved or doubled (eval_variants.go).
	Variants []*evalVariant
	// Store is the same conversations stored through storeMemory (--via store), nil otherwise.
	Store *storePath
}

// storePath is what the eval measured of the conversations stored one turn per storeMemory call,
// as a mind stores them: recall of the same questions, the calls' speed, and how long the
// consumers took to connect what was stored (settle, after the last call returned).
type storePath struct {
	Overall    *recallSums
	ByCategory map[int]*recallSums
	// Raw is raw Bleve full-text search of the stored scopes' index; Variants the same questions
	// through the previous method, without spreading activation, and with its weight halved and
	// doubled (storeVariants).
	Raw      *recallSums
	RawByCat map[int]*recallSums
	Variants []*evalVariant
	Took     time.Duration
	Settle   time.Duration
}

// engineAlone is what the engine alone spends on an import: the commits made while the
// conversations were imported once more (recorded), committed again by themselves, one after
// the other, with nothing else running — no reads, index, consumers or building of mutations.
type engineAlone struct {
	Turns, Commits, Quads int
	Took, CPU             time.Duration
}

// rawBatchIndexing is the raw baseline of import: batch indexing of the same texts into a fresh
// Bleve index, in batches of 1,000.
func rawBatchIndexing(dir string, texts []domain.IndexDoc) (time.Duration, error) {
	ix, err := bleve.New(dir, search.Mapping())
	if err != nil {
		return 0, err
	}
	defer ix.Close()
	start := time.Now()
	for i := 0; i < len(texts); i += 1000 {
		b := ix.NewBatch()
		for _, d := range texts[i:min(len(texts), i+1000)] {
			if err := b.Index(d.ID, search.BleveDoc(d)); err != nil {
				return 0, err
			}
		}
		if err := ix.Batch(b); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// evalCmd is `totalrecall eval locomo DIR`: every conversation is imported into a scope of its
// own through the normal import path, every category 1–4 question is asked as a search, and
// evidence recall@1/5/10/20 is printed overall and per category, beside raw Bleve full-text
// search of the same index, with search latency and import speed beside their raw baselines.
func evalCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "locomo" {
		return errors.New("eval: usage: totalrecall eval locomo [--store URI] [--via import|store] DIR")
	}
	fs := flag.NewFlagSet("eval locomo", flag.ContinueOnError)
	var sf storeFlags
	fs.StringVar(&sf.store, "store", "", "graph store (default: a fresh embedded store in a temp folder)")
	fs.StringVar(&sf.index, "index", "", "search index folder (default: in the temp folder)")
	var mf modelFlags
	mf.register(fs)
	verbose := fs.Bool("v", false, "print every question whose evidence is missed at 10")
	rounds := fs.Int("rounds", 1, "import the conversations this many times (into fresh scopes) and report the median speed")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the imports (not the questions) to this file")
	searchprofile := fs.String("searchprofile", "", "write a CPU profile of the questions (not the imports) to this file")
	sensitivity := fs.Bool("sensitivity", false, "also ask every question with each weight of the ranking halved and doubled")
	via := fs.String("via", "import", "import: the conversations through the import path; store: also every turn through storeMemory, one call per turn, beside the import")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *via != "import" && *via != "store" {
		return fmt.Errorf("eval locomo --via %q: use import or store", *via)
	}
	if fs.NArg() != 1 {
		return errors.New("eval locomo: give the folder of LoCoMo conversations")
	}
	mc, err := mf.config()
	if err != nil {
		return err
	}
	sf.mnemonic = mc
	sf.sensitivity = *sensitivity
	res, err := runLoCoMoEval(context.Background(), sf, fs.Arg(0), stderr, evalOptions{verbose: *verbose, rounds: *rounds,
		cpuprofile: *cpuprofile, searchprofile: *searchprofile, viaStore: *via == "store"})
	if err != nil {
		return err
	}
	printEval(stdout, res)
	return nil
}

// evalOptions are eval locomo's flags.
type evalOptions struct {
	verbose                   bool
	rounds                    int
	cpuprofile, searchprofile string
	// viaStore stores every turn through storeMemory too, and asks the questions of both paths.
	viaStore bool
}

func runLoCoMoEval(ctx context.Context, sf storeFlags, dir string, stderr io.Writer, o evalOptions) (*evalResult, error) {
	verbose, rounds, cpuprofile, searchprofile := o.verbose, o.rounds, o.cpuprofile, o.searchprofile
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("eval: no *.json conversations in %s", dir)
	}
	tmp, err := os.MkdirTemp("", "totalrecall-eval-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	// Only a store of its own is given the copies a replay writes (see engineAlone).
	var rec *graph.Recorder
	if sf.store == "" {
		sf.store = "file://" + tmp
		rec = &graph.Recorder{}
		sf.recorder = rec
	}
	if sf.index == "" && !strings.HasPrefix(sf.store, "file://") {
		sf.index = filepath.Join(tmp, "index")
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, idx, cx, err := sf.open(ctx, logger)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	defer idx.Close()
	defer cx.Close()

	out := &evalResult{Overall: &recallSums{}, ByCategory: map[int]*recallSums{}, Raw: &recallSums{}, RawByCat: map[int]*recallSums{}}
	var parsed []*ingest.LoCoMo
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		c, err := ingest.ParseLoCoMo(f, name)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for _, p := range c.Problems {
			fmt.Fprintf(stderr, "%s: skipped %s: %s\n", name, p.Record, p.Message)
		}
		parsed = append(parsed, c)
	}
	// Each round imports every conversation into fresh scopes and indexes the same texts into a
	// fresh raw Bleve index; the questions are asked of the last round's scopes.
	var convs []evalConv
	var importTimes, rawTimes []time.Duration
	stopImport, err := startProfile(cpuprofile)
	if err != nil {
		return nil, err
	}
	defer stopImport() // on an early return; stopping twice is harmless
	var roundTexts [][]domain.IndexDoc
	cpu0 := cpuTime()
	for round := 0; round < max(1, rounds); round++ {
		var turns int
		var took time.Duration
		var texts []domain.IndexDoc
		convs, texts, turns, took, err = importRound(ctx, cx, parsed, nil)
		if err != nil {
			return nil, err
		}
		out.Turns = turns
		importTimes = append(importTimes, took)
		roundTexts = append(roundTexts, texts)
	}
	// The CPU the imports cost, with everything they set off (index, consumers, merges), is
	// counted until the process idles; the raw baseline runs after it, on an idle process.
	out.Settle = waitIdle(2 * time.Minute)
	out.ImportCPU = cpuTime() - cpu0
	stopImport()
	cpu0 = cpuTime()
	for round, texts := range roundTexts {
		raw, err := rawBatchIndexing(filepath.Join(tmp, fmt.Sprintf("raw-bleve-%d", round)), texts)
		if err != nil {
			return nil, err
		}
		rawTimes = append(rawTimes, raw)
	}
	out.RawCPU = cpuTime() - cpu0
	out.ImportTook, out.RawIndexing = pct(importTimes, 50), pct(rawTimes, 50)
	out.Rounds = len(importTimes)

	// The built-in entity and topic analyses, as a mind would run them, give the ranking facets
	// to spread over.
	for _, cv := range convs {
		if err := analyseFacets(ctx, cx, cv.scope); err != nil {
			return nil, err
		}
	}
	maxK := evalKs[len(evalKs)-1]
	if out.Variants, err = evalVariants(st, idx, sf.mnemonic.Embedder, sf.sensitivity); err != nil {
		return nil, err
	}
	stopQuestions, err := startProfile(searchprofile)
	if err != nil {
		return nil, err
	}
	defer stopQuestions()
	for _, cv := range convs {
		for _, q := range cv.c.Questions {
			if q.Category < 1 || q.Category > 4 || len(q.Evidence) == 0 {
				continue
			}
			out.Questions++
			t0 := time.Now()
			rs, err := cx.Probe(ctx, cortex.SearchInput{ScopeID: cv.scope, Query: q.Question, MaxResults: maxK})
			out.Latency = append(out.Latency, time.Since(t0))
			if err != nil {
				return nil, fmt.Errorf("search %q: %w", q.Question, err)
			}
			ranked := make([]string, 0, len(rs))
			for _, r := range rs {
				ranked = append(ranked, cv.dia[r.Memory.ID])
			}
			t0 = time.Now()
			hits, err := idx.BleveSearch(ctx, domain.IndexQuery{ScopeID: cv.scope, Text: q.Question, Limit: maxK,
				Filter: domain.MemoryFilter{States: []domain.LifecycleState{domain.StateActive}}})
			out.RawLatency = append(out.RawLatency, time.Since(t0))
			if err != nil {
				return nil, err
			}
			raw := make([]string, 0, len(hits))
			for _, h := range hits {
				raw = append(raw, cv.dia[h.ID])
			}
			for _, sums := range []*recallSums{out.Overall, cat(out.ByCategory, q.Category)} {
				sums.add(ranked, q.Evidence)
			}
			for _, sums := range []*recallSums{out.Raw, cat(out.RawByCat, q.Category)} {
				sums.add(raw, q.Evidence)
			}
			for _, v := range out.Variants {
				rs, err := v.rec.Search(ctx, recall.Query{ScopeID: cv.scope, Text: q.Question, MaxResults: maxK})
				if err != nil {
					return nil, fmt.Errorf("search %q (%s): %w", q.Question, v.name, err)
				}
				vr := make([]string, 0, len(rs))
				for _, r := range rs {
					vr = append(vr, cv.dia[r.Memory.ID])
				}
				v.add(q.Category, vr, q.Evidence)
			}
			if verbose {
				missedAt10(stderr, cv.c.Name, q, ranked)
			}
		}
	}
	stopQuestions()
	if o.viaStore {
		sv, err := storeVariants(st, idx, sf.mnemonic.Embedder, out.Variants)
		if err != nil {
			return nil, err
		}
		if out.Store, err = storeRound(ctx, cx, idx, sv, parsed, stderr, verbose); err != nil {
			return nil, err
		}
	}
	// The engine's share of an import: the conversations imported once more, into fresh scopes,
	// with the store recording the commits made while they ran; then those commits again by
	// themselves, on the idle process (after the questions: the copies they write are not
	// asked about).
	if rec != nil {
		waitIdle(2 * time.Minute)
		_, _, turns, _, err := importRound(ctx, cx, parsed, rec)
		if err != nil {
			return nil, err
		}
		waitIdle(2 * time.Minute)
		e := &engineAlone{Turns: turns, Commits: rec.Commits(), Quads: rec.Quads()}
		cpu0 := cpuTime()
		if e.Took, err = st.ReplayRecorded(ctx, rec); err != nil {
			return nil, fmt.Errorf("replay the import's commits: %w", err)
		}
		e.CPU = cpuTime() - cpu0
		out.Engine = e
	}
	return out, nil
}

func cat(m map[int]*recallSums, c int) *recallSums {
	if m[c] == nil {
		m[c] = &recallSums{}
	}
	return m[c]
}

// evalConv is one imported conversation: its scope, and its turns' dia_ids by memory id.
type evalConv struct {
	c     *ingest.LoCoMo
	scope string
	dia   map[string]string
}

// importRound imports every conversation into a fresh scope of its own, one after the other,
// and returns them with the index documents raw Bleve is given for the same texts, the turns
// imported and the time the imports took (the scopes' creation not counted). rec, when set,
// records the imports' commits only (not the scopes').
func importRound(ctx context.Context, cx *cortex.Cortex, parsed []*ingest.LoCoMo, rec *graph.Recorder) ([]evalConv, []domain.IndexDoc, int, time.Duration, error) {
	var convs []evalConv
	var texts []domain.IndexDoc
	turns := 0
	var took time.Duration
	for _, c := range parsed {
		sc, err := cx.CreateScope(ctx, "locomo "+c.Name, cortex.Meta{})
		if err != nil {
			return nil, nil, 0, 0, err
		}
		if rec != nil {
			rec.Start()
		}
		start := time.Now()
		res, err := ingest.Import(ctx, cx, sc.ID, ingest.LoCoMoSource(c), cortex.Meta{}, nil)
		if err != nil {
			return nil, nil, 0, 0, fmt.Errorf("%s: %w", c.Name, err)
		}
		took += time.Since(start)
		if rec != nil {
			rec.Stop()
		}
		turns += res.Imported
		dia := map[string]string{}
		for _, e := range c.Batch.Events {
			id := ledger.EventID(sc.ID, ingest.AdapterLoCoMo, e.SourceID)
			d, _ := e.Metadata["diaId"].(string)
			dia[id] = d
			texts = append(texts, domain.IndexDoc{ID: id, ScopeID: sc.ID, Content: ledger.Content(e.Speaker, e.Content),
				Kind: domain.KindEpisodic, Tier: domain.TierActiveContext, State: domain.StateActive, OccurredAt: e.Timestamp, CreatedAt: e.Timestamp})
		}
		convs = append(convs, evalConv{c: c, scope: sc.ID, dia: dia})
	}
	return convs, texts, turns, took, nil
}

// storeRound stores every conversation into a fresh scope of its own the way a mind stores what
// is said: one storeMemory call per turn, in order, with the content "Speaker: text", the session
// as sessionId and the session's date plus the turn's position (a minute a turn) as occurredAt —
// nothing else. Once the consumers have connected what was stored, every question is asked of
// those scopes.
func storeRound(ctx context.Context, cx *cortex.Cortex, idx *search.Index, variants []*evalVariant, parsed []*ingest.LoCoMo, stderr io.Writer, verbose bool) (*storePath, error) {
	out := &storePath{Overall: &recallSums{}, ByCategory: map[int]*recallSums{}, Raw: &recallSums{}, RawByCat: map[int]*recallSums{}, Variants: variants}
	var convs []evalConv
	for _, c := range parsed {
		sc, err := cx.CreateScope(ctx, "locomo "+c.Name+" (stored)", cortex.Meta{})
		if err != nil {
			return nil, err
		}
		dia := map[string]string{}
		pos := map[string]int{}
		start := time.Now()
		for _, e := range c.Batch.Events {
			at := e.Timestamp.Add(time.Duration(pos[e.ThreadSourceID]) * time.Minute)
			pos[e.ThreadSourceID]++
			m, err := cx.StoreMemory(ctx, cortex.StoreMemoryInput{SessionID: e.ThreadSourceID,
				StoreInput: hippocampus.StoreInput{ScopeID: sc.ID, Content: ledger.Content(e.Speaker, e.Content), OccurredAt: &at}})
			if err != nil {
				return nil, fmt.Errorf("%s: store %s: %w", c.Name, e.SourceID, err)
			}
			d, _ := e.Metadata["diaId"].(string)
			dia[m.ID] = d
		}
		out.Took += time.Since(start)
		convs = append(convs, evalConv{c: c, scope: sc.ID, dia: dia})
	}
	settleStart := time.Now()
	out.Settle = waitConsumers(cx).Sub(settleStart)
	for _, cv := range convs {
		if err := analyseFacets(ctx, cx, cv.scope); err != nil {
			return nil, err
		}
	}
	for _, cv := range convs {
		for _, q := range cv.c.Questions {
			if q.Category < 1 || q.Category > 4 || len(q.Evidence) == 0 {
				continue
			}
			rs, err := cx.Probe(ctx, cortex.SearchInput{ScopeID: cv.scope, Query: q.Question, MaxResults: evalKs[len(evalKs)-1]})
			if err != nil {
				return nil, fmt.Errorf("search %q: %w", q.Question, err)
			}
			ranked := make([]string, 0, len(rs))
			for _, r := range rs {
				ranked = append(ranked, cv.dia[r.Memory.ID])
			}
			for _, sums := range []*recallSums{out.Overall, cat(out.ByCategory, q.Category)} {
				sums.add(ranked, q.Evidence)
			}
			hits, err := idx.BleveSearch(ctx, domain.IndexQuery{ScopeID: cv.scope, Text: q.Question, Limit: evalKs[len(evalKs)-1],
				Filter: domain.MemoryFilter{States: []domain.LifecycleState{domain.StateActive}}})
			if err != nil {
				return nil, err
			}
			raw := make([]string, 0, len(hits))
			for _, h := range hits {
				raw = append(raw, cv.dia[h.ID])
			}
			for _, sums := range []*recallSums{out.Raw, cat(out.RawByCat, q.Category)} {
				sums.add(raw, q.Evidence)
			}
			for _, v := range variants {
				rs, err := v.rec.Search(ctx, recall.Query{ScopeID: cv.scope, Text: q.Question, MaxResults: evalKs[len(evalKs)-1]})
				if err != nil {
					return nil, fmt.Errorf("search %q (%s): %w", q.Question, v.name, err)
				}
				vr := make([]string, 0, len(rs))
				for _, r := range rs {
					vr = append(vr, cv.dia[r.Memory.ID])
				}
				v.add(q.Category, vr, q.Evidence)
			}
			if verbose {
				missedAt10(stderr, cv.c.Name+" stored", q, ranked)
			}
		}
	}
	return out, nil
}

// missedAt10 prints a question whose evidence is not all in the first ten.
func missedAt10(w io.Writer, name string, q ingest.LoCoMoQuestion, ranked []string) {
	top := map[string]bool{}
	for _, d := range ranked[:min(10, len(ranked))] {
		top[d] = true
	}
	var missed []string
	for _, e := range q.Evidence {
		if !top[e] {
			if k := slices.Index(ranked, e); k >= 0 {
				e += fmt.Sprintf("@%d", k+1)
			}
			missed = append(missed, e)
		}
	}
	if len(missed) > 0 {
		fmt.Fprintf(w, "[%s c%d] %s — missed %v, top %v\n", name, q.Category, q.Question, missed, ranked[:min(10, len(ranked))])
	}
}

func printEval(w io.Writer, r *evalResult) {
	fmt.Fprintf(w, "LoCoMo evidence recall — %d questions (categories 1–4), %d turns\n\n", r.Questions, r.Turns)
	fmt.Fprintf(w, "%-24s", "")
	for _, k := range evalKs {
		fmt.Fprintf(w, " %8s", fmt.Sprintf("@%d", k))
	}
	fmt.Fprintf(w, "   %s\n", "raw Bleve @1/@5/@10/@20 (same index, same run)")
	row := func(label string, s, raw *recallSums) {
		fmt.Fprintf(w, "%-24s", label)
		for i := range evalKs {
			fmt.Fprintf(w, " %8.3f", s.at(i))
		}
		fmt.Fprintf(w, "   ")
		for i := range evalKs {
			fmt.Fprintf(w, "%.3f ", raw.at(i))
		}
		fmt.Fprintln(w)
	}
	section := func(title string, overall *recallSums, byCat map[int]*recallSums, raw *recallSums, rawByCat map[int]*recallSums) {
		if title != "" {
			fmt.Fprintln(w, title)
		}
		row("overall", overall, raw)
		for c := 1; c <= 4; c++ {
			if s, ok := byCat[c]; ok {
				row(fmt.Sprintf("%d %s (%d)", c, locomoCategories[c], s.n), s, cat(rawByCat, c))
			}
		}
	}
	if r.Store == nil {
		section("", r.Overall, r.ByCategory, r.Raw, r.RawByCat)
	} else {
		section("via import (ingest locomo)", r.Overall, r.ByCategory, r.Raw, r.RawByCat)
		section("via store (one storeMemory call per turn)", r.Store.Overall, r.Store.ByCategory, r.Store.Raw, r.Store.RawByCat)
		fmt.Fprintf(w, "%-24s %8.3f   recall@10 via store − via import\n", "difference @10", r.Store.Overall.at(2)-r.Overall.at(2))
	}
	printVariants(w, r)
	if r.Store != nil && len(r.Store.Variants) > 0 {
		fmt.Fprintln(w)
		printVariantRows(w, r.Store.Variants, "same storeMemory calls")
		// The Wg rows vary the variant with spreading activation, not the ranking as used.
		for _, v := range r.Store.Variants {
			if v.group == "" && v.sums != nil && strings.HasPrefix(v.name, "with spreading activation") {
				printSensitivity(w, r.Store.Variants, v.sums, v.byCat, " via store, of spreading activation", fmt.Sprintf("at Wg %g", spreadWeight))
			}
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-44s %12s   %s\n", "speed", "totalrecall", "raw baseline (same run)")
	fmt.Fprintf(w, "%-44s %10.0f/s   %8.0f/s raw Bleve batch indexing of the same texts\n", fmt.Sprintf("import, end to end (turns; median of %d)", r.Rounds),
		float64(r.Turns)/r.ImportTook.Seconds(), float64(r.Turns)/r.RawIndexing.Seconds())
	if n := r.Turns * r.Rounds; n > 0 && r.ImportCPU > 0 {
		fmt.Fprintf(w, "%-44s %10.0fµs   %7.0fµs raw Bleve batch indexing\n", "CPU per turn (import and all it set off)",
			float64(r.ImportCPU.Microseconds())/float64(n), float64(r.RawCPU.Microseconds())/float64(n))
	}
	if e := r.Engine; e != nil && e.Turns > 0 && e.Took > 0 {
		fmt.Fprintf(w, "%-44s %12s   %8.0f/s graph writes alone (the import's %d commits, %d N-Quads, again)\n", "", "",
			float64(e.Turns)/e.Took.Seconds(), e.Commits, e.Quads)
		fmt.Fprintf(w, "%-44s %12s   %7.0fµs graph writes alone, CPU per turn\n", "", "", float64(e.CPU.Microseconds())/float64(e.Turns))
	}
	if st := r.Store; st != nil && st.Took > 0 {
		fmt.Fprintf(w, "%-44s %10.0f/s   (one call per turn, in order)\n", "storeMemory, one call per turn", float64(r.Turns)/st.Took.Seconds())
		fmt.Fprintf(w, "%-44s %10.1fs   after the last call returned\n", "consumers connected what was stored", st.Settle.Seconds())
	}
	fmt.Fprintf(w, "%-44s %10.2fms   %7.2fms raw Bleve top-20 query, same index\n", "search latency p50", ms(pct(r.Latency, 50)), ms(pct(r.RawLatency, 50)))
	fmt.Fprintf(w, "%-44s %10.2fms   %7.2fms raw Bleve top-20 query, same index\n", "search latency p99", ms(pct(r.Latency, 99)), ms(pct(r.RawLatency, 99)))
}

// analyseFacets runs the built-in entity and topic analyses over every episode of a scope.
func analyseFacets(ctx context.Context, cx *cortex.Cortex, scopeID string) error {
	for _, t := range []string{"entities", "topics"} {
		if _, err := cx.Analyze(ctx, cortex.AnalyzeInput{ScopeID: scopeID, Type: t}); err != nil {
			return fmt.Errorf("analyse %s: %w", t, err)
		}
	}
	return nil
}
