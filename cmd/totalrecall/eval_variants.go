package main

import (
	"fmt"
	"io"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/recall"
	"github.com/totalrecall/totalrecall/lexicon"
)

// An eval variant is the same questions asked of the same import through another ranking: the
// previous method (this ranking without what it added since its first measure: the lexicon's
// expansions, the answers, the time questions, the neighbours two turns away and the spread of
// list questions over episodes),
// and, with --sensitivity, the ranking with one weight halved or doubled at a time.
type evalVariant struct {
	name   string
	group  string // "" for the previous method; the weight's name for a sensitivity row
	factor float64
	rec    *recall.Recall
	sums   *recallSums
	byCat  map[int]*recallSums
}

// previousWeights are the weights of the method before the lexicon's expansions.
func previousWeights() recall.Weights {
	w := recall.DefaultWeights
	w.Lexical, w.Answer, w.Told, w.When, w.Order, w.Diversity, w.Neighbour2, w.Facet = 0, 0, 0, 0, 0, 0, 0, 0
	return w
}

// evalVariants builds the variants over st and idx; emb is the hybrid search's embedder, if any.
func evalVariants(st domain.Store, idx domain.Index, emb domain.Embedder, sensitivity bool) ([]*evalVariant, error) {
	lex, err := lexicon.New()
	if err != nil {
		return nil, err
	}
	prev := previousWeights()
	out := []*evalVariant{{name: "previous method (no expansion, answers, time questions, two turns or diversity)", rec: &recall.Recall{Store: st, Index: idx, Embedder: emb, Weights: &prev}}}
	if emb != nil {
		// What the hybrid search adds: the same ranking without the model.
		out = append(out, &evalVariant{name: "without the embedder (no model)", rec: &recall.Recall{Store: st, Index: idx, Lexicon: lex}})
	}
	if !sensitivity {
		return out, nil
	}
	type knob struct {
		name string
		set  func(w *recall.Weights, p *lexicon.Params, f float64)
	}
	knobs := []knob{
		{"Wn (neighbour)", func(w *recall.Weights, _ *lexicon.Params, f float64) { w.Neighbour *= f }},
		{"Wm (two turns)", func(w *recall.Weights, _ *lexicon.Params, f float64) { w.Neighbour2 *= f }},
		{"Wa (answer)", func(w *recall.Weights, _ *lexicon.Params, f float64) { w.Answer *= f }},
		{"We (episode)", func(w *recall.Weights, _ *lexicon.Params, f float64) { w.Episode *= f }},
		{"Wp (person)", func(w *recall.Weights, _ *lexicon.Params, f float64) { w.Person *= f }},
		{"Wc (time cue)", func(w *recall.Weights, _ *lexicon.Params, f float64) { w.TimeCue *= f }},
		{"Wd (told date)", func(w *recall.Weights, _ *lexicon.Params, f float64) { w.Told *= f }},
		{"Ww (says when)", func(w *recall.Weights, _ *lexicon.Params, f float64) { w.When *= f }},
		{"Wo (order)", func(w *recall.Weights, _ *lexicon.Params, f float64) { w.Order *= f }},
		{"Wx (lexical)", func(w *recall.Weights, _ *lexicon.Params, f float64) { w.Lexical *= f }},
		{"Wv (diversity)", func(w *recall.Weights, _ *lexicon.Params, f float64) { w.Diversity *= f }},
		{"Wf (facet)", func(w *recall.Weights, _ *lexicon.Params, f float64) { w.Facet *= f }},
		{"inflection", func(_ *recall.Weights, p *lexicon.Params, f float64) { p.WInflection *= f }},
		{"synonym", func(_ *recall.Weights, p *lexicon.Params, f float64) { p.WSynonym *= f }},
		{"hyponym", func(_ *recall.Weights, p *lexicon.Params, f float64) { p.WHyponym *= f }},
		{"hypernym", func(_ *recall.Weights, p *lexicon.Params, f float64) { p.WHypernym *= f }},
		{"depth decay", func(_ *recall.Weights, p *lexicon.Params, f float64) { p.Decay *= f }},
	}
	for _, k := range knobs {
		for _, f := range []float64{0.5, 2} {
			w, p := recall.DefaultWeights, lexicon.DefaultParams
			k.set(&w, &p, f)
			l := lex
			if p != lexicon.DefaultParams {
				if l, err = lexicon.NewWith(p); err != nil {
					return nil, err
				}
			}
			out = append(out, &evalVariant{name: fmt.Sprintf("%s ×%g", k.name, f), group: k.name, factor: f,
				rec: &recall.Recall{Store: st, Index: idx, Embedder: emb, Lexicon: l, Weights: &w}})
		}
	}
	return out, nil
}

// spreadWeight is the weight Wg of spreading activation the eval measures where it has something
// to spread over: off in the ranking (recall.WAssociate is 0, it did not help), the eval shows what
// it would do, and with it halved and doubled.
const spreadWeight = 0.5

