// Command wngen derives the lexicon's compact WordNet table from a WordNet 3.0 database folder
// (Debian's wordnet-base installs one at /usr/share/wordnet; WNSEARCHDIR names another).
//
// The table keeps what query expansion reads — the nouns: every lemma with its senses in
// WordNet's order and their tagged-sense counts, every synset with its lemmas, lexicographer
// file, hypernyms and instance hypernyms, and the irregular plurals of noun.exc; and the
// irregular forms of verbs of verb.exc ("felt" of "feel", "went" of "go") — and nothing else (no
// glosses, no other relations, no verb senses). The output depends only on the database's files, so
// running it again on the same database writes the same bytes.
//
//	go run ./internal/wngen [-dict DIR] [-out FILE] [-check]
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// magic opens every table; the loader refuses another.
const magic = "totalrecall wordnet nouns 2\n"

func main() {
	def := os.Getenv("WNSEARCHDIR")
	if def == "" {
		def = "/usr/share/wordnet"
	}
	dict := flag.String("dict", def, "WordNet database folder (data.noun, index.noun, noun.exc, verb.exc, cntlist.rev)")
	out := flag.String("out", "wordnet.tbl", "table to write")
	check := flag.Bool("check", false, "only check that -out is what -dict derives (exit 1 if not)")
	flag.Parse()
	table, err := derive(*dict)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wngen:", err)
		os.Exit(1)
	}
	if *check {
		have, err := os.ReadFile(*out)
		if err != nil || !bytes.Equal(have, table) {
			fmt.Fprintf(os.Stderr, "wngen: %s is not what %s derives; run go generate ./lexicon\n", *out, *dict)
			os.Exit(1)
		}
		return
	}
	if err := os.WriteFile(*out, table, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "wngen:", err)
		os.Exit(1)
	}
}

type synset struct {
	offset  string
	lexfile int
	lemmas  []string
	hyper   []string // hypernyms (@) and instance hypernyms (@i), offsets
	inst    []bool   // whether hyper[i] is an instance hypernym
}

