package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain"
)

// The commands for people (tables) and scripts (--json).

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func table(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) }

// cell is a value fit for a table cell: one line, cut to n runes.
func cell(s string, n int) string { return client.Snippet(s, n) }

func scopeRef(flagValue string) (string, error) {
	for _, s := range []string{flagValue, os.Getenv("TOTALRECALL_SCOPE")} {
		if strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s), nil
		}
	}
	return "", domain.FieldErrorf("scope", "name the scope with --scope (an id or a name) or $TOTALRECALL_SCOPE")
}

// existingScope finds the scope ref names without creating one.
func existingScope(ctx context.Context, c *client.Client, ref string) (*domain.Scope, error) {
	scopes, err := c.Scopes(ctx)
	if err != nil {
		return nil, err
	}
	var found *domain.Scope
	for i := range scopes {
		s := &scopes[i]
		if s.ID == ref || (s.Name == ref && (found == nil || s.CreatedAt.Before(found.CreatedAt))) {
			found = s
			if s.ID == ref {
				break
			}
		}
	}
	if found == nil {
		return nil, domain.Errorf(domain.ENOTFOUND, "no scope %q on %s (`totalrecall scopes` lists them)", ref, c.Base())
	}
	return found, nil
}

func scopesCmd(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("scopes", flag.ContinueOnError)
	server := serverFlag(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	if rest, err := parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return fmt.Errorf("scopes: unexpected arguments %q", rest)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	scopes, err := client.FromEnv(*server).Scopes(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(out, scopes)
	}
	tw := table(out)
	fmt.Fprintln(tw, "ID\tNAME\tCREATED")
	for _, s := range scopes {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.ID, cell(s.Name, 60), s.CreatedAt.UTC().Format(time.RFC3339))
	}
	return tw.Flush()
}

func storeCmd(ctx context.Context, args []string, stdin io.Reader, out io.Writer) error {
	fs := flag.NewFlagSet("store", flag.ContinueOnError)
	server := serverFlag(fs)
	scope := fs.String("scope", "", "the scope, id or name (an unused name creates it); unset: $TOTALRECALL_SCOPE")
	tier := fs.String("tier", "", "the suggested tier: IDENTITY_CORE, ACTIVE_CONTEXT, LONG_TERM, ARCHIVE")
	kind := fs.String("kind", "", "EPISODIC, SEMANTIC or OBSERVATIONAL")
	var tags listFlag
	fs.Var(&tags, "tag", "a tag (repeat, or comma-separate)")
	meta := fs.String("metadata", "", "metadata as a JSON object")
	importance := fs.Float64("importance", -1, "how much it matters, 0..1 (-1: the server judges)")
	asJSON := fs.Bool("json", false, "print the stored memory as JSON")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	content := strings.Join(rest, " ")
	if len(rest) == 1 && rest[0] == "-" {
		raw, err := io.ReadAll(io.LimitReader(stdin, 64<<20))
		if err != nil {
			return err
		}
		content = string(raw)
	}
	if strings.TrimSpace(content) == "" {
		return domain.FieldErrorf("content", "give the memory's text (or - to read it from stdin)")
	}
	ref, err := scopeRef(*scope)
	if err != nil {
		return err
	}
	in := client.StoreInput{Content: content, SuggestedTier: strings.ToUpper(*tier), Kind: strings.ToUpper(*kind), Tags: tags}
	if *meta != "" {
		if err := json.Unmarshal([]byte(*meta), &in.Metadata); err != nil {
			return domain.FieldErrorf("metadata", "is not a JSON object: %v", err)
		}
	}
	if *importance >= 0 {
		in.Importance = importance
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := client.FromEnv(*server)
	sc, _, err := c.ResolveScope(ctx, ref)
	if err != nil {
		return err
	}
	in.ScopeID = sc.ID
	m, err := c.StoreMemory(ctx, in)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(out, m)
	}
	return memoryTable(out, []domain.Memory{*m})
}

func memoryTable(out io.Writer, ms []domain.Memory) error {
	tw := table(out)
	fmt.Fprintln(tw, "ID\tTIER\tSALIENCE\tCLAIMED\tCONTENT")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%v\t%s\n", m.ID, m.Tier, m.Salience, m.Claimed, cell(m.Content, 80))
	}
	return tw.Flush()
}

func rankedTable(out io.Writer, rs []client.RankedMemory, depth bool) error {
	tw := table(out)
	if depth {
		fmt.Fprintln(tw, "DEPTH\tSCORE\tID\tTIER\tCONTENT")
	} else {
		fmt.Fprintln(tw, "SCORE\tREASON\tID\tTIER\tCONTENT")
	}
	for _, r := range rs {
		if depth {
			fmt.Fprintf(tw, "%d\t%.3f\t%s\t%s\t%s\n", r.Depth, r.Score, r.Memory.ID, r.Memory.Tier, cell(r.Memory.Content, 80))
		} else {
			fmt.Fprintf(tw, "%.3f\t%s\t%s\t%s\t%s\n", r.Score, r.Reason, r.Memory.ID, r.Memory.Tier, cell(r.Memory.Content, 80))
		}
	}
	return tw.Flush()
}

