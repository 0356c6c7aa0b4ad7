package search

import (
	"fmt"
	"math/rand"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// words is a fixed vocabulary for generated documents; with a fixed seed the corpus is the same
// on every run.
var words = strings.Fields(`
	memory graph recall index search agent world kernel scope event batch query token phrase
	running runs run runner walked walking walks walk talk talked talking meeting meetings meet
	project deadline release review design document schedule budget contract invoice customer
	server database latency cache cluster backup restore deploy rollback incident outage alert
	coffee lunch dinner breakfast morning evening night weekend holiday travel flight hotel
	train station airport ticket passport museum garden river mountain forest ocean beach city
	family friend brother sister mother father daughter son cousin neighbour colleague manager
	happy sad angry calm tired excited nervous proud grateful curious bored anxious relaxed
	book film music song concert theatre painting photo camera phone laptop keyboard screen
	red green blue yellow black white orange purple silver golden bright dark quiet loud
	learn learned learning teach taught study studied exam lesson course lecture homework
	cook cooked cooking bake baked recipe kitchen bread cheese apple orange tomato potato soup
	doctor hospital medicine health exercise gym swim swimming bicycle cycling yoga sleep dream
	birthday wedding party gift card letter email message call visit invitation celebration
	rain snow sun wind storm cloud weather spring summer autumn winter cold warm hot frozen
	market shop store price money bank account payment salary tax loan saving spending
	paris london tokyo berlin madrid rome lisbon vienna prague dublin oslo helsinki athens
	idea plan goal habit routine task note reminder list priority decision question answer
	`)

// sentence returns n words drawn from words with a Zipf-like skew, so a few words are common
// and most are rare, as in natural text.
func sentence(r *rand.Rand, z *rand.Zipf, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[int(z.Uint64())%len(words)])
	}
	return b.String()
}

// corpus makes n deterministic documents spread over scopes scopes.
func corpus(n, scopes int) []domain.IndexDoc {
	r := rand.New(rand.NewSource(42))
	z := rand.NewZipf(r, 1.1, 4, uint64(len(words)-1))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	docs := make([]domain.IndexDoc, n)
	for i := range docs {
		docs[i] = domain.IndexDoc{
			ID:         fmt.Sprintf("m-%07d", i),
			ScopeID:    fmt.Sprintf("scope-%d", i%scopes),
			Content:    sentence(r, z, 12+r.Intn(30)),
			Tags:       []string{words[r.Intn(len(words))], fmt.Sprintf("t%d", i%7)},
			Kind:       domain.Kinds[i%len(domain.Kinds)],
			Tier:       domain.Tiers[i%len(domain.Tiers)],
			State:      domain.LifecycleStates[i%len(domain.LifecycleStates)],
			OccurredAt: base.Add(time.Duration(i) * time.Minute),
			CreatedAt:  base.Add(time.Duration(i) * time.Minute),
		}
	}
	return docs
}
