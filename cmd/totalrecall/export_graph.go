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

// graphExport holds export's flags for a scope's graph; --format makes the export that graph
// for graph tools rather than the JSON Lines dump of the whole store.
type graphExport struct {
	scope, format, server *string
}

func registerGraphExport(fs *flag.FlagSet) graphExport {
	return graphExport{
		scope:  fs.String("scope", "", "with --format: the scope to export"),
		format: fs.String("format", "", "graphml, gexf or cyjs: one scope's graph for graph tools instead of the whole dump"),
		server: fs.String("server", "", "export from this running server (http://HOST:PORT) instead of opening the store: the dump, or with --format the scope's graph (with --format its default is $TOTALRECALL_SERVER, else "+client.DefaultServer+")"),
	}
}

// asked reports whether the flags given ask for a scope's graph (--format or --scope); --server
// alone asks for the dump of that server.
func (g graphExport) asked(fs *flag.FlagSet) bool {
	asked := false
	fs.Visit(func(f *flag.Flag) { asked = asked || f.Name == "format" || f.Name == "scope" })
	return asked
}

// exportGraph writes one scope's graph as GraphML, GEXF or Cytoscape JSON: fetched from the
// running server (GET /export/SCOPE.FORMAT; --server, else $TOTALRECALL_SERVER, else
// 127.0.0.1:8080, with $TOTALRECALL_KEY), or read from a data folder no server holds (--store).
func exportGraph(fs *flag.FlagSet, sf storeFlags, g graphExport, out *string, stdout io.Writer) error {
	scope, format, server := g.scope, g.format, g.server
	if fs.NArg() > 0 {
		return fmt.Errorf("export: unexpected argument %q", fs.Arg(0))
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
