package recall

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/analysis"
	"github.com/totalrecall/totalrecall/domain/timex"
)

// Ranking in context. When the store knows what surrounds a memory (domain.RecallContextReader:
// its episodes and TEMPORAL neighbours, and the persons of the scope), text hits are ranked with
// what the memory system knows besides the words:
//
//	t(d)  = (bm25(d) − lowest) / (best − lowest)              the text relevance, 0..1, min–max
//	        over the best TextPool hits (the scope only filters; it adds nothing to bm25)
//	      + Wx·lex(d) / best lex                              Wx = 0.5: the query's expansions
//	        (Lexicon: irregular forms, synonyms, hypernyms, the members of a category it asks
//	        about), searched apart; a memory found by them alone has reason LEXICAL
//	n(d)  = max over TEMPORAL neighbours j of w(j)·strength·t(j)   the conversation around d
//	        matches; w(j) = max(Wn, Wa) when j came before d and asks (holds a "?"): d answers
//	        it, else Wn                                       Wn = 0.5, Wa = 1.0
//	        and over the neighbours k of a neighbour j that is a candidate (two turns away) of
//	        Wm·strength(j)·strength(k)·t(k)                   Wm = 0.25
//	e(d)  = max over episodes E of d of  Σ_{j∈E} t(j)² / max over episodes of the same sum
//	                                                           d's episode is about the query
//	g(d)  = max over PERSON and THEMATIC associations j of d of  strength·t(j)
//	                                                           spreading activation: what is
//	        associated with a match (the same person, the same thing) is reached by it
//	f(d)  = max over the entity and topic facets v that d's episode F shares with one of the
//	        FacetFanout best matching episodes E, when d is where F first raised v, of
//	        conf(F,v)·conf(E,v)·energy(E)/best energy / √(episodes holding v)
//	                                                           spreading over facets: another
//	        episode on the same thing (the same entity, the same topic) is reached where it
//	        raises it; facets come from the entity and topic analyses
//	r(d)  = t(d) + n(d) + We·e(d) + Wg·g(d) + Wf·f(d)        We = 0.4, Wg = 0 (off: measured
//	        on LoCoMo stored through storeMemory, Wg = 0.5 and 1.0 lose single-hop questions more
//	        than they gain multi-hop ones, 0.25 gains little and its associations are more
//	        candidates to read; see docs/recall.md), Wf = 0.25
//	p(d)  = 1 + Wp  when d was said by a person the query names (a person facet of the scope;
//	        the speaker its metadata or its "Name: " opening names), else 1   Wp = 0.6
//	c(d)  = 1 + Wc·near(d)  where near is 1 when d occurred inside a time window the query names
//	        ("on 3 June, 2023", "03/06/2023", "in the spring of 2022", "in June"), falling to 0
//	        at a week outside it; or Wd·overlap when what d tells happened there (its relative
//	        dates resolved against when it was said: "yesterday", said on 4 June, is 3 June)
//	                                                          Wc = 1.0, Wd = 1.0
//	w(d)  = 1 + Ww  when the query asks when, how long or how often and d says when (a date, a
//	        relative day, a duration, a frequency), else 1    Ww = 0.3
//	o(d)  = 1 + Wo·(1 − Δ/OrderSpan)  when the query asks what happened after (before) X and d
//	        occurred Δ after (before) the best match of X, Δ < OrderSpan = 60 days, else 1
//	                                                          Wo = 0.5
//	text  = r·p·c·w·o / max over candidates of the same
//	score = Wt·text + Ws·salience                             Wt = 0.7, Ws = 0.3
//	score ← score / (1 + Wv·m)  when the query asks for several things ("What activities has…",
//	        "How many…", "both", "What has X painted?"; asksForMany): the maxResults results are
//	        taken greedily, m the number already taken from an episode of the memory, so that a
//	        list said over several episodes is not crowded out by the one that matches best;
//	        the scores still fall down the list                 Wv = 0.5
//
// Without episodes, neighbours, persons or time cues every factor is neutral and the ranking is
// by text relevance and salience alone: Wt·t + Ws·salience. Candidates are the best SeedSize
// text hits, the best hits inside the query's time windows, the seeds' temporal neighbours and
// the members of the EpisodeFanout best-matching episodes and the FacetCandidates memories best
// reached over facets; one that matches no word has reason CONTEXT, or FACET (naming the facet)
// when f brought it above all.
//
// Hybrid search. When an Embedder is configured and the scope has vectors, the query is embedded
// and its nearest memories fused with the ranking above by reciprocal rank fusion:
//
//	h(d)  = 1/(K + rank_text(d)) + 1/(K + rank_vector(d))     K = 60, a missing rank adds 0
//	text  = (h − min h) / (max h − min h)                     over the candidates, so the fused
//	                                                          relevance spreads over 0..1 as
//	                                                          text relevance does
//	score = Wt·text + Ws·salience
//
// Memories found only by their vector have reason VECTOR.
const (
	WNeighbour  = 0.5
	WEpisode    = 0.4
	WPerson     = 0.6
	WTimeCue    = 1.0
	WLexical    = 0.5
	WAnswer     = 1.0
	WTold       = 1.0
	WWhen       = 0.3
	WOrder      = 0.5
	WAssociate  = 0.0
	WDiversity  = 0.5
	WNeighbour2 = 0.25
	WFacet      = 0.25
	// FacetFanout is how many of the best matching episodes lend their entity and topic facets
	// to spreading activation over facets.
	FacetFanout = 5
	// FacetCandidates is how many memories reached through facets join the candidates.
	FacetCandidates = 20
	// AssociateFanout is how many of the best text hits lend their PERSON and THEMATIC
	// associations as candidates.
	AssociateFanout = 20
	// OrderSpan is how long after (or before) the anchor of "after X" a memory still gains.
	OrderSpan = 60 * 24 * time.Hour
	RRFK      = 60.0
	// SeedSize is how many of the best text hits seed the candidates (at least 2 × maxResults).
	SeedSize = 100
	// EpisodeFanout is how many of the best matching episodes lend all their members as
	// candidates.
	EpisodeFanout = 3
	// TextPool is how many text hits are scored: neighbours and episodes of candidates may rank
	// below the seeds and still say the conversation around them matches.
	TextPool = 1000
	// TimeCueSlack is how far outside a named window a memory still gets part of the boost.
	TimeCueSlack = 7 * 24 * time.Hour
)

