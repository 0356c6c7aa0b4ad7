package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/ingest"
	"github.com/totalrecall/totalrecall/llm"
)

// modelFlags name the OpenAI-compatible servers the pipeline may call.
type modelFlags struct {
	llmURL, llmModel, llmKeyEnv       string
	embedURL, embedModel, embedKeyEnv string
}

func (m *modelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.llmURL, "llm-url", os.Getenv("TOTALRECALL_LLM_URL"), "OpenAI-compatible API root of a chat model, for story chapters and the llm analysis (e.g. http://127.0.0.1:8000/v1)")
	fs.StringVar(&m.llmModel, "llm-model", os.Getenv("TOTALRECALL_LLM_MODEL"), "the chat model (story chapters, the llm analysis)")
	fs.StringVar(&m.llmKeyEnv, "llm-key-env", "OPENAI_API_KEY", "environment variable holding the llm server's API key")
	fs.StringVar(&m.embedURL, "embed-url", os.Getenv("TOTALRECALL_EMBED_URL"), "OpenAI-compatible API root for embeddings (hybrid search)")
	fs.StringVar(&m.embedModel, "embed-model", os.Getenv("TOTALRECALL_EMBED_MODEL"), "embedding model")
	fs.StringVar(&m.embedKeyEnv, "embed-key-env", "OPENAI_API_KEY", "environment variable holding the embeddings server's API key")
}

// config builds the Cortex's model configuration; servers not named stay off.
func (m *modelFlags) config() (cortex.MnemonicConfig, error) {
	var out cortex.MnemonicConfig
	if m.llmURL != "" {
		c, err := llm.NewChat(llm.Config{BaseURL: m.llmURL, Model: m.llmModel, APIKey: os.Getenv(m.llmKeyEnv)})
		if err != nil {
			return out, fmt.Errorf("--llm-url/--llm-model: %w", err)
		}
		out.Chat = c
	}
	if m.embedURL != "" {
		e, err := llm.NewEmbeddings(llm.Config{BaseURL: m.embedURL, Model: m.embedModel, APIKey: os.Getenv(m.embedKeyEnv)})
		if err != nil {
			return out, fmt.Errorf("--embed-url/--embed-model: %w", err)
		}
		out.Embedder = e
	}
	return out, nil
}

