package domain

// Expansion is a word or phrase a query did not say but may mean: a synonym, a member of a
// category it names, the category of a member it names.
type Expansion struct {
	// Text is the words, lower case, as a query would say them.
	Text string
	// Weight is how much a match of Text counts beside a match of the query's own word, 0..1.
	Weight float64
	// Of is the query's word (or collocation) it stands for; Relation how (SYNONYM, HYPONYM,
	// INSTANCE, HYPERNYM).
	Of, Relation string
}

// Lexicon relates the words of a query to others by what a lexical database knows. Safe for
// concurrent use.
type Lexicon interface {
	// Expand returns the expansions of text, heaviest first.
	Expand(text string) []Expansion
}
