// Package salience is the Salience context: it scores how much a memory matters, in 0..1.
//
// A new memory starts at its tier's base plus the caller's importance hint:
//
//	initial = clamp(base(tier) + 0.4·importance)   base: IDENTITY_CORE 0.6, ACTIVE_CONTEXT 0.4,
//	                                                      LONG_TERM 0.3, ARCHIVE 0.1
//
// A retrieval moves the score a tenth of the way to 1, a claim a third of the way; both are
// bounded, so no sequence of events leaves 0..1.
package salience

import "github.com/totalrecall/totalrecall/domain"

var base = map[domain.Tier]float64{
	domain.TierIdentityCore:  0.6,
	domain.TierActiveContext: 0.4,
	domain.TierLongTerm:      0.3,
	domain.TierArchive:       0.1,
}

// Initial is the score of a new memory of tier with an importance hint in 0..1.
func Initial(t domain.Tier, importance float64) float64 { return clamp(base[t] + 0.4*importance) }

// Accessed is the score after one retrieval.
func Accessed(s float64) float64 { return clamp(s + 0.1*(1-s)) }

// Claimed is the score after a claim.
func Claimed(s float64) float64 { return clamp(s + (1-s)/3) }

func clamp(x float64) float64 {
	switch {
	case x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}
