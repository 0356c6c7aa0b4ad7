package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/digest"
)

// digestSchedule is serve's optional scheduled digest: every Every, a propose pass over every
// scope (and, with Archive, an archive pass of what it proposed). Removal is never scheduled:
// it is destructive and asked for explicitly.
type digestSchedule struct {
	Every      time.Duration
	Archive    bool
	StaleAfter time.Duration
}

func registerDigestFlags(fs *flag.FlagSet, d *digestSchedule) {
	fs.DurationVar(&d.Every, "digest-every", 0, "run a digest propose pass over every scope this often (0: never)")
	fs.BoolVar(&d.Archive, "digest-archive", false, "scheduled digests also archive what they propose (reversible)")
	fs.DurationVar(&d.StaleAfter, "digest-stale-after", digest.DefaultStaleAfter, "staleness window of scheduled digests")
}

// startDigestSchedule runs the scheduled digest until ctx ends; the returned func waits for it.
func startDigestSchedule(ctx context.Context, cx *cortex.Cortex, d digestSchedule, logger *slog.Logger) (wait func()) {
	if d.Every <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(d.Every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			reps, err := cx.DigestScopes(ctx, d.Archive, d.StaleAfter)
			if err != nil && ctx.Err() == nil {
				logger.Error("scheduled digest failed", "err", err)
			}
			proposed, archived := 0, 0
			for _, r := range reps {
				proposed += len(r.Proposals)
				archived += len(r.Archived)
			}
			logger.Info("scheduled digest", "passes", len(reps), "proposals", proposed, "archived", archived)
		}
	}()
	return func() { <-done }
}

// digestCmd is `totalrecall digest`: one pass (or one per scope) on the store, or through a
// running server's GraphQL API, optionally repeated on a schedule.
func digestCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("digest", flag.ContinueOnError)
	var sf storeFlags
	sf.register(fs)
	server := fs.String("server", "", "run the pass through this running server (http://HOST:PORT) instead of opening the store")
	scope := fs.String("scope", "", "the scope (default: every scope; with --server a scope is required)")
	archive := fs.String("archive", "", "comma-separated ids to archive (or \"proposed\": what this pass proposes)")
	remove := fs.String("remove", "", "comma-separated ids, archived in an earlier pass, to remove")
	staleAfter := fs.Duration("stale-after", digest.DefaultStaleAfter, "staleness window")
	every := fs.Duration("every", 0, "repeat on this schedule until interrupted (0: once)")
	asJSON := fs.Bool("json", false, "print the reports as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ids := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	var run func(ctx context.Context) ([]*domain.DigestReport, error)
	if *server != "" {
		if *scope == "" {
			return errors.New("digest --server: give --scope")
		}
		run = func(ctx context.Context) ([]*domain.DigestReport, error) {
			return digestOverServer(ctx, *server, *scope, *archive, ids(*remove), *staleAfter)
		}
	} else {
		logger := slog.New(slog.NewTextHandler(io.Discard, nil))
		st, idx, cx, err := sf.open(context.Background(), logger)
		if err != nil {
			return err
		}
		defer st.Close()
		defer idx.Close()
		defer cx.Close()
		run = func(ctx context.Context) ([]*domain.DigestReport, error) {
			if *scope == "" {
				if *remove != "" || (*archive != "" && *archive != "proposed") {
					return nil, errors.New("digest: --archive IDS and --remove need --scope")
				}
				return cx.DigestScopes(ctx, *archive == "proposed", *staleAfter)
			}
			return digestScope(ctx, cx, *scope, *archive, ids(*remove), *staleAfter)
		}
	}
	for {
		reps, err := run(context.Background())
		if err != nil {
			return err
		}
		printReports(stdout, reps, *asJSON)
		if *every <= 0 {
			return nil
		}
		time.Sleep(*every)
	}
}

// digestScope runs the passes asked for one scope: a propose pass (also when archiving what it
// proposes), then an archive and/or remove pass.
func digestScope(ctx context.Context, cx *cortex.Cortex, scope, archive string, remove []string, staleAfter time.Duration) ([]*domain.DigestReport, error) {
	in := cortex.DigestInput{ScopeID: scope, Remove: remove, StaleAfter: &staleAfter}
	var out []*domain.DigestReport
	switch {
	case archive == "proposed" || (archive == "" && len(remove) == 0):
		rep, err := cx.RunDigest(ctx, cortex.DigestInput{ScopeID: scope, Propose: true, StaleAfter: &staleAfter})
		if err != nil {
			return nil, err
		}
		out = append(out, rep)
		if archive == "proposed" {
			for _, p := range rep.Proposals {
				in.Archive = append(in.Archive, p.ArtifactID)
			}
		}
	case archive != "":
		in.Archive = strings.Split(archive, ",")
	}
	if len(in.Archive) == 0 && len(in.Remove) == 0 {
		return out, nil
	}
	rep, err := cx.RunDigest(ctx, in)
	if err != nil {
		return out, err
	}
	return append(out, rep), nil
}

func printReports(w io.Writer, reps []*domain.DigestReport, asJSON bool) {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, r := range reps {
			_ = enc.Encode(r)
		}
		return
	}
	for _, r := range reps {
		fmt.Fprintf(w, "digest %s scope %s: evaluated %d, proposed %d, archived %d, removed %d\n",
			r.ID, r.ScopeID, r.Evaluated, len(r.Proposals), len(r.Archived), len(r.Removed))
		for _, p := range r.Proposals {
			var why []string
			for _, rs := range p.Reasons {
				why = append(why, string(rs.Code))
			}
			fmt.Fprintf(w, "  propose %s %s: %s\n", p.Family, p.ArtifactID, strings.Join(why, ", "))
		}
	}
}