// Weights are the weights of the ranking, as one value: DefaultWeights are the constants above.
// An evaluation varies them one at a time to show how much the recall depends on each.
type Weights struct {
	Neighbour, Neighbour2, Answer, Episode, Person, TimeCue, Told, When, Order, Lexical, Associate, Diversity, Facet float64
}

// DefaultWeights are the documented weights.
var DefaultWeights = Weights{Neighbour: WNeighbour, Neighbour2: WNeighbour2, Answer: WAnswer, Episode: WEpisode, Person: WPerson, TimeCue: WTimeCue,
	Told: WTold, When: WWhen, Order: WOrder, Lexical: WLexical, Associate: WAssociate, Diversity: WDiversity, Facet: WFacet}

// Reasons of hits ranked in context.
const (
	// ReasonVector marks a memory found only by the nearness of its vector to the query's.
	ReasonVector Reason = "VECTOR"
	// ReasonContext marks a memory found through what surrounds a text hit (its temporal
	// neighbours, the episode that matches) without matching the words itself.
	ReasonContext Reason = "CONTEXT"
	// ReasonFacet marks a memory found through a facet (an entity or topic) its episode shares
	// with the episodes that match best, without matching the words itself.
	ReasonFacet Reason = "FACET"
)

func (r *Recall) searchInContext(ctx context.Context, q Query, f domain.MemoryFilter, cr domain.RecallContextReader) ([]*RankedMemory, error) {
	limit := q.MaxResults
	wt := r.weights()
	all, err := r.Index.Search(ctx, domain.IndexQuery{ScopeID: q.ScopeID, Text: q.Text, Limit: max(TextPool, 3*limit), Filter: f,
		Expansions: r.expansions(q, wt)})
	if err != nil {
		return nil, err
	}
	best, bestLex := 0.0, 0.0
	for _, h := range all {
		best, bestLex = max(best, h.Score), max(bestLex, h.Lexical)
	}
	cues := timex.Absolute(q.Text)
	ask := timex.Asks(q.Text)
	var anchor time.Time
	if ask.Order != "" && wt.Order > 0 {
		if anchor, err = r.anchorTime(ctx, q, f, ask.Anchor); err != nil {
			return nil, err
		}
	}
	// The best hits inside the windows the query names join the seeds: the text alone may rank
	// them low.
	var windowHits []domain.IndexHit
	for _, w := range cues {
		if w.Grain == timex.AnyYearMonth {
			continue
		}
		from, to := w.From.Add(-TimeCueSlack), w.To.Add(TimeCueSlack)
		wf := f
		if wf.From == nil || wf.From.Before(from) {
			wf.From = &from
		}
		if wf.To == nil || wf.To.After(to) {
			wf.To = &to
		}
		more, err := r.Index.Search(ctx, domain.IndexQuery{ScopeID: q.ScopeID, Text: q.Text, Limit: max(SeedSize/2, limit), Filter: wf})
		if err != nil {
			return nil, err
		}
		windowHits = append(windowHits, more...)
		for _, h := range more {
			best = max(best, h.Score)
		}
	}
	pool := append(all, windowHits...)
	floor := best
	for _, h := range pool {
		if h.Score > 0 {
			floor = min(floor, h.Score)
		}
	}
	if len(pool) < 2 || floor >= best {
		floor = 0
	}
	// Every hit's text score, min–max normalised over the pool; with expansions, the hits are
	// ordered by the text score they add up to.
	sc := textScale{best: best, floor: floor, bestLex: bestLex, wLex: wt.Lexical}
	if bestLex > 0 {
		sort.SliceStable(all, func(i, j int) bool { return sc.of(all[i]) > sc.of(all[j]) })
	}
	nSeeds := min(len(all), max(SeedSize, 2*limit))
	textOf := newTextScores(all[:nSeeds], windowHits, all[nSeeds:], sc)
	var seeds []string
	isCand := map[string]bool{}
	addCand := func(id string) bool {
		if isCand[id] {
			return false
		}
		isCand[id] = true
		seeds = append(seeds, id)
		return true
	}
	for _, h := range all[:nSeeds] {
		addCand(h.ID)
	}
	for _, h := range windowHits {
		addCand(h.ID)
	}
	vec, err := r.vectorHits(ctx, q, max(SeedSize, 3*limit))
	if err != nil {
		return nil, err
	}
	for _, h := range vec {
		addCand(h.MemoryID)
	}
	if len(seeds) == 0 {
		return []*RankedMemory{}, nil
	}
	// The seeds' memories and the persons the query names load while the context is read.
	var wg sync.WaitGroup
	var seedMems []*domain.Memory
	var persons map[string]bool
	var memErr, personErr error
	first := append([]string(nil), seeds...)
	wg.Add(2)
	go func() { defer wg.Done(); seedMems, memErr = r.candidates(ctx, first) }()
	go func() { defer wg.Done(); persons, personErr = r.queryPersons(ctx, q, cr) }()
	mctx, err := cr.MemoryContexts(ctx, q.ScopeID, seeds)
	if err != nil {
		wg.Wait()
		return nil, err
	}
	// Episodes: how much of each episode of the seeds matches the query, over all its members.
	energy := map[string]float64{}
	members := map[string][]string{}
	if es, ok := r.Store.(domain.EpisodeStore); ok {
		var epIDs []string
		seen := map[string]bool{}
		for _, mc := range mctx {
			for _, e := range mc.Episodes {
				if !seen[e] {
					seen[e] = true
					epIDs = append(epIDs, e)
				}
			}
		}
		addEpisode := func(id string, items []string) {
			members[id] = items
			// A sum of floating-point numbers in a fixed order, whatever the order of the items:
			// the few that match, smallest first.
			var sq []float64
			for _, it := range items {
				if t := textOf.of(it); t > 0 {
					sq = append(sq, t*t)
				}
			}
			slices.Sort(sq)
			for _, v := range sq {
				energy[id] += v
			}
		}
		if mr, ok := es.(domain.EpisodeMemberReader); ok && len(epIDs) > 0 {
			m, err := mr.EpisodeMembers(ctx, q.ScopeID, epIDs)
			if err != nil {
				wg.Wait()
				return nil, err
			}
			for id, items := range m {
				addEpisode(id, items)
			}
		} else if len(epIDs) > 0 {
			eps, err := es.Episodes(ctx, q.ScopeID, domain.EpisodeFilter{IDs: epIDs, WithItems: true})
			if err != nil {
				wg.Wait()
				return nil, err
			}
			for _, e := range eps {
				addEpisode(e.ID, e.Items)
			}
		}
	}
	bestEnergy := 0.0
	for _, v := range energy {
		bestEnergy = max(bestEnergy, v)
	}
	// More candidates: the temporal neighbours of the seeds, and the members of the episodes that
	// match best — the conversation around what the words found.
	n0 := len(seeds)
	for _, id := range seeds[:n0] {
		if mc := mctx[id]; mc != nil {
			for _, nb := range mc.Temporal {
				if nb.Strength >= MinStrength {
					addCand(nb.ID)
				}
			}
		}
	}
	for _, e := range topKeys(energy, EpisodeFanout) {
		// In a fixed order: the episodes' members come from the store in none.
		for _, it := range slices.Sorted(slices.Values(members[e])) {
			addCand(it)
		}
	}
	// Spreading activation over facets: where another episode raises an entity or a topic of
	// the episodes that match best, the memory raising it joins the candidates.
	var fa facetActivation
	if wt.Facet > 0 && bestEnergy > 0 {
		if fr, ok := r.Store.(domain.SharedFacetReader); ok {
			if fa, err = spreadOverFacets(ctx, fr, q.ScopeID, energy, bestEnergy); err != nil {
				wg.Wait()
				return nil, err
			}
			for _, id := range topKeys(fa.act, FacetCandidates) {
				addCand(id)
			}
		}
	}
	// Spreading activation: what the best matches are associated with (the same person, the
	// same thing) joins the candidates, though its words may say nothing of the query.
	if wt.Associate > 0 {
		for _, id := range seeds[:min(n0, AssociateFanout)] {
			if mc := mctx[id]; mc != nil {
				for _, a := range mc.Associated {
					if a.Strength >= MinStrength {
						addCand(a.ID)
					}
				}
			}
		}
	}
	ms := []*domain.Memory{}
	if len(seeds) > n0 {
		var more map[string]*domain.MemoryContext
		var moreMems []*domain.Memory
		var moreErr error
		wg.Add(1)
		go func() { defer wg.Done(); moreMems, moreErr = r.candidates(ctx, seeds[n0:]) }()
		more, err := cr.MemoryContexts(ctx, q.ScopeID, seeds[n0:])
		wg.Wait()
		if err != nil {
			return nil, err
		}
		if moreErr != nil {
			return nil, moreErr
		}
		for id, mc := range more {
			mctx[id] = mc
		}
		ms = append(ms, moreMems...)
	} else {
		wg.Wait()
	}
	if memErr != nil {
		return nil, memErr
	}
	if personErr != nil {
		return nil, personErr
	}
	ms = append(seedMems, ms...)
	vecOnly := map[string]bool{}
	for _, h := range vec {
		if _, ok := textOf.lookup(h.MemoryID); !ok {
			vecOnly[h.MemoryID] = true
		}
	}
	var cands []*RankedMemory
	for _, m := range ms {
		if m.ScopeID != q.ScopeID || !keep(m, f) {
			continue // deleted, changed since indexed, or filtered
		}
		rm := &RankedMemory{Memory: m, Reason: ReasonText, TextScore: textOf.of(m.ID), Salience: m.Salience}
		if vecOnly[m.ID] {
			rm.Reason = ReasonVector
		}
		cands = append(cands, rm)
	}
	if len(cands) == 0 {
		return []*RankedMemory{}, nil
	}
	loaded := make(map[string]*domain.Memory, len(cands))
	for _, c := range cands {
		loaded[c.Memory.ID] = c.Memory
	}
	rel := make(map[*RankedMemory]float64, len(cands))
	via := map[*RankedMemory]*domain.Association{}
	viaFacet := map[*RankedMemory]*domain.Facet{}
	top := 0.0
	for _, c := range cands {
		v := c.TextScore
		// around is what the conversation around c adds; what a result was reached through above
		// all (an association, a facet) is named by it.
		around, spread := 0.0, 0.0
		if mc := mctx[c.Memory.ID]; mc != nil {
			nb := neighbourRelevance(c.Memory, mc, mctx, loaded, textOf, wt)
			ep := 0.0
			if bestEnergy > 0 {
				for _, e := range mc.Episodes {
					ep = max(ep, energy[e]/bestEnergy)
				}
			}
			around = nb + wt.Episode*ep
			v += around
			if wt.Associate > 0 {
				g, from := 0.0, domain.Neighbour{}
				for _, a := range mc.Associated {
					if t := textOf.of(a.ID); a.Strength*t > g {
						g, from = a.Strength*t, a
					}
				}
				v += wt.Associate * g
				if g > 0 && wt.Associate*g > around {
					// Reached above all through an association: the result names it.
					via[c] = &domain.Association{SourceID: from.ID, TargetID: c.Memory.ID, ScopeID: q.ScopeID, Type: from.Type, Strength: from.Strength}
					spread = wt.Associate * g
				}
			}
		}
		if a := fa.act[c.Memory.ID]; a > 0 {
			v += wt.Facet * a
			if wt.Facet*a > max(around, spread) {
				// Reached above all through a facet its episode shares with the best matches.
				delete(via, c)
				viaFacet[c] = fa.via[c.Memory.ID]
			}
		}
		if len(persons) > 0 {
			if sp, _ := analysis.SpeakerOf(c.Memory); sp != "" && persons[strings.ToLower(sp)] {
				v *= 1 + wt.Person
			}
		}
		if len(cues) > 0 {
			near := 0.0
			for _, w := range cues {
				near = max(near, w.Near(c.Memory.OccurredAt, TimeCueSlack))
			}
			if wt.Told > 0 && near < 1 {
				// When what it tells happened: "yesterday", said on 4 June, is 3 June.
				for _, e := range timex.Events(c.Memory.Content, c.Memory.OccurredAt) {
					for _, w := range cues {
						near = max(near, wt.Told*timex.Overlap(w, e, TimeCueSlack))
					}
				}
			}
			v *= 1 + wt.TimeCue*near
		}
		if ask.When && wt.When > 0 && timex.SaysWhen(c.Memory.Content) {
			v *= 1 + wt.When
		}
		if !anchor.IsZero() && wt.Order > 0 {
			v *= 1 + wt.Order*orderNear(ask.Order, anchor, c.Memory.OccurredAt)
		}
		rel[c] = v
		top = max(top, v)
	}
	for _, c := range cands {
		if top > 0 {
			c.TextScore = rel[c] / top
		}
		c.Score = WText*c.TextScore + WSalience*c.Salience
		if c.Reason == ReasonText {
			if _, hit := textOf.lookup(c.Memory.ID); !hit {
				c.Reason = ReasonContext
				if a := via[c]; a != nil {
					c.Reason, c.Via, c.Activation = ReasonAssociation, a, c.TextScore
				} else if f := viaFacet[c]; f != nil {
					// The facet may be the store's shared record: the result has a copy.
					fc := *f
					c.Reason, c.ViaFacet, c.Activation = ReasonFacet, &fc, c.TextScore
				}
			} else if textOf.lexicalOnly(c.Memory.ID) {
				c.Reason = ReasonLexical
			}
		}
	}
	if len(vec) > 0 {
		fuse(cands, vec)
	}
	sortRanked(cands)
	if wt.Diversity > 0 && asksForMany(q.Text) {
		diversify(cands, mctx, limit, wt.Diversity)
	}
	order := cands
	if len(order) > limit {
		order = order[:limit]
	}
	// The candidates may be the store's shared records: what is handed on is a copy.
	for _, c := range order {
		c.Memory = c.Memory.Clone()
	}
	if q.IncludeAssociations {
		seen := make(map[string]*RankedMemory, len(order))
		for _, c := range order {
			seen[c.Memory.ID] = c
		}
		return r.spread(ctx, q, f, order, seen)
	}
	return order, nil
}

