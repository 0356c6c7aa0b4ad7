package web

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/graph/formats/cytoscapejs"
	"gonum.org/v1/gonum/graph/formats/gexf12"

	"github.com/totalrecall/totalrecall/domain"
)

// Format is a graph file format a scope's graph is exported in.
type Format string

const (
	// GraphML (graphml.graphdrawing.org), read by yEd, Gephi, NetworkX, igraph, Cytoscape.
	GraphML Format = "graphml"
	// GEXF 1.2, Gephi's own: nodes carry occurredAt as their start, so its timeline works.
	GEXF Format = "gexf"
	// Cytoscape JSON (.cyjs), read by Cytoscape desktop and cytoscape.js.
	CYJS Format = "cyjs"
)

// Formats lists every export format.
var Formats = []Format{GraphML, GEXF, CYJS}

// ParseFormat reads a format name (graphml, gexf or cyjs). Errors: INVALID_ARGUMENT.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if strings.EqualFold(s, string(f)) {
			return f, nil
		}
	}
	return "", domain.FieldErrorf("format", "unknown format %q: want graphml, gexf or cyjs", s)
}

// ContentType is the media type of a file of the format.
func (f Format) ContentType() string {
	switch f {
	case GraphML:
		return "application/graphml+xml; charset=utf-8"
	case GEXF:
		return "application/gexf+xml; charset=utf-8"
	}
	return "application/json; charset=utf-8"
}

// GraphSource is what an export reads: a scope and its whole graph (the Cortex).
type GraphSource interface {
	Scope(ctx context.Context, id string) (*domain.Scope, error)
	ScopeGraph(ctx context.Context, scopeID string, nodes func([]*domain.GraphNode) error, edges func([]*domain.GraphEdge) error) error
}

// ExportCounts says how much an export wrote.
type ExportCounts struct {
	Nodes, Edges int
}

