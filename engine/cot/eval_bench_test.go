package cot

import (
	"context"
	"github.com/tokenbytoken/course/engine/decoding"
	"testing"
)

// BenchmarkEvaluate solves 32 three-digit problems greedily with the
// step-by-step model, the problems shared among the cores; one op is the
// whole set:
//
//	go test ./engine/cot -run '^$' -bench Evaluate
func BenchmarkEvaluate(b *testing.B) {
	m, tok := MustLoad(Steps)
	ps := Problems(3, 32, TestSeed)
	for b.Loop() {
		if _, err := Evaluate(context.Background(), m, tok, ps, decoding.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ps)*b.N)/b.Elapsed().Seconds(), "problems/s")
}
