package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// clean prepares text for the analysers, at index and at query time alike. The Unicode word
// segmenter keeps invisible characters inside words ("gopher" after a zero-width space or
// before a bidi mark is another token) and stops at invalid UTF-8, so:
//   - invalid UTF-8 bytes and control characters become spaces;
//   - the zero-width space, a word break, becomes a space;
//   - other format characters (soft hyphen, joiners, bidi marks, BOM) are dropped, so the
//     word they sit in reads as it displays.
//
// Text without any of these is returned as is, without copying.
func clean(s string) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				return rebuild(s, i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return rebuild(s, i)
		}
		i += size
	}
	return s
}

// rebuild cleans s from byte i on; s[:i] needs no change.
func rebuild(s string, i int) string {
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1, r == '\u200b':
			b.WriteByte(' ')
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteRune(r)
		case unicode.IsControl(r):
			b.WriteByte(' ')
		case unicode.Is(unicode.Cf, r):
			// dropped
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