// candidates loads the memories of ids to rank them, shared with the store's cache where it
// can (domain.SharedMemoryReader): a search reads hundreds and returns a few, which it copies.
func (r *Recall) candidates(ctx context.Context, ids []string) ([]*domain.Memory, error) {
	if sr, ok := r.Store.(domain.SharedMemoryReader); ok {
		return sr.SharedMemories(ctx, ids)
	}
	return r.Store.Memories(ctx, ids)
}

// neighbourRelevance is n(d) of the memory m whose context is mc: the best of what its TEMPORAL
// neighbours lend it (w(j)·strength·t(j), w(j) = max(Wn, Wa) when j asked just before m) and of
// what the neighbours of those neighbours that are candidates (in mctx) lend it
// (Wm·strength·strength·t).
func neighbourRelevance(m *domain.Memory, mc *domain.MemoryContext, mctx map[string]*domain.MemoryContext,
	loaded map[string]*domain.Memory, textOf *textScores, wt Weights) float64 {
	nb := 0.0
	for _, n := range mc.Temporal {
		if wt.Neighbour2 > 0 {
			// Two turns away: through a neighbour whose context is read (a candidate).
			if mj := mctx[n.ID]; mj != nil {
				for _, k := range mj.Temporal {
					if k.ID != m.ID {
						nb = max(nb, wt.Neighbour2*n.Strength*k.Strength*textOf.of(k.ID))
					}
				}
			}
		}
		t := textOf.of(n.ID)
		if t == 0 {
			continue
		}
		w := wt.Neighbour
		if j := loaded[n.ID]; j != nil && j.OccurredAt.Before(m.OccurredAt) && strings.Contains(j.Content, "?") {
			w = max(w, wt.Answer)
		}
		nb = max(nb, w*n.Strength*t)
	}
	return nb
}

