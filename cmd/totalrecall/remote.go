package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
)

// The data commands' --server paths: the same work done by the running server that owns the
// data folder, through package client, instead of opening the folder.

func exportOverServer(server, out string, stdout io.Writer) error {
	w := stdout
	if out != "-" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	n, err := client.FromEnv(server).ExportDump(context.Background(), w)
	if err != nil {
		return err
	}
	if out != "-" {
		fmt.Fprintf(stdout, "exported %d lines to %s\n", n, out)
	}
	return nil
}

func importDumpOverServer(ctx context.Context, server string, r io.Reader, stdout io.Writer) error {
	n, err := client.FromEnv(server).ImportDump(ctx, r)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %d lines; the server's search index catches up when it next starts\n", n)
	return nil
}

// maxImportData is the most importData takes in one request (resolvers.MaxImportDataBytes).
const maxImportData = 32 << 20

var importFormats = map[string]string{"locomo": "LOCOMO", "events": "EVENTS", "agents": "AGENT_SESSIONS"}

// importOverServer is `import locomo|events|agents --server`: the file goes to importData.
func importOverServer(ctx context.Context, server, kind, path string, r io.Reader, scopeID, adapter, requestID string, asJSON bool, stdout, stderr io.Writer) error {
	data, err := io.ReadAll(io.LimitReader(r, maxImportData+1))
	if err != nil {
		return err
	}
	if len(data) > maxImportData {
		return domain.Errorf(domain.ETOOLARGE, "import --server takes at most %d MiB; import a larger source with --store while the server is stopped", maxImportData>>20)
	}
	c := client.FromEnv(server)
	if scopeID == "" {
		var out struct {
			S domain.Scope `json:"createScope"`
		}
		if err := c.Do(ctx, `mutation($n: String!) { createScope(name: $n) { id name } }`, map[string]any{"n": kind + " " + filepath.Base(path)}, &out); err != nil {
			return err
		}
		scopeID = out.S.ID
		fmt.Fprintf(stderr, "created scope %s\n", scopeID)
	}
	vars := map[string]any{"s": scopeID, "f": importFormats[kind], "d": string(data), "src": strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
	if adapter != "" {
		vars["a"] = adapter
	}
	if requestID != "" {
		vars["r"] = requestID
	}
	var out struct {
		R json.RawMessage `json:"importData"`
	}
	err = c.Do(ctx, `mutation($s: ID!, $f: ImportFormat!, $d: String!, $src: String, $a: String, $r: ID) {
  importData(scopeId: $s, format: $f, data: $d, source: $src, adapter: $a, requestId: $r) {
    scopeId adapter events imported skipped threads associations sessions messages turns toolCalls episodes facets embedded tookMs
    problems { line record message } } }`, vars, &out)
	if err != nil {
		return err
	}
	if asJSON {
		return printIndented(stdout, out.R)
	}
	var res struct {
		ScopeID                                                                                                  string
		Events, Imported, Skipped, Threads, Associations, Sessions, Messages, Turns, ToolCalls, Episodes, Facets int
		TookMs                                                                                                   float64
		Problems                                                                                                 []domain.SourceProblem
	}
	if err := json.Unmarshal(out.R, &res); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "scope %s: %d events (%d new, %d already imported), %d threads, %d associations, %d sessions, %d messages, %d turns, %d tool calls, %d episodes, %d facets in %s\n",
		res.ScopeID, res.Events, res.Imported, res.Skipped, res.Threads, res.Associations, res.Sessions, res.Messages, res.Turns,
		res.ToolCalls, res.Episodes, res.Facets, (time.Duration(res.TookMs * float64(time.Millisecond))).Round(time.Millisecond))
	for _, p := range res.Problems {
		where := p.Record
		if p.Line > 0 {
			where = fmt.Sprintf("line %d", p.Line)
		}
		fmt.Fprintf(stdout, "skipped %s: %s\n", where, p.Message)
	}
	return nil
}

func printIndented(w io.Writer, raw json.RawMessage) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// forkOverServer is `fork --server`: the server's forkContext, printed as JSON.
func forkOverServer(server, scope, query string, maxTurns int, stdout io.Writer) error {
	vars := map[string]any{"q": query, "n": maxTurns}
	if scope != "" {
		vars["s"] = scope
	}
	var out struct {
		F json.RawMessage `json:"forkContext"`
	}
	err := client.FromEnv(server).Do(context.Background(), `query($s: ID, $q: String!, $n: Int) { forkContext(scopeId: $s, query: $q, maxTurns: $n) {
  query totalTokens relevantTurns { scopeId score tokens
    turn { id scopeId sessionId sourceId parentTurnId queryMessageIds responseMessageId model tokenCount timestamp hasChildren toolCallCount sequence }
    session { id scopeId sourceId source model project createdAt messageCount parentSessionId isSubagent workspacePath }
    messages { id sessionId sourceId role content sequence timestamp }
    toolCalls { id sessionId messageId sourceId toolName toolNumber paramsJson resultJson status childSessionId startedAt completedAt } } } }`, vars, &out)
	if err != nil {
		return err
	}
	return printIndented(stdout, out.F)
}

