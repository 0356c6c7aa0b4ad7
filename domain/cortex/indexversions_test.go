package cortex

import (
	"fmt"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

func versionDocs(prefix string, n int, version int64) []domain.IndexDoc {
	docs := make([]domain.IndexDoc, n)
	for i := range docs {
		docs[i] = domain.IndexDoc{ID: fmt.Sprintf("%s-%d", prefix, i), Version: version}
	}
	return docs
}

// The versions the index was given are remembered for two generations: a replay of an older
// version is refused until the feed has caught up twice after it, and no longer than that, so
// what they hold stays bounded however many memories are put.
func TestIndexVersionsForgetWhatTheFeedPassed(t *testing.T) {
	var iv indexVersions
	first := versionDocs("a", versionsGeneration, 2)
	if got, _ := iv.admit(first); len(got) != len(first) {
		t.Fatalf("admitted %d of %d new docs", len(got), len(first))
	}
	// The feed is behind the head: nothing turns old, nothing is forgotten.
	iv.followed(5, 10)
	if iv.old != nil || len(iv.v) != versionsGeneration {
		t.Fatalf("rotated while the feed was behind: young %d, old %d", len(iv.v), len(iv.old))
	}
	// Caught up: the full generation turns old, and still guards its ids.
	iv.followed(10, 10)
	if len(iv.old) != versionsGeneration || len(iv.v) != 0 {
		t.Fatalf("after catching up: young %d, old %d", len(iv.v), len(iv.old))
	}
	if got, _ := iv.admit(versionDocs("a", 3, 1)); len(got) != 0 {
		t.Fatalf("an older version of an old generation's id was admitted: %v", got)
	}
	if got, _ := iv.admit(versionDocs("a", 3, 2)); len(got) != 0 {
		t.Fatalf("the version the index holds was admitted again: %v", got)
	}
	iv.deleted([]string{"a-5"})
	if got := iv.unindexed([]string{"a-1", "a-5", "z-1"}); len(got) != 1 || got[0] != "z-1" {
		t.Fatalf("unindexed = %v, want [z-1]", got)
	}
	// A young generation not yet full stays young.
	iv.followed(20, 20)
	if len(iv.old) != versionsGeneration {
		t.Fatalf("a young generation of %d ids turned old", len(iv.v))
	}
	// Another full generation, the feed caught up again: the first is forgotten, but for a-5,
	// deleted since, which the last generation holds.
	second := versionDocs("b", versionsGeneration, 1)
	iv.admit(second)
	iv.followed(30, 30)
	if got, _ := iv.admit(versionDocs("a", 3, 1)); len(got) != 3 {
		t.Fatalf("ids forgotten two generations ago were refused: %d of 3 admitted", len(got))
	}
	if got, _ := iv.admit([]domain.IndexDoc{{ID: "a-5", Version: 2}}); len(got) != 0 {
		t.Fatal("a deleted id put again in the young generation was admitted")
	}
	if got, _ := iv.admit(versionDocs("b", 3, 1)); len(got) != 0 {
		t.Fatalf("the last generation's ids were forgotten: %v", got)
	}
	// However many are put, two generations and what the feed has not passed are held.
	for round := range 10 {
		iv.admit(versionDocs(fmt.Sprintf("c%d", round), versionsGeneration, 1))
		iv.followed(uint64(40+round), uint64(40+round))
	}
	if n := len(iv.v) + len(iv.old); n > 2*versionsGeneration+3 {
		t.Fatalf("%d ids held after 10 generations", n)
	}
}

// undo takes back an admission whose put failed, also after its generation turned old.
func TestIndexVersionsUndoAcrossAGeneration(t *testing.T) {
	var iv indexVersions
	iv.admit(versionDocs("a", versionsGeneration, 1))
	docs, prev := iv.admit([]domain.IndexDoc{{ID: "x", Version: 3}, {ID: "a-1", Version: 2}})
	iv.followed(1, 1)
	iv.undo(docs, prev)
	if got, _ := iv.admit([]domain.IndexDoc{{ID: "x", Version: 3}}); len(got) != 1 {
		t.Fatal("an undone new id is still remembered")
	}
	if got, _ := iv.admit([]domain.IndexDoc{{ID: "a-1", Version: 1}}); len(got) != 0 {
		t.Fatal("undo forgot the version put before the failed one")
	}
	if got, _ := iv.admit([]domain.IndexDoc{{ID: "a-1", Version: 2}}); len(got) != 1 {
		t.Fatal("the failed version stays remembered after undo")
	}
}