// diversify reorders the first limit of cands, sorted best first, for a question asking for
// several things: each next result is the candidate with the best score / (1 + w·m), m the number
// of results already chosen from an episode of it, and that is its score, so that the parts of a
// list said in several episodes come before more of the one episode that matches best. Chosen
// greedily, the scores stay in order (m only grows); the rest of cands keep theirs, behind.
func diversify(cands []*RankedMemory, mctx map[string]*domain.MemoryContext, limit int, w float64) {
	chosen := map[string]int{}
	seen := func(c *RankedMemory) int {
		m := 0
		if mc := mctx[c.Memory.ID]; mc != nil {
			for _, e := range mc.Episodes {
				m = max(m, chosen[e])
			}
		}
		return m
	}
	for k := 0; k < min(limit, len(cands)); k++ {
		bi, bv := k, cands[k].Score/(1+w*float64(seen(cands[k])))
		// Sorted: a candidate whose own score is no better than the best adjusted one cannot win.
		for i := k + 1; i < len(cands) && cands[i].Score > bv; i++ {
			if v := cands[i].Score / (1 + w*float64(seen(cands[i]))); v > bv {
				bi, bv = i, v
			}
		}
		c := cands[bi]
		copy(cands[k+1:bi+1], cands[k:bi])
		cands[k] = c
		c.Score = bv
		if mc := mctx[c.Memory.ID]; mc != nil {
			for _, e := range mc.Episodes {
				chosen[e]++
			}
		}
	}
}