// derive reads the database in dir and returns the table.
func derive(dir string) ([]byte, error) {
	sources := []string{"data.noun", "index.noun", "noun.exc", "verb.exc", "cntlist.rev"}
	sum := sha256.New()
	for _, f := range sources {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return nil, fmt.Errorf("%w (install Debian's wordnet-base, or set WNSEARCHDIR to a WordNet 3.0 dict folder)", err)
		}
		fmt.Fprintf(sum, "%s %d\n", f, len(b))
		sum.Write(b)
	}
	syns, err := readData(filepath.Join(dir, "data.noun"))
	if err != nil {
		return nil, err
	}
	synIndex := map[string]int{}
	for i, s := range syns {
		synIndex[s.offset] = i
	}
	counts, err := readCounts(filepath.Join(dir, "cntlist.rev"))
	if err != nil {
		return nil, err
	}
	// Sense keys of nouns are lemma%1:lexfile:lexid::; data.noun gives each lemma's lex id.
	lexIDs, err := readLexIDs(filepath.Join(dir, "data.noun"))
	if err != nil {
		return nil, err
	}
	type sense struct {
		syn, count int
	}
	senses := map[string][]sense{}
	f, err := os.Open(filepath.Join(dir, "index.noun"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, " ") || line == "" {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 6 {
			return nil, fmt.Errorf("index.noun: short line %q", line)
		}
		lemma := fs[0]
		nSyn, err1 := strconv.Atoi(fs[2])
		nPtr, err2 := strconv.Atoi(fs[3])
		if err1 != nil || err2 != nil || len(fs) < 6+nPtr+nSyn {
			return nil, fmt.Errorf("index.noun: bad line %q", line)
		}
		for _, off := range fs[6+nPtr : 6+nPtr+nSyn] {
			i, ok := synIndex[off]
			if !ok {
				return nil, fmt.Errorf("index.noun: %s names unknown synset %s", lemma, off)
			}
			key := fmt.Sprintf("%s%%1:%02d:%s::", lemma, syns[i].lexfile, lexIDs[off+" "+lemma])
			senses[words(lemma)] = append(senses[words(lemma)], sense{syn: i, count: counts[key]})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	exc, err := readExceptions(filepath.Join(dir, "noun.exc"), false)
	if err != nil {
		return nil, err
	}
	verbExc, err := readExceptions(filepath.Join(dir, "verb.exc"), true)
	if err != nil {
		return nil, err
	}

	lemmas := make([]string, 0, len(senses))
	for l := range senses {
		lemmas = append(lemmas, l)
	}
	// Lemmas of synsets that index.noun lacks cannot happen in WordNet 3.0; be sure.
	for _, s := range syns {
		for _, l := range s.lemmas {
			if _, ok := senses[l]; !ok {
				return nil, fmt.Errorf("data.noun: lemma %q of %s is not in index.noun", l, s.offset)
			}
		}
	}
	slices.Sort(lemmas)
	lemmaID := make(map[string]int, len(lemmas))
	for i, l := range lemmas {
		lemmaID[l] = i
	}

	var w bytes.Buffer
	w.WriteString(magic)
	w.WriteString(hex.EncodeToString(sum.Sum(nil)) + "\n")
	uv := func(v int) {
		var b [binary.MaxVarintLen64]byte
		w.Write(b[:binary.PutUvarint(b[:], uint64(v))])
	}
	// Lemmas, front-coded.
	uv(len(lemmas))
	prev := ""
	for _, l := range lemmas {
		p := 0
		for p < len(l) && p < len(prev) && l[p] == prev[p] {
			p++
		}
		uv(p)
		uv(len(l) - p)
		w.WriteString(l[p:])
		prev = l
	}
	// Senses of each lemma, in WordNet's order (most frequent first).
	for _, l := range lemmas {
		ss := senses[l]
		uv(len(ss))
		for _, s := range ss {
			uv(s.syn)
			uv(s.count)
		}
	}
	// Synsets.
	uv(len(syns))
	for _, s := range syns {
		uv(s.lexfile)
		uv(len(s.lemmas))
		for _, l := range s.lemmas {
			uv(lemmaID[l])
		}
		uv(len(s.hyper))
		for i, h := range s.hyper {
			j, ok := synIndex[h]
			if !ok {
				return nil, fmt.Errorf("data.noun: %s points to unknown synset %s", s.offset, h)
			}
			v := 2 * j
			if s.inst[i] {
				v++
			}
			uv(v)
		}
	}
	// Irregular plurals whose base form is a lemma.
	var pairs [][2]string
	for _, e := range exc {
		if _, ok := lemmaID[e[1]]; ok {
			pairs = append(pairs, e)
		}
	}
	uv(len(pairs))
	for _, p := range pairs {
		uv(len(p[0]))
		w.WriteString(p[0])
		uv(lemmaID[p[1]])
	}
	// Irregular forms of verbs and their base forms, as words: verbs have no lemmas here.
	pairs = pairs[:0]
	for _, e := range verbExc {
		if e[0] != e[1] {
			pairs = append(pairs, e)
		}
	}
	uv(len(pairs))
	for _, p := range pairs {
		uv(len(p[0]))
		w.WriteString(p[0])
		uv(len(p[1]))
		w.WriteString(p[1])
	}
	return w.Bytes(), nil
}

// words turns a WordNet lemma (underscores, any case) into lower-case words.
func words(lemma string) string { return strings.ToLower(strings.ReplaceAll(lemma, "_", " ")) }

func readData(path string) ([]synset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []synset
	err = eachDataLine(f, func(fs []string) error {
		lexfile, err := strconv.Atoi(fs[1])
		if err != nil {
			return err
		}
		n, err := strconv.ParseInt(fs[3], 16, 32)
		if err != nil {
			return err
		}
		s := synset{offset: fs[0], lexfile: lexfile}
		i := 4
		for k := 0; k < int(n); k++ {
			l := words(fs[i])
			// Adjective markers never occur on nouns, but strip one if it did.
			if j := strings.IndexByte(l, '('); j > 0 {
				l = l[:j]
			}
			if !slices.Contains(s.lemmas, l) {
				s.lemmas = append(s.lemmas, l)
			}
			i += 2
		}
		np, err := strconv.Atoi(fs[i])
		if err != nil {
			return err
		}
		i++
		for k := 0; k < np; k++ {
			sym, off, pos := fs[i], fs[i+1], fs[i+2]
			i += 4
			if pos != "n" || (sym != "@" && sym != "@i") {
				continue
			}
			s.hyper = append(s.hyper, off)
			s.inst = append(s.inst, sym == "@i")
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// readLexIDs returns the lex id (one hex digit in data.noun, two decimal digits in a sense key)
// of every "offset lemma" pair, the lemma lower-cased with underscores as in index.noun.
func readLexIDs(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	err = eachDataLine(f, func(fs []string) error {
		n, err := strconv.ParseInt(fs[3], 16, 32)
		if err != nil {
			return err
		}
		for k := 0; k < int(n); k++ {
			id, err := strconv.ParseInt(fs[5+2*k], 16, 32)
			if err != nil {
				return err
			}
			out[fs[0]+" "+strings.ToLower(fs[4+2*k])] = fmt.Sprintf("%02d", id)
		}
		return nil
	})
	return out, err
}

func eachDataLine(r io.Reader, fn func([]string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, " ") || line == "" {
			continue // the licence header
		}
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i]
		}
		fs := strings.Fields(line)
		if len(fs) < 5 {
			return fmt.Errorf("short data line %q", line)
		}
		if err := fn(fs); err != nil {
			return fmt.Errorf("data line %q: %w", fs[0], err)
		}
	}
	return sc.Err()
}

// readCounts reads cntlist.rev: sense key, sense number, tag count.
func readCounts(path string) (map[string]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		fs := strings.Fields(line)
		if len(fs) != 3 {
			continue
		}
		n, err := strconv.Atoi(fs[2])
		if err != nil {
			return nil, fmt.Errorf("cntlist.rev: %q", line)
		}
		out[strings.ToLower(fs[0])] = n
	}
	if len(out) == 0 {
		return nil, errors.New("cntlist.rev: no counts")
	}
	return out, nil
}

// readExceptions reads an exception list (noun.exc, verb.exc): an inflected form and its first
// base form (with all, each of its base forms), sorted by form.
func readExceptions(path string, all bool) ([][2]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][2]string
	for _, line := range strings.Split(string(b), "\n") {
		fs := strings.Fields(line)
		if len(fs) < 2 {
			continue
		}
		bases := fs[1:2]
		if all {
			bases = fs[1:]
		}
		for _, b := range bases {
			out = append(out, [2]string{words(fs[0]), words(b)})
		}
	}
	slices.SortFunc(out, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	return out, nil
}
