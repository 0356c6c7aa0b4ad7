package lexicon

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

//go:generate go run ./internal/wngen -out wordnet.tbl

// table is the nouns of WordNet 3.0 and the irregular forms of its verbs, as wngen derives them
// (see LICENSE.WordNet).
//
//go:embed wordnet.tbl
var table []byte

const magic = "totalrecall wordnet nouns 2\n"

// wordNet is the decoded table: flat arrays indexed by lemma and synset numbers, so the whole
// of it is a few allocations, not a map of a hundred thousand strings.
type wordNet struct {
	blob   string   // every lemma, concatenated in sorted order
	lemOff []uint32 // lemma i is blob[lemOff[i]:lemOff[i+1]]

	senseOff   []uint32 // lemma i's senses are senseSyn[senseOff[i]:senseOff[i+1]]
	senseSyn   []uint32
	senseCount []uint16 // tagged-sense counts (SemCor), capped

	lexfile   []uint8
	synLemOff []uint32 // synset j's lemmas are synLem[synLemOff[j]:synLemOff[j+1]]
	synLem    []uint32
	hyperOff  []uint32 // synset j's hypernyms are hyper[hyperOff[j]:hyperOff[j+1]] (2·k+1: instance of k)
	hyper     []uint32
	hypoOff   []uint32 // the reverse of hyper: hyponyms and instances
	hypo      []uint32

	exc     map[string]uint32   // irregular plural → lemma
	plurals map[uint32][]string // lemma → its irregular plurals (the reverse of exc)

	verbBase  map[string][]string // irregular verb form → its base forms ("felt" → "feel")
	verbForms map[string][]string // base form → its irregular forms ("feel" → "felt")
}

var (
	loadOnce sync.Once
	loaded   *wordNet
	loadErr  error
)