// textScale turns a hit's scores into its text relevance: the text's bm25, min–max normalised
// over the pool, plus the expansions' score, normalised by the best of them and weighted by wLex.
type textScale struct {
	best, floor, bestLex, wLex float64
}

func (s textScale) of(h domain.IndexHit) float64 {
	v := 0.0
	if h.Score > 0 && s.best > s.floor {
		v = (h.Score - s.floor) / (s.best - s.floor)
	}
	if s.bestLex > 0 {
		v += s.wLex * h.Lexical / s.bestLex
	}
	return v
}

// textScores are the text relevances of a search's pool (the best of each id), by id.
// Its map is made in two steps: the seeds and the hits in the query's time windows first, the
// rest of the pool at the first id not found among them. A search whose candidates are its
// seeds alone (a scope without episodes or neighbours) never hashes the ids of the thousand hits
// of its pool, which cost it as much as the reads of its memories.
type textScores struct {
	scale textScale
	m     map[string]float64
	rest  []domain.IndexHit
	// lexOnly are the hits found by the query's expansions alone.
	lexOnly map[string]bool
}

func newTextScores(seeds, window, rest []domain.IndexHit, scale textScale) *textScores {
	t := &textScores{scale: scale, m: make(map[string]float64, len(seeds)+len(window))}
	if scale.best <= 0 && scale.bestLex <= 0 {
		return t // no hit has a text score
	}
	t.add(seeds)
	t.add(window)
	t.rest = rest
	return t
}