func searchCmd(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	server := serverFlag(fs)
	scope := fs.String("scope", "", "the scope, id or name; unset: $TOTALRECALL_SCOPE")
	maxN := fs.Int("max", 10, "how many results")
	var tiers, tags listFlag
	fs.Var(&tiers, "tier", "only this tier (repeat)")
	fs.Var(&tags, "tag", "only memories with this tag (repeat: all of them)")
	noAssoc := fs.Bool("no-associations", false, "text hits only, no associated memories")
	asJSON := fs.Bool("json", false, "print JSON")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	query := strings.Join(rest, " ")
	if strings.TrimSpace(query) == "" {
		return domain.FieldErrorf("query", "give the words to search for")
	}
	ref, err := scopeRef(*scope)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := client.FromEnv(*server)
	sc, err := existingScope(ctx, c, ref)
	if err != nil {
		return err
	}
	var filters map[string]any
	if len(tiers) > 0 || len(tags) > 0 {
		filters = map[string]any{}
		if len(tiers) > 0 {
			up := make([]string, len(tiers))
			for i, t := range tiers {
				up[i] = strings.ToUpper(t)
			}
			filters["tiers"] = up
		}
		if len(tags) > 0 {
			filters["tags"] = []string(tags)
		}
	}
	rs, err := c.SearchMemory(ctx, sc.ID, query, *maxN, !*noAssoc, filters)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(out, rs)
	}
	return rankedTable(out, rs, false)
}

func claimCmd(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("claim", flag.ContinueOnError)
	server := serverFlag(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	ids, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return domain.FieldErrorf("id", "give the ids of the memories to claim")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := client.FromEnv(*server)
	var ms []domain.Memory
	for _, id := range ids {
		m, err := c.ClaimMemory(ctx, id)
		if err != nil {
			return err
		}
		ms = append(ms, *m)
	}
	if *asJSON {
		return printJSON(out, ms)
	}
	return memoryTable(out, ms)
}

func recallCmd(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("recall", flag.ContinueOnError)
	server := serverFlag(fs)
	scope := fs.String("scope", "", "with --query: the scope, id or name; unset: $TOTALRECALL_SCOPE")
	query := fs.String("query", "", "recall from the best three memories this search finds by their words (or vectors)")
	depth := fs.Int("depth", 0, "how many associations deep (0: the server's depth)")
	wait := fs.Duration("wait", 10*time.Second, "how long to wait for the recollection (at most 60s)")
	instance := fs.String("instance", "", "the mind instance the recollection is for: its notifications subscription receives it too")
	asJSON := fs.Bool("json", false, "print JSON")
	ids, err := parse(fs, args)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := client.FromEnv(*server)
	if *query != "" {
		ref, err := scopeRef(*scope)
		if err != nil {
			return err
		}
		sc, err := existingScope(ctx, c, ref)
		if err != nil {
			return err
		}
		rs, err := c.SearchMemory(ctx, sc.ID, *query, 10, false, nil)
		if err != nil {
			return err
		}
		// The memories found themselves, not the context a search brings with them (their
		// episodes and neighbours): what those lead to is what a total recall is for.
		for _, r := range rs {
			if (r.Reason == "TEXT" || r.Reason == "VECTOR") && len(ids) < 3 {
				ids = append(ids, r.Memory.ID)
			}
		}
		if len(ids) == 0 {
			return domain.Errorf(domain.ENOTFOUND, "nothing in scope %q matches %q to recall from", sc.Name, *query)
		}
	}
	if len(ids) == 0 {
		return domain.FieldErrorf("id", "give the ids of the memories to recall from, or --query")
	}
	rec, err := c.TotalRecall(ctx, ids, *depth, *instance, *wait)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(out, rec)
	}
	switch {
	case rec.Declined != nil:
		return domain.Errorf(domain.EUNAVAILABLE, "the total recall was declined (%s); try again later", *rec.Declined)
	case rec.Notification == nil:
		fmt.Fprintf(out, "total recall %s still runs after %s; follow it with the notifications subscription\n", rec.OriginRequestID, *wait)
		return nil
	}
	n := len(rec.Notification.Recalled)
	fmt.Fprintf(out, "recalled %d %s, depth %d reached (request %s)\n", n, plural(n, "memory", "memories"), rec.Notification.DepthReached, rec.OriginRequestID)
	return rankedTable(out, rec.Notification.Recalled, true)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