// load decodes the embedded table once.
func load() (*wordNet, error) {
	loadOnce.Do(func() { loaded, loadErr = decode(table) })
	return loaded, loadErr
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) uv() int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > 1<<31 {
		r.err = errors.New("lexicon: corrupt WordNet table")
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.b) {
		r.err = errors.New("lexicon: corrupt WordNet table")
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func decode(b []byte) (*wordNet, error) {
	if !strings.HasPrefix(string(b), magic) {
		return nil, errors.New("lexicon: not a WordNet table of this version")
	}
	b = b[len(magic):]
	nl := strings.IndexByte(string(b), '\n') // the sources' checksum
	if nl < 0 {
		return nil, errors.New("lexicon: corrupt WordNet table")
	}
	r := &reader{b: b[nl+1:]}
	w := &wordNet{}
	n := r.uv()
	if r.err == nil && n > len(r.b) {
		return nil, errors.New("lexicon: corrupt WordNet table")
	}
	var blob strings.Builder
	w.lemOff = make([]uint32, 0, n+1)
	prev := ""
	for i := 0; i < n && r.err == nil; i++ {
		p, s := r.uv(), r.uv()
		if p > len(prev) {
			return nil, errors.New("lexicon: corrupt WordNet table")
		}
		cur := prev[:p] + string(r.bytes(s))
		w.lemOff = append(w.lemOff, uint32(blob.Len()))
		blob.WriteString(cur)
		prev = cur
	}
	w.lemOff = append(w.lemOff, uint32(blob.Len()))
	w.blob = blob.String()
	w.senseOff = make([]uint32, 0, n+1)
	for i := 0; i < n && r.err == nil; i++ {
		w.senseOff = append(w.senseOff, uint32(len(w.senseSyn)))
		k := r.uv()
		for j := 0; j < k && r.err == nil; j++ {
			w.senseSyn = append(w.senseSyn, uint32(r.uv()))
			w.senseCount = append(w.senseCount, uint16(min(r.uv(), 65535)))
		}
	}
	w.senseOff = append(w.senseOff, uint32(len(w.senseSyn)))
	ns := r.uv()
	if r.err == nil && ns > len(r.b) {
		return nil, errors.New("lexicon: corrupt WordNet table")
	}
	w.lexfile = make([]uint8, 0, ns)
	w.synLemOff = make([]uint32, 0, ns+1)
	w.hyperOff = make([]uint32, 0, ns+1)
	for j := 0; j < ns && r.err == nil; j++ {
		w.lexfile = append(w.lexfile, uint8(r.uv()))
		w.synLemOff = append(w.synLemOff, uint32(len(w.synLem)))
		k := r.uv()
		for i := 0; i < k && r.err == nil; i++ {
			w.synLem = append(w.synLem, uint32(r.uv()))
		}
		w.hyperOff = append(w.hyperOff, uint32(len(w.hyper)))
		k = r.uv()
		for i := 0; i < k && r.err == nil; i++ {
			w.hyper = append(w.hyper, uint32(r.uv()))
		}
	}
	w.synLemOff = append(w.synLemOff, uint32(len(w.synLem)))
	w.hyperOff = append(w.hyperOff, uint32(len(w.hyper)))
	ne := r.uv()
	w.exc = make(map[string]uint32, ne)
	for i := 0; i < ne && r.err == nil; i++ {
		form := string(r.bytes(r.uv()))
		w.exc[form] = uint32(r.uv())
	}
	w.plurals = make(map[uint32][]string, len(w.exc))
	nv := r.uv()
	if r.err == nil && nv > len(r.b) {
		return nil, errors.New("lexicon: corrupt WordNet table")
	}
	w.verbBase = make(map[string][]string, nv)
	w.verbForms = make(map[string][]string, nv)
	for i := 0; i < nv && r.err == nil; i++ {
		form := string(r.bytes(r.uv()))
		base := string(r.bytes(r.uv()))
		w.verbBase[form] = append(w.verbBase[form], base)
		w.verbForms[base] = append(w.verbForms[base], form)
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("lexicon: %d bytes after the WordNet table", len(r.b))
	}
	for _, s := range w.senseSyn {
		if int(s) >= ns {
			return nil, errors.New("lexicon: corrupt WordNet table")
		}
	}
	for _, l := range w.synLem {
		if int(l) >= n {
			return nil, errors.New("lexicon: corrupt WordNet table")
		}
	}
	for form, l := range w.exc {
		if int(l) >= n {
			return nil, errors.New("lexicon: corrupt WordNet table")
		}
		w.plurals[l] = append(w.plurals[l], form)
	}
	for _, fs := range w.plurals {
		sort.Strings(fs) // the map gave them in no order
	}
	// Hyponyms: the reverse of the hypernym arrays, counted then filled.
	w.hypoOff = make([]uint32, ns+1)
	for _, h := range w.hyper {
		if int(h/2) >= ns {
			return nil, errors.New("lexicon: corrupt WordNet table")
		}
		w.hypoOff[h/2+1]++
	}
	for j := 0; j < ns; j++ {
		w.hypoOff[j+1] += w.hypoOff[j]
	}
	w.hypo = make([]uint32, len(w.hyper))
	fill := append([]uint32(nil), w.hypoOff[:ns]...)
	for j := 0; j < ns; j++ {
		for _, h := range w.hyper[w.hyperOff[j]:w.hyperOff[j+1]] {
			w.hypo[fill[h/2]] = uint32(2*j) | h&1
			fill[h/2]++
		}
	}
	return w, nil
}

func (w *wordNet) lemma(i uint32) string { return w.blob[w.lemOff[i]:w.lemOff[i+1]] }

// find returns the number of lemma s.
func (w *wordNet) find(s string) (uint32, bool) {
	n := len(w.lemOff) - 1
	i := sort.Search(n, func(i int) bool { return w.lemma(uint32(i)) >= s })
	if i < n && w.lemma(uint32(i)) == s {
		return uint32(i), true
	}
	return 0, false
}

// nounForms returns the lemmas an inflected noun may be a form of: itself, its irregular base,
// and the bases of WordNet's detachment rules for nouns (morphy), each a lemma of the table.
func (w *wordNet) nounForms(s string) []uint32 {
	var out []uint32
	add := func(form string) {
		if i, ok := w.find(form); ok {
			for _, o := range out {
				if o == i {
					return
				}
			}
			out = append(out, i)
		}
	}
	if i, ok := w.exc[s]; ok {
		out = append(out, i)
	}
	add(s)
	for _, r := range nounRules {
		if strings.HasSuffix(s, r[0]) && len(s) > len(r[0]) {
			add(s[:len(s)-len(r[0])] + r[1])
		}
	}
	return out
}

// nounRules are WordNet's detachment rules for nouns (morphy(7WN)), plus "ies" → "y".
var nounRules = [][2]string{{"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}, {"s", ""}}

// used is how many times annotators tagged lemma i in the sense of synset s.
func (w *wordNet) used(i, s uint32) int {
	for k := w.senseOff[i]; k < w.senseOff[i+1]; k++ {
		if w.senseSyn[k] == s {
			return int(w.senseCount[k])
		}
	}
	return 0
}