// importSource is `totalrecall import locomo|events|agents FILE`.
func importSource(kind string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import "+kind, flag.ContinueOnError)
	var sf storeFlags
	sf.register(fs)
	var mf modelFlags
	mf.register(fs)
	scope := fs.String("scope", "", "scope id to import into (default: a new scope named after the file)")
	adapter := fs.String("adapter", "", "source adapter name (events: keys source ids, default jsonl; agents: the harness, e.g. codex)")
	requestID := fs.String("request-id", "", "request id of the import (its writes are applied at most once)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	server := fs.String("server", "", "import through this running server (http://HOST:PORT; at most 32 MiB) instead of opening the store")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("import %s: give one FILE (or - for standard input)", kind)
	}
	path := fs.Arg(0)
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	if *server != "" {
		return importOverServer(context.Background(), *server, kind, path, r, *scope, *adapter, *requestID, *asJSON, stdout, stderr)
	}
	mc, err := mf.config()
	if err != nil {
		return err
	}
	sf.mnemonic = mc
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	src, err := ingest.Open(kind, name, r, *adapter)
	if err != nil {
		return err
	}
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	st, idx, cx, err := sf.open(ctx, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	defer idx.Close()
	defer cx.Close()
	scopeID := *scope
	if scopeID == "" {
		sc, err := cx.CreateScope(ctx, kind+" "+filepath.Base(path), cortex.Meta{})
		if err != nil {
			return err
		}
		scopeID = sc.ID
		fmt.Fprintf(stderr, "created scope %s\n", scopeID)
	}
	last := time.Now()
	res, err := ingest.Import(ctx, cx, scopeID, src, cortex.Meta{RequestID: *requestID}, func(p cortex.ImportProgress) {
		if time.Since(last) < time.Second {
			return
		}
		last = time.Now()
		fmt.Fprintf(stderr, "\r%d events (%d new, %d already there), %d records, %.0f/s", p.Events, p.Imported, p.Skipped,
			p.Records, float64(p.Records)/p.Elapsed.Seconds())
	})
	if err != nil {
		return fmt.Errorf("import stopped (run it again to resume: what was written stays and is skipped): %w", err)
	}
	fmt.Fprint(stderr, "\r")
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	fmt.Fprintf(stdout, "scope %s: %d events (%d new, %d already imported), %d threads, %d associations, %d sessions, %d messages, %d turns, %d tool calls, %d episodes, %d facets in %s\n",
		res.ScopeID, res.Events, res.Imported, res.Skipped, res.Threads, res.Associations, res.Sessions, res.Messages, res.Turns,
		res.ToolCalls, res.Episodes, res.Facets, res.Took.Round(time.Millisecond))
	for _, p := range res.Problems {
		where := p.Record
		if p.Line > 0 {
			where = fmt.Sprintf("line %d", p.Line)
			if p.Record != "" {
				where += " (" + p.Record + ")"
			}
		}
		fmt.Fprintf(stdout, "skipped %s: %s\n", where, p.Message)
	}
	return nil
}

// analyzeCmd is `totalrecall analyze --scope ID --type NAME`.
func analyzeCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	var sf storeFlags
	sf.register(fs)
	var mf modelFlags
	mf.register(fs)
	scope := fs.String("scope", "", "scope id")
	typ := fs.String("type", "", "analysis: persons, entities, topics, file_references, dates, or llm (with --llm-url)")
	definition := fs.String("definition", "", "only the episodes of this definition id")
	force := fs.Bool("force", false, "re-run completed runs")
	server := fs.String("server", "", "analyze on this running server (http://HOST:PORT; its models) instead of opening the store")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *server != "" {
		return analyzeOverServer(*server, *scope, *typ, *definition, *force, stdout)
	}
	mc, err := mf.config()
	if err != nil {
		return err
	}
	sf.mnemonic = mc
	ctx := context.Background()
	st, idx, cx, err := sf.open(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer st.Close()
	defer idx.Close()
	defer cx.Close()
	runs, err := cx.Analyze(ctx, cortex.AnalyzeInput{ScopeID: *scope, Type: *typ, DefinitionID: *definition, Force: *force})
	if err != nil {
		return err
	}
	counts := map[domain.AnalysisStatus]int{}
	facets := 0
	for _, r := range runs {
		counts[r.Status]++
		facets += r.FacetCount
		if r.Status == domain.RunFailed {
			fmt.Fprintf(stdout, "episode %s failed: %s\n", r.EpisodeID, r.ErrorMessage)
		}
	}
	fmt.Fprintf(stdout, "%s: %d runs completed, %d failed, %d new facets\n", *typ, counts[domain.RunCompleted], counts[domain.RunFailed], facets)
	return nil
}

// forkCmd is `totalrecall fork [--scope ID] --query TEXT [--max-turns N]`.
func forkCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("fork", flag.ContinueOnError)
	var sf storeFlags
	sf.register(fs)
	var mf modelFlags
	mf.register(fs)
	scope := fs.String("scope", "", "scope id (default: every scope with agent sessions)")
	query := fs.String("query", "", "what the new session is about")
	maxTurns := fs.Int("max-turns", 10, "most past turns to include")
	server := fs.String("server", "", "assemble the context on this running server (http://HOST:PORT) instead of opening the store")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *query == "" {
		return errors.New("fork: --query is required")
	}
	if *server != "" {
		return forkOverServer(*server, *scope, *query, *maxTurns, stdout)
	}
	mc, err := mf.config()
	if err != nil {
		return err
	}
	sf.mnemonic = mc
	ctx := context.Background()
	st, idx, cx, err := sf.open(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer st.Close()
	defer idx.Close()
	defer cx.Close()
	fc, err := cx.ForkContext(ctx, *scope, *query, *maxTurns, cortex.Meta{})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(fc)
}

// embedCmd is `totalrecall embed --scope ID --embed-url URL --embed-model M`.
func embedCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("embed", flag.ContinueOnError)
	var sf storeFlags
	sf.register(fs)
	var mf modelFlags
	mf.register(fs)
	scope := fs.String("scope", "", "scope id")
	server := fs.String("server", "", "embed on this running server (http://HOST:PORT; its embedding model) instead of opening the store")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *server != "" {
		return embedOverServer(*server, *scope, stdout)
	}
	mc, err := mf.config()
	if err != nil {
		return err
	}
	if mc.Embedder == nil {
		return errors.New("embed: name an embedding server with --embed-url and --embed-model")
	}
	sf.mnemonic = mc
	ctx := context.Background()
	st, idx, cx, err := sf.open(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer st.Close()
	defer idx.Close()
	defer cx.Close()
	n, err := cx.EmbedMemories(ctx, *scope, cortex.Meta{})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "embedded %d memories\n", n)
	return nil
}
