package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestEvalUnseenConversation runs the evaluation on a conversation written for this test, in
// date styles and question forms the development set does not use (numeric dates, seasons, days
// without a year, "how long has", "which year", "how often", "after X", "before X", a told
// "on Saturday" resolved against when it was said).
func TestEvalUnseenConversation(t *testing.T) {
	res, err := runLoCoMoEval(context.Background(), storeFlags{}, "testdata/unseen", io.Discard, evalOptions{rounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	temporal := cat(res.ByCategory, 2)
	prev := cat(res.Variants[0].byCat, 2)
	t.Logf("temporal recall@1 %.3f @5 %.3f (previous method %.3f %.3f); overall @1 %.3f", temporal.at(0), temporal.at(1),
		prev.at(0), prev.at(1), res.Overall.at(0))
	if res.Questions != 13 || temporal.n != 11 {
		t.Fatalf("%d questions, %d temporal; want 13 and 11", res.Questions, temporal.n)
	}
	// What the ranking reaches on it today: every temporal question's evidence within the first
	// ten, six of eleven first.
	got := fmt.Sprintf("%.3f %.3f %.3f / %.3f %.3f", temporal.at(0), temporal.at(1), temporal.at(2), res.Overall.at(1), res.Overall.at(2))
	if want := "0.545 0.909 1.000 / 0.769 0.885"; got != want {
		t.Fatalf("temporal @1 @5 @10 / overall @5 @10 = %s, want %s", got, want)
	}
}

// TestEvalPrintsTheRankingWithAndWithoutAnEmbedder: with --embed-url the eval's main rows are the
// hybrid search, and it prints the same ranking without the model beside them.
func TestEvalPrintsTheRankingWithAndWithoutAnEmbedder(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(fakeEmbeddings))
	defer srv.Close()
	mf := modelFlags{embedURL: srv.URL, embedModel: "fake"}
	mc, err := mf.config()
	if err != nil {
		t.Fatal(err)
	}
	res, err := runLoCoMoEval(context.Background(), storeFlags{mnemonic: mc}, "testdata/unseen", io.Discard, evalOptions{rounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range res.Variants {
		names = append(names, v.name)
		if v.sums == nil || v.sums.n != res.Questions {
			t.Fatalf("%s: asked %+v, want every question", v.name, v.sums)
		}
	}
	if len(names) != 2 || names[1] != "without the embedder (no model)" {
		t.Fatalf("variants %q", names)
	}
	var out bytes.Buffer
	printEval(&out, res)
	if !strings.Contains(out.String(), "without the embedder (no model), same import, same run") {
		t.Fatalf("report:\n%s", out.String())
	}
}