func (t *textScores) add(hs []domain.IndexHit) {
	for _, h := range hs {
		v := t.scale.of(h)
		old, ok := t.m[h.ID]
		if !ok || v > old {
			t.m[h.ID] = v
		}
		switch {
		case h.Score > 0:
			delete(t.lexOnly, h.ID)
		case h.Lexical > 0 && !ok:
			if t.lexOnly == nil {
				t.lexOnly = map[string]bool{}
			}
			t.lexOnly[h.ID] = true
		}
	}
}

// lookup returns the text score of id and whether id is a hit of the pool.
func (t *textScores) lookup(id string) (float64, bool) {
	if v, ok := t.m[id]; ok {
		return v, true
	}
	if len(t.rest) == 0 {
		return 0, false
	}
	t.add(t.rest)
	t.rest = nil
	v, ok := t.m[id]
	return v, ok
}

// of is the text score of id, 0 when id is not a hit.
func (t *textScores) of(id string) float64 {
	v, _ := t.lookup(id)
	return v
}

// lexicalOnly reports whether id was found by the query's expansions alone.
func (t *textScores) lexicalOnly(id string) bool { return t.lexOnly[id] }

// topKeys returns the n keys of m with the largest values (ties by key).
func topKeys(m map[string]float64, n int) []string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if v > 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys[:min(n, len(keys))]
}

