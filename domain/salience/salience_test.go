package salience

import (
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

func TestBounds(t *testing.T) {
	for _, tier := range domain.Tiers {
		for _, imp := range []float64{0, 0.5, 1} {
			s := Initial(tier, imp)
			if s < 0 || s > 1 {
				t.Fatalf("Initial(%s, %v) = %v", tier, imp, s)
			}
			for i := 0; i < 100; i++ {
				s = Claimed(Accessed(s))
			}
			if s < 0 || s > 1 {
				t.Fatalf("score left 0..1: %v", s)
			}
		}
	}
	if got, want := Initial(domain.TierIdentityCore, 0), 0.6; got != want {
		t.Fatalf("Initial core = %v, want %v", got, want)
	}
	if Claimed(0.4) <= Accessed(0.4) {
		t.Fatalf("a claim must weigh more than an access")
	}
}
