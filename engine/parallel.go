package engine

import "github.com/tokenbytoken/course/engine/internal/parallel"

// The engine shares a pass's work among the cores through
// engine/internal/parallel, whose team of helper goroutines the trainer
// and the course's evaluations use too: one team, so that work from all
// of them never competes with a second set of spinning helpers.

// parallelFor is parallel.ForEqual: f(worker, start, end) over ranges that
// cover the items 0..n-1 once, on all the cores when worth is true. The
// engine's items (a product's rows, heads, tokens of a batch, pieces of
// the vocabulary) each cost about the same.
func parallelFor(n int, worth bool, f func(worker, start, end int)) {
	parallel.ForEqual(n, worth, f)
}

// maxWorkers is the number of cores Go may use: parallelFor's worker
// numbers are below it.
func maxWorkers() int { return parallel.Workers() }
