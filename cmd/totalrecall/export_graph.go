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
	"strings"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/web"
)

// graphFormatAsked reports whether export's arguments name a graph format (--format), which
// makes the export a scope's graph for graph tools rather than the JSON Lines dump.
func graphFormatAsked(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "-format" || a == "--format" || strings.HasPrefix(a, "-format=") || strings.HasPrefix(a, "--format=") {
			return true
		}
	}
	return false
}

// exportGraph writes one scope's graph as GraphML, GEXF or Cytoscape JSON: fetched from the
// running server (GET /export/SCOPE.FORMAT; --server, else $TOTALRECALL_SERVER, else
// 127.0.0.1:8080, with $TOTALRECALL_KEY), or read from a data folder no server holds (--store).
func exportGraph(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("export --format", flag.ContinueOnError)
	var sf storeFlags
	sf.register(fs)
	scope := fs.String("scope", "", "the scope to export (required)")
	format := fs.String("format", "", "graphml, gexf or cyjs")
	server := fs.String("server", "", "the running server to export from (default $TOTALRECALL_SERVER or "+client.DefaultServer+")")
	out := fs.String("out", "-", "file to write (- for standard output)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	local := false
	fs.Visit(func(f *flag.Flag) { local = local || f.Name == "store" || f.Name == "index" })
	f, err := web.ParseFormat(*format)
	if err != nil {
		return fmt.Errorf("export --format %q: want graphml, gexf or cyjs", *format)
	}
	if err := domain.CheckID("scope", *scope); err != nil {
		return fmt.Errorf("export --scope: %s", domain.ErrorMessage(err))
	}
	if local && *server != "" {
		return errors.New("export: give --server or --store, not both")
	}
	ctx := context.Background()
	var w io.Writer = stdout
	var file *os.File
	if *out != "-" {
		if file, err = os.Create(*out); err != nil {
			return err
		}
		w = file
	}
	n, err := func() (web.ExportCounts, error) {
		if !local {
			return exportGraphFromServer(ctx, client.FromEnv(*server), *scope, f, w)
		}
		return exportGraphFromFolder(ctx, sf, *scope, f, w)
	}()
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(*out)
		}
	}
	if err != nil {
		return fmt.Errorf("export: %s", domain.ErrorMessage(err))
	}
	switch {
	case *out == "-":
	case n.Nodes >= 0:
		fmt.Fprintf(stdout, "exported scope %s as %s to %s (%d nodes, %d edges)\n", *scope, f, *out, n.Nodes, n.Edges)
	default:
		fmt.Fprintf(stdout, "exported scope %s as %s to %s\n", *scope, f, *out)
	}
	return nil
}

// exportGraphFromServer copies the server's export; it counts nothing (-1).
func exportGraphFromServer(ctx context.Context, c *client.Client, scope string, f web.Format, w io.Writer) (web.ExportCounts, error) {
	resp, err := c.Get(ctx, "/export/"+scope+"."+string(f))
	if err != nil {
		return web.ExportCounts{}, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return web.ExportCounts{}, domain.Errorf(domain.EUNAVAILABLE, "the export from %s broke off after %d bytes: %v", c.Base(), n, err)
	}
	return web.ExportCounts{Nodes: -1, Edges: -1}, nil
}

// exportGraphFromFolder reads the graph from a data folder (or a cluster) directly.
func exportGraphFromFolder(ctx context.Context, sf storeFlags, scope string, f web.Format, w io.Writer) (web.ExportCounts, error) {
	if root, ok := strings.CutPrefix(sf.store, "file://"); ok && root != "" && graphFolderHeld(filepath.Join(root, "graph")) {
		return web.ExportCounts{}, domain.Errorf(domain.EUNAVAILABLE,
			"the data folder %s is held by a running server: export from it with --server URL instead of --store", root)
	}
	st, idx, cx, err := sf.open(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return web.ExportCounts{}, err
	}
	defer st.Close()
	defer idx.Close()
	defer cx.Close()
	return web.WriteGraph(ctx, cx, scope, f, w)
}