// WriteGraph writes the scope's whole graph to w in format f, streaming: nodes and edges are
// written as the source hands them over, never all held at once. Node attributes: kind, label,
// tier, salience, state, occurredAt; edge attributes: kind, type, strength. Associations are
// undirected edges, the other kinds directed. Errors: INVALID_ARGUMENT, NOT_FOUND, and the
// source's and w's.
func WriteGraph(ctx context.Context, src GraphSource, scopeID string, f Format, w io.Writer) (ExportCounts, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return ExportCounts{}, err
	}
	sc, err := src.Scope(ctx, scopeID)
	if err != nil {
		return ExportCounts{}, err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var x exporter
	switch f {
	case GraphML:
		x = &graphmlWriter{w: bw}
	case GEXF:
		x = &gexfWriter{w: bw}
	case CYJS:
		x = &cyjsWriter{w: bw}
	default:
		return ExportCounts{}, domain.FieldErrorf("format", "unknown format %q: want graphml, gexf or cyjs", f)
	}
	var n ExportCounts
	if err := x.begin(sc); err != nil {
		return n, err
	}
	inEdges := false
	err = src.ScopeGraph(ctx, scopeID, func(ns []*domain.GraphNode) error {
		for _, node := range ns {
			if err := x.node(node); err != nil {
				return err
			}
			n.Nodes++
		}
		return nil
	}, func(es []*domain.GraphEdge) error {
		if !inEdges {
			inEdges = true
			if err := x.between(); err != nil {
				return err
			}
		}
		for _, e := range es {
			if err := x.edge(n.Edges, e); err != nil {
				return err
			}
			n.Edges++
		}
		return nil
	})
	if err != nil {
		return n, err
	}
	if !inEdges {
		if err := x.between(); err != nil {
			return n, err
		}
	}
	if err := x.end(); err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// exporter writes one format: begin, the nodes, between, the edges, end.
type exporter interface {
	begin(sc *domain.Scope) error
	node(n *domain.GraphNode) error
	between() error
	edge(i int, e *domain.GraphEdge) error
	end() error
}

func timeText(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func floatText(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// xmlText escapes s for XML; characters XML cannot carry become U+FFFD.
func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// nodeAttrs are a node's attributes in a fixed order, the empty ones left out.
func nodeAttrs(n *domain.GraphNode) [][2]string {
	out := [][2]string{{"kind", string(n.Kind)}, {"label", n.Label}}
	if n.Tier != "" {
		out = append(out, [2]string{"tier", string(n.Tier)})
	}
	if n.Salience != nil {
		out = append(out, [2]string{"salience", floatText(*n.Salience)})
	}
	out = append(out, [2]string{"state", string(n.State)})
	if n.OccurredAt != nil {
		out = append(out, [2]string{"occurredAt", timeText(n.OccurredAt)})
	}
	return out
}

func edgeAttrs(e *domain.GraphEdge) [][2]string {
	out := [][2]string{{"kind", string(e.Kind)}}
	if e.Type != "" {
		out = append(out, [2]string{"type", e.Type})
	}
	if e.Strength != nil {
		out = append(out, [2]string{"strength", floatText(*e.Strength)})
	}
	return out
}

// ---- GraphML ----

type graphmlWriter struct{ w *bufio.Writer }

var graphmlKeys = []struct{ id, for_, name, typ string }{
	{"n_kind", "node", "kind", "string"},
	{"n_label", "node", "label", "string"},
	{"n_tier", "node", "tier", "string"},
	{"n_salience", "node", "salience", "double"},
	{"n_state", "node", "state", "string"},
	{"n_occurredAt", "node", "occurredAt", "string"},
	{"e_kind", "edge", "kind", "string"},
	{"e_type", "edge", "type", "string"},
	{"e_strength", "edge", "strength", "double"},
	{"g_name", "graph", "name", "string"},
}

func (g *graphmlWriter) begin(sc *domain.Scope) error {
	g.w.WriteString(xml.Header)
	g.w.WriteString(`<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"` +
		` xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">` + "\n")
	for _, k := range graphmlKeys {
		fmt.Fprintf(g.w, "  <key id=%q for=%q attr.name=%q attr.type=%q/>\n", k.id, k.for_, k.name, k.typ)
	}
	fmt.Fprintf(g.w, "  <graph id=\"%s\" edgedefault=\"directed\">\n    <data key=\"g_name\">%s</data>\n", xmlText(sc.ID), xmlText(sc.Name))
	return nil
}

func (g *graphmlWriter) node(n *domain.GraphNode) error {
	fmt.Fprintf(g.w, "    <node id=\"%s\">", xmlText(n.ID))
	for _, a := range nodeAttrs(n) {
		fmt.Fprintf(g.w, "<data key=\"n_%s\">%s</data>", a[0], xmlText(a[1]))
	}
	_, err := g.w.WriteString("</node>\n")
	return err
}

func (g *graphmlWriter) between() error { return nil }

func (g *graphmlWriter) edge(i int, e *domain.GraphEdge) error {
	directed := ""
	if e.Kind == domain.EdgeAssociation {
		directed = ` directed="false"`
	}
	fmt.Fprintf(g.w, "    <edge id=\"e%d\" source=\"%s\" target=\"%s\"%s>", i, xmlText(e.Source), xmlText(e.Target), directed)
	for _, a := range edgeAttrs(e) {
		fmt.Fprintf(g.w, "<data key=\"e_%s\">%s</data>", a[0], xmlText(a[1]))
	}
	_, err := g.w.WriteString("</edge>\n")
	return err
}

func (g *graphmlWriter) end() error {
	_, err := g.w.WriteString("  </graph>\n</graphml>\n")
	return err
}

// ---- GEXF 1.2 ----

type gexfWriter struct {
	w   *bufio.Writer
	enc *xml.Encoder
}

var (
	gexfNodeAttrs = []gexf12.Attribute{{ID: "kind", Title: "kind", Type: "string"}, {ID: "tier", Title: "tier", Type: "string"},
		{ID: "salience", Title: "salience", Type: "double"}, {ID: "state", Title: "state", Type: "string"},
		{ID: "occurredAt", Title: "occurredAt", Type: "string"}}
	gexfEdgeAttrs = []gexf12.Attribute{{ID: "kind", Title: "kind", Type: "string"}, {ID: "type", Title: "type", Type: "string"},
		{ID: "strength", Title: "strength", Type: "double"}}
)

func (g *gexfWriter) begin(sc *domain.Scope) error {
	g.enc = xml.NewEncoder(g.w)
	g.w.WriteString(xml.Header)
	g.w.WriteString(`<gexf xmlns="http://www.gexf.net/1.2draft" xmlns:viz="http://www.gexf.net/1.2draft/viz" version="1.2">` + "\n")
	fmt.Fprintf(g.w, "<meta><creator>totalrecall</creator><description>%s</description></meta>", xmlText("scope "+sc.Name+" ("+sc.ID+")"))
	// Dynamic: a node with occurredAt exists from then on, so Gephi's timeline plays the scope.
	g.w.WriteString("\n" + `<graph mode="dynamic" defaultedgetype="directed" timeformat="dateTime" timerepresentation="interval">` + "\n")
	for _, a := range []gexf12.Attributes{{Class: "node", Mode: "static", Attributes: gexfNodeAttrs}, {Class: "edge", Mode: "static", Attributes: gexfEdgeAttrs}} {
		if err := g.enc.EncodeElement(a, xml.StartElement{Name: xml.Name{Local: "attributes"}}); err != nil {
			return err
		}
	}
	_, err := g.w.WriteString("\n<nodes>\n")
	return err
}

func (g *gexfWriter) node(n *domain.GraphNode) error {
	x := gexf12.Node{ID: n.ID, Label: n.Label, Start: timeText(n.OccurredAt), AttValues: &gexf12.AttValues{}}
	for _, a := range nodeAttrs(n) {
		if a[0] != "label" {
			x.AttValues.AttValues = append(x.AttValues.AttValues, gexf12.AttValue{For: a[0], Value: a[1]})
		}
	}
	if err := g.enc.EncodeElement(x, xml.StartElement{Name: xml.Name{Local: "node"}}); err != nil {
		return err
	}
	return g.w.WriteByte('\n')
}

func (g *gexfWriter) between() error {
	_, err := g.w.WriteString("</nodes>\n<edges>\n")
	return err
}

func (g *gexfWriter) edge(i int, e *domain.GraphEdge) error {
	x := gexf12.Edge{ID: "e" + strconv.Itoa(i), Source: e.Source, Target: e.Target, Label: e.Type, AttValues: &gexf12.AttValues{}}
	if e.Kind == domain.EdgeAssociation {
		x.Type = "undirected"
	}
	if e.Strength != nil {
		x.Weight = *e.Strength
	}
	for _, a := range edgeAttrs(e) {
		x.AttValues.AttValues = append(x.AttValues.AttValues, gexf12.AttValue{For: a[0], Value: a[1]})
	}
	if err := g.enc.EncodeElement(x, xml.StartElement{Name: xml.Name{Local: "edge"}}); err != nil {
		return err
	}
	return g.w.WriteByte('\n')
}

func (g *gexfWriter) end() error {
	_, err := g.w.WriteString("</edges>\n</graph>\n</gexf>\n")
	return err
}

// ---- Cytoscape JSON ----

type cyjsWriter struct {
	w     *bufio.Writer
	first bool
}

func (c *cyjsWriter) begin(sc *domain.Scope) error {
	head, err := json.Marshal(map[string]any{"scopeId": sc.ID, "name": sc.Name, "shared_name": sc.Name})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.w, `{"format_version":"1.0","generated_by":"totalrecall","target_cytoscapejs_version":"~3.34","data":%s,"elements":{"nodes":[`, head)
	c.first = true
	return nil
}

func (c *cyjsWriter) sep() {
	if !c.first {
		c.w.WriteByte(',')
	}
	c.first = false
	c.w.WriteByte('\n')
}

func (c *cyjsWriter) node(n *domain.GraphNode) error {
	attrs := map[string]any{}
	for _, a := range nodeAttrs(n) {
		attrs[a[0]] = a[1]
	}
	if n.Salience != nil {
		attrs["salience"] = *n.Salience
	}
	raw, err := json.Marshal(&cytoscapejs.Node{Data: cytoscapejs.NodeData{ID: n.ID, Attributes: attrs}})
	if err != nil {
		return err
	}
	c.sep()
	_, err = c.w.Write(raw)
	return err
}

func (c *cyjsWriter) between() error {
	c.w.WriteString("],\"edges\":[")
	c.first = true
	return nil
}

func (c *cyjsWriter) edge(i int, e *domain.GraphEdge) error {
	attrs := map[string]any{"directed": e.Kind != domain.EdgeAssociation}
	for _, a := range edgeAttrs(e) {
		attrs[a[0]] = a[1]
	}
	if e.Strength != nil {
		attrs["strength"] = *e.Strength
	}
	raw, err := json.Marshal(&cytoscapejs.Edge{Data: cytoscapejs.EdgeData{ID: "e" + strconv.Itoa(i), Source: e.Source, Target: e.Target, Attributes: attrs}})
	if err != nil {
		return err
	}
	c.sep()
	_, err = c.w.Write(raw)
	return err
}

func (c *cyjsWriter) end() error {
	_, err := c.w.WriteString("\n]}}\n")
	return err
}