// fuse reranks candidates by reciprocal rank fusion of their context ranking and vector ranking.
func fuse(cands []*RankedMemory, vec []domain.VectorHit) {
	sortRanked(cands)
	textRank := make(map[string]int, len(cands))
	n := 0
	for _, c := range cands {
		if c.Reason != ReasonVector {
			n++
			textRank[c.Memory.ID] = n
		}
	}
	vecRank := make(map[string]int, len(vec))
	for i, h := range vec {
		vecRank[h.MemoryID] = i + 1
	}
	h := make(map[*RankedMemory]float64, len(cands))
	top, bottom := 0.0, math.Inf(1)
	for _, c := range cands {
		v := 0.0
		if k, ok := textRank[c.Memory.ID]; ok {
			v += 1 / (RRFK + float64(k))
		}
		if k, ok := vecRank[c.Memory.ID]; ok {
			v += 1 / (RRFK + float64(k))
		}
		h[c] = v
		top, bottom = max(top, v), min(bottom, v)
	}
	for _, c := range cands {
		c.TextScore = 1
		if top > bottom {
			c.TextScore = (h[c] - bottom) / (top - bottom)
		}
		c.Score = WText*c.TextScore + WSalience*c.Salience
	}
}

// vectorHits embeds the query and finds its nearest memories, when an embedder is configured and
// the scope has vectors.
func (r *Recall) vectorHits(ctx context.Context, q Query, k int) ([]domain.VectorHit, error) {
	if r.Embedder == nil {
		return nil, nil
	}
	vs, ok := r.Store.(domain.VectorStore)
	if !ok {
		return nil, nil
	}
	has, err := vs.HasEmbeddings(ctx, q.ScopeID)
	if err != nil || !has {
		return nil, err
	}
	v, err := r.Embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, err
	}
	if len(v) != 1 || len(v[0]) == 0 || !finite(v[0]) {
		return nil, domain.Errorf(domain.EUNAVAILABLE, "the embedder returned no vector for the query")
	}
	return vs.SimilarMemories(ctx, q.ScopeID, v[0], k)
}