// analyzeOverServer is `analyze --server`: the server's analyzeEpisodes (with the server's models).
func analyzeOverServer(server, scope, typ, definition string, force bool, stdout io.Writer) error {
	vars := map[string]any{"s": scope, "t": typ, "f": force}
	if definition != "" {
		vars["d"] = definition
	}
	var out struct {
		Runs []struct {
			EpisodeID    string                `json:"episodeId"`
			Status       domain.AnalysisStatus `json:"status"`
			ErrorMessage string                `json:"errorMessage"`
			Facets       []struct {
				ID string `json:"id"`
			} `json:"facets"`
		} `json:"analyzeEpisodes"`
	}
	err := client.FromEnv(server).Do(context.Background(), `mutation($s: ID!, $t: String!, $d: ID, $f: Boolean) {
  analyzeEpisodes(scopeId: $s, type: $t, definitionId: $d, force: $f) { episodeId status errorMessage facets { id } } }`, vars, &out)
	if err != nil {
		return err
	}
	counts := map[domain.AnalysisStatus]int{}
	facets := 0
	for _, r := range out.Runs {
		counts[r.Status]++
		facets += len(r.Facets)
		if r.Status == domain.RunFailed {
			fmt.Fprintf(stdout, "episode %s failed: %s\n", r.EpisodeID, r.ErrorMessage)
		}
	}
	fmt.Fprintf(stdout, "%s: %d runs completed, %d failed, %d facets\n", typ, counts[domain.RunCompleted], counts[domain.RunFailed], facets)
	return nil
}

// embedOverServer is `embed --server`: the server's embedMemories, with the server's model.
func embedOverServer(server, scope string, stdout io.Writer) error {
	var out struct {
		N int `json:"embedMemories"`
	}
	if err := client.FromEnv(server).Do(context.Background(), `mutation($s: ID!) { embedMemories(scopeId: $s) }`, map[string]any{"s": scope}, &out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "embedded %d memories\n", out.N)
	return nil
}

// remoteDigester runs digest passes through a running server's GraphQL API.
type remoteDigester struct{ c *client.Client }

func (d remoteDigester) run(ctx context.Context, in cortex.DigestInput) (*domain.DigestReport, error) {
	const q = `mutation($in: DigestInput!) { runDigest(input: $in) { id scopeId at evaluated proposalCount archived removed staleAfterDays } }`
	vars := map[string]any{"scopeId": in.ScopeID}
	if in.StaleAfter != nil {
		vars["staleAfterDays"] = in.StaleAfter.Hours() / 24
	}
	if in.Propose {
		vars["propose"] = true
	}
	if len(in.Archive) > 0 {
		vars["archive"] = in.Archive
	}
	if len(in.Remove) > 0 {
		vars["remove"] = in.Remove
	}
	var r struct {
		D struct {
			ID, ScopeID       string
			At                time.Time
			Evaluated         int
			ProposalCount     int
			Archived, Removed []string
			StaleAfterDays    float64
		} `json:"runDigest"`
	}
	if err := d.c.Do(ctx, q, map[string]any{"in": vars}, &r); err != nil {
		return nil, err
	}
	x := r.D
	return &domain.DigestReport{ID: x.ID, ScopeID: x.ScopeID, At: x.At, Evaluated: x.Evaluated, ProposalCount: x.ProposalCount,
		Archived: x.Archived, Removed: x.Removed, StaleAfter: time.Duration(x.StaleAfterDays * float64(24*time.Hour))}, nil
}

func (d remoteDigester) proposals(ctx context.Context, rep *domain.DigestReport, after string, first int) ([]domain.Proposal, error) {
	const q = `query($id: ID!, $first: Int, $after: ID) { digestReport(id: $id) {
		proposals(first: $first, after: $after) { artifactId family reasons { code detail referenceIds } } } }`
	vars := map[string]any{"id": rep.ID, "first": first}
	if after != "" {
		vars["after"] = after
	}
	var r struct {
		D *struct {
			Proposals []domain.Proposal
		} `json:"digestReport"`
	}
	if err := d.c.Do(ctx, q, vars, &r); err != nil {
		return nil, err
	}
	if r.D == nil {
		return nil, fmt.Errorf("digest report %s not found", rep.ID)
	}
	return r.D.Proposals, nil
}
