package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/client"
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
				proposed += r.ProposalCount
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
	var d digester
	if *server != "" {
		if *scope == "" {
			return errors.New("digest --server: give --scope")
		}
		d = remoteDigester{client.FromEnv(*server)}
		run = func(ctx context.Context) ([]*domain.DigestReport, error) {
			return digestScope(ctx, d, *scope, *archive, ids(*remove), *staleAfter)
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
		d = localDigester{cx}
		run = func(ctx context.Context) ([]*domain.DigestReport, error) {
			if *scope == "" {
				if *remove != "" || (*archive != "" && *archive != "proposed") {
					return nil, errors.New("digest: --archive IDS and --remove need --scope")
				}
				return cx.DigestScopes(ctx, *archive == "proposed", *staleAfter)
			}
			return digestScope(ctx, d, *scope, *archive, ids(*remove), *staleAfter)
		}
	}
	for {
		reps, err := run(context.Background())
		if err != nil {
			return err
		}
		if err := printReports(context.Background(), stdout, d, reps, *asJSON); err != nil {
			return err
		}
		if *every <= 0 {
			return nil
		}
		time.Sleep(*every)
	}
}

// digester runs digest passes and reads their proposals, in-process or through a server.
type digester interface {
	run(ctx context.Context, in cortex.DigestInput) (*domain.DigestReport, error)
	// proposals reads a page of rep's proposals: at most first after artifact id after.
	proposals(ctx context.Context, rep *domain.DigestReport, after string, first int) ([]domain.Proposal, error)
}

type localDigester struct{ cx *cortex.Cortex }

func (d localDigester) run(ctx context.Context, in cortex.DigestInput) (*domain.DigestReport, error) {
	return d.cx.RunDigest(ctx, in)
}

func (d localDigester) proposals(ctx context.Context, rep *domain.DigestReport, after string, first int) ([]domain.Proposal, error) {
	return d.cx.ReportProposals(ctx, rep, &after, &first)
}

// eachProposalPage hands fn rep's proposals, first at a time, in artifact id order.
func eachProposalPage(ctx context.Context, d digester, rep *domain.DigestReport, first int, fn func([]domain.Proposal) error) error {
	return domain.EachProposalPage(func(after string) ([]domain.Proposal, error) {
		return d.proposals(ctx, rep, after, first)
	}, fn)
}

// digestScope runs the passes asked for one scope: a propose pass (also when archiving what it
// proposes), then archive and/or remove passes. What a propose pass proposes is archived
// digest.MaxIDs a pass, read a page at a time.
func digestScope(ctx context.Context, d digester, scope, archive string, remove []string, staleAfter time.Duration) ([]*domain.DigestReport, error) {
	var out []*domain.DigestReport
	pass := func(in cortex.DigestInput) error {
		in.ScopeID, in.StaleAfter = scope, &staleAfter
		rep, err := d.run(ctx, in)
		if err == nil {
			out = append(out, rep)
		}
		return err
	}
	switch {
	case archive == "proposed" || (archive == "" && len(remove) == 0):
		if err := pass(cortex.DigestInput{Propose: true}); err != nil {
			return nil, err
		}
		if archive == "proposed" && out[0].ProposalCount > 0 {
			if err := eachProposalPage(ctx, d, out[0], digest.MaxIDs, func(page []domain.Proposal) error {
				ids := make([]string, len(page))
				for i, p := range page {
					ids[i] = p.ArtifactID
				}
				return pass(cortex.DigestInput{Archive: ids})
			}); err != nil {
				return out, err
			}
		}
		if len(remove) > 0 {
			return out, pass(cortex.DigestInput{Remove: remove})
		}
		return out, nil
	case archive != "":
		return out, pass(cortex.DigestInput{Archive: strings.Split(archive, ","), Remove: remove})
	}
	return out, pass(cortex.DigestInput{Remove: remove})
}

// printReports prints each report with its proposals, read a page at a time: as text, or as
// one JSON object a report (the report's fields and its proposals).
func printReports(ctx context.Context, w io.Writer, d digester, reps []*domain.DigestReport, asJSON bool) error {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	for _, r := range reps {
		if asJSON {
			head, err := json.Marshal(r)
			if err != nil {
				return err
			}
			bw.Write(head[:len(head)-1])
			bw.WriteString(`,"proposals":[`)
		} else {
			fmt.Fprintf(bw, "digest %s scope %s: evaluated %d, proposed %d, archived %d, removed %d\n",
				r.ID, r.ScopeID, r.Evaluated, r.ProposalCount, len(r.Archived), len(r.Removed))
		}
		n := 0
		if r.ProposalCount > 0 {
			if err := eachProposalPage(ctx, d, r, domain.MaxProposalPage, func(page []domain.Proposal) error {
				for _, p := range page {
					if asJSON {
						if n > 0 {
							bw.WriteByte(',')
						}
						b, err := json.Marshal(p)
						if err != nil {
							return err
						}
						bw.Write(b)
					} else {
						var why []string
						for _, rs := range p.Reasons {
							why = append(why, string(rs.Code))
						}
						fmt.Fprintf(bw, "  propose %s %s: %s\n", p.Family, p.ArtifactID, strings.Join(why, ", "))
					}
					n++
				}
				return nil
			}); err != nil {
				return err
			}
		}
		if asJSON {
			bw.WriteString("]}\n")
		}
	}
	return bw.Flush()
}