// storeVariants are the variants asked of the conversations stored through storeMemory, where
// the Synapse made PERSON and THEMATIC associations (an import makes none): the previous method
// (the import's first variant, with sums of its own here), the ranking without spreading over
// facets, and the ranking with spreading activation over those associations at Wg =
// spreadWeight, halved and doubled.
func storeVariants(st domain.Store, idx domain.Index, emb domain.Embedder, imported []*evalVariant) ([]*evalVariant, error) {
	var out []*evalVariant
	if len(imported) > 0 {
		out = append(out, &evalVariant{name: imported[0].name, rec: imported[0].rec})
	}
	lex, err := lexicon.New()
	if err != nil {
		return nil, err
	}
	// What spreading over facets brings where the Synapse has also connected the memories.
	noFacet := recall.DefaultWeights
	noFacet.Facet = 0
	out = append(out, &evalVariant{name: "without spreading over facets (Wf 0)", rec: &recall.Recall{Store: st, Index: idx, Embedder: emb, Lexicon: lex, Weights: &noFacet}})
	for _, f := range []float64{1, 0.5, 2} {
		w := recall.DefaultWeights
		w.Associate = spreadWeight * f
		v := &evalVariant{name: fmt.Sprintf("with spreading activation (Wg %g)", spreadWeight), rec: &recall.Recall{Store: st, Index: idx, Embedder: emb, Lexicon: lex, Weights: &w}}
		if f != 1 {
			v.name, v.group, v.factor = fmt.Sprintf("Wg (association) ×%g", f), "Wg (association)", f
		}
		out = append(out, v)
	}
	return out, nil
}

func (v *evalVariant) add(category int, ranked, evidence []string) {
	if v.sums == nil {
		v.sums, v.byCat = &recallSums{}, map[int]*recallSums{}
	}
	v.sums.add(ranked, evidence)
	cat(v.byCat, category).add(ranked, evidence)
}

// printVariants prints the previous method's rows beside the ranking's, then the sensitivity
// table: recall@10 overall and per category with each weight halved and doubled.
func printVariants(w io.Writer, r *evalResult) {
	if len(r.Variants) == 0 {
		return
	}
	fmt.Fprintln(w)
	printVariantRows(w, r.Variants, "same import")
	printSensitivity(w, r.Variants, r.Overall, r.ByCategory, "", "as used")
}

// printSensitivity prints the sensitivity rows of variants: recall@10 overall and per category
// with each weight halved and doubled, beside the ranking as used (overall, byCat).
func printSensitivity(w io.Writer, variants []*evalVariant, overall *recallSums, byCat map[int]*recallSums, path, base string) {
	at10 := 2 // index of k=10 in evalKs
	var sens []*evalVariant
	for _, v := range variants {
		if v.group != "" && v.sums != nil {
			sens = append(sens, v)
		}
	}
	if len(sens) == 0 {
		return
	}
	fmt.Fprintf(w, "\nsensitivity%s: recall@10 with one weight halved / doubled (%s: overall %.3f, multi-hop %.3f)\n",
		path, base, overall.at(at10), cat(byCat, 1).at(at10))
	fmt.Fprintf(w, "%-18s %15s %15s %15s %15s %15s\n", "weight", "overall", "multi-hop", "temporal", "open-domain", "single-hop")
	for i := 0; i+1 < len(sens); i += 2 {
		h, d := sens[i], sens[i+1]
		fmt.Fprintf(w, "%-18s %7.3f/%.3f", h.group, h.sums.at(at10), d.sums.at(at10))
		for c := 1; c <= 4; c++ {
			fmt.Fprintf(w, " %7.3f/%.3f", cat(h.byCat, c).at(at10), cat(d.byCat, c).at(at10))
		}
		fmt.Fprintln(w)
	}
}

// printVariantRows prints recall@k overall and per category of each variant that is not a
// sensitivity row (the previous method, without the embedder, without spreading activation).
func printVariantRows(w io.Writer, variants []*evalVariant, path string) {
	for _, v := range variants {
		if v.group != "" || v.sums == nil {
			continue
		}
		fmt.Fprintf(w, "%s, %s, same run\n", v.name, path)
		fmt.Fprintf(w, "%-24s", "overall")
		for i := range evalKs {
			fmt.Fprintf(w, " %8.3f", v.sums.at(i))
		}
		fmt.Fprintln(w)
		for c := 1; c <= 4; c++ {
			if s, ok := v.byCat[c]; ok {
				fmt.Fprintf(w, "%-24s", fmt.Sprintf("%d %s (%d)", c, locomoCategories[c], s.n))
				for i := range evalKs {
					fmt.Fprintf(w, " %8.3f", s.at(i))
				}
				fmt.Fprintln(w)
			}
		}
	}
}
