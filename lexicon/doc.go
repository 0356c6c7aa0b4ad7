// Package lexicon expands search queries with what a lexical database knows of their words, so
// that a search finds what a query means and not only what it says: "martial arts" reaches
// "taekwondo", "European countries" reaches "Spain", and a member named in a query reaches its
// category, and a word reaches its irregular forms ("feel" → "felt", "child" → "children"). The
// database is the nouns of WordNet 3.0 and the irregular forms of its verbs, as a compact table
// embedded in the binary
// (wordnet.tbl, derived by `go generate` from Debian's wordnet-base; see LICENSE.WordNet): the
// server needs nothing installed and answers the same everywhere. It implements domain.Lexicon.
package lexicon
