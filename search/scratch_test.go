package search

import (
	"syscall"
	"time"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
)

func variant(tv, exact bool) mapping.IndexMapping {
	im := newMapping()
	dm := im.DefaultMapping
	fms := []*mapping.FieldMapping{{Type: "text", Analyzer: en.AnalyzerName, Index: true, IncludeTermVectors: tv}}
	if exact {
		fms = append(fms, &mapping.FieldMapping{Name: FieldExact, Type: "text", Analyzer: standard.Name, Index: true})
	}
	dm.Properties[FieldContent].Fields = fms
	return im
}

func BenchmarkScratchVariants(b *testing.B) {
	docs := corpus(20000, 4)
	for _, v := range []struct{ tv, exact bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		b.Run(fmt.Sprintf("tv=%v,exact=%v", v.tv, v.exact), func(b *testing.B) {
			idx, err := bleve.New(filepath.Join(b.TempDir(), "i"), variant(v.tv, v.exact))
			if err != nil {
				b.Fatal(err)
			}
			defer idx.Close()
			b.ResetTimer()
			c0 := cpuTime()
			n := 0
			for i := 0; i < b.N; i++ {
				batch := idx.NewBatch()
				for j := 0; j < 1000; j++ {
					d := docs[n%len(docs)]
					n++
					if err := batch.Index(d.ID, toBleve(d)); err != nil {
						b.Fatal(err)
					}
				}
				if err := idx.Batch(batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "docs/s")
			b.ReportMetric(float64(cpuTime()-c0)/float64(n)/1e3, "cpu-us/doc")
		})
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
