package cortex

import (
	"math"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

// FuzzCheckAssociate feeds every field of an association command. The check never panics,
// refuses with INVALID_ARGUMENT naming a field, and what it accepts has two canonical ids, a
// known type and direction, a strength in 0..1 and caller tokens fit to store.
func FuzzCheckAssociate(f *testing.F) {
	id := "9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e"
	f.Add(id, id, "CAUSAL", "", 0.5, "", "")
	f.Add(id, "", "THEMATIC", "WEAKEN", 1.0, "req-1", "sess-1")
	f.Add("x", id, "causal", "create", -0.1, " ", "\x00")
	f.Add(id, id, "PERSON", "STRENGTHEN", math.NaN(), "\xff", "ok")
	f.Add(id, id, "TEMPORAL", "", math.Inf(-1), `"}) { uid }`, "<_:a> <p> * .")
	f.Fuzz(func(t *testing.T, src, dst, typ, dir string, strength float64, req, sess string) {
		in := AssociateInput{SourceID: src, TargetID: dst, Type: domain.AssociationType(typ), Direction: domain.Direction(dir),
			Strength: strength, RequestID: req, SessionID: sess}
		err := checkAssociate(&in)
		if err != nil {
			if de, ok := err.(*domain.Error); !ok || de.Code != domain.EINVALID || de.Field == "" {
				t.Fatalf("refused with %v: want INVALID_ARGUMENT naming a field", err)
			}
			return
		}
		if !domain.ValidID(in.SourceID) || !domain.ValidID(in.TargetID) || !in.Type.Valid() || !in.Direction.Valid() ||
			!(in.Strength >= 0 && in.Strength <= 1) {
			t.Fatalf("accepted %+v", in)
		}
		for _, tok := range []string{in.RequestID, in.SessionID} {
			if tok != "" && checkToken("token", tok) != nil {
				t.Fatalf("accepted token %q", tok)
			}
		}
	})
}
