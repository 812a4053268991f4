package seeds

// Branch forks a sample at step k: the same start, a different future.
// Task 3.
//
// The trunk is Sample(lm, prompt, n, temperature, seed, isEnd). The branch
// keeps the trunk's first k tokens and draws the rest with a fresh
// generator seeded with branchSeed: it is trunk[:k] followed by
// Sample(lm, prompt+trunk[:k], n-k, temperature, branchSeed, isEnd). If the
// trunk has no more than k tokens (it ended or filled the context by then,
// or n ≤ k), there is nothing to redraw and the branch is a copy of the
// trunk. k = 0 redraws everything: the branch is then simply the sample
// for branchSeed. Return an error for a negative k, and any error of lm.
//
// Build new slices: never append to prompt or to the trunk.
func Branch(lm LM, prompt []int, n, k int, temperature float64, seed, branchSeed uint64, isEnd func(id int) bool) (trunk, branch []int, err error) {
	return nil, nil, nil
}

// Distinct counts how many different continuations a set of samples has
// after each position, as notebook 11 charts it. Task 3.
//
// counts[k], for k from 0 to the length of the longest sample, is the
// number of different token sequences among the samples' first k tokens; a
// sample shorter than k counts as the whole of itself. So counts[0] is 1
// (all start from the same prompt), and the counts never decrease. No
// samples at all give nil.
//
// Example: the samples [1 2 3], [1 2 4], [1 5 3], [1 2 3] give
// [1 1 2 3]: one start, one first token, then [1 2] and [1 5], then three
// different texts.
func Distinct(samples [][]int) []int {
	return nil
}