func finite(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// queryPersons returns the persons of the scope the query names, lower-cased.
func (r *Recall) queryPersons(ctx context.Context, q Query, cr domain.RecallContextReader) (map[string]bool, error) {
	names, err := cr.ScopePersons(ctx, q.ScopeID)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(q.Text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’' && r != '-'
	}) {
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		words[strings.Trim(w, "'’-")] = true
	}
	lq := " " + strings.ToLower(q.Text) + " "
	out := map[string]bool{}
	for _, n := range names {
		ln := strings.ToLower(n)
		if words[ln] || (strings.Contains(ln, " ") && strings.Contains(lq, " "+ln)) {
			out[ln] = true
		}
	}
	// A query about every person it names gains nothing from favouring each of them.
	if len(out) > 1 && len(out) == len(names) {
		return nil, nil
	}
	return out, nil
}

// anchorTime is when the best match of anchor (the X of "after X") happened: its memory's time,
// zero when nothing matches.
func (r *Recall) anchorTime(ctx context.Context, q Query, f domain.MemoryFilter, anchor string) (time.Time, error) {
	hits, err := r.Index.Search(ctx, domain.IndexQuery{ScopeID: q.ScopeID, Text: anchor, Limit: 1, Filter: f})
	if err != nil || len(hits) == 0 {
		if domain.ErrorCode(err) == domain.EINVALID {
			err = nil // an anchor of stop words only: no order to favour
		}
		return time.Time{}, err
	}
	ms, err := r.Store.Memories(ctx, []string{hits[0].ID})
	if err != nil || len(ms) == 0 || ms[0].ScopeID != q.ScopeID {
		return time.Time{}, err
	}
	return ms[0].OccurredAt, nil
}

// orderNear is 1 for a memory just after the anchor (order "after") or just before it
// ("before"), falling linearly to 0 at OrderSpan, and 0 on the wrong side.
func orderNear(order string, anchor, t time.Time) float64 {
	d := t.Sub(anchor)
	if order == "before" {
		d = -d
	}
	if d <= 0 || d >= OrderSpan {
		return 0
	}
	return 1 - float64(d)/float64(OrderSpan)
}
