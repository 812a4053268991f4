package seeds

import (
	"fmt"
	"slices"
)

// Branch forks a sample at step k. The trunk is Sample(lm, prompt, n,
// temperature, seed, isEnd). The branch keeps the trunk's first k tokens
// and draws the rest with a fresh generator seeded with branchSeed: it is
// trunk[:k] followed by Sample(lm, prompt+trunk[:k], n-k, temperature,
// branchSeed, isEnd). If the trunk has no more than k tokens (it ended or
// filled the context by then, or n ≤ k), there is nothing to redraw and
// the branch is a copy of the trunk.
//
// The two share exactly their first k tokens when they differ at step k,
// and are usually different from then on: once one token differs, every
// later draw is made from another text.
func Branch(lm LM, prompt []int, n, k int, temperature float64, seed, branchSeed uint64, isEnd func(id int) bool) (trunk, branch []int, err error) {
	if k < 0 {
		return nil, nil, fmt.Errorf("branching at step %d: k must be 0 or more", k)
	}
	trunk, err = Sample(lm, prompt, n, temperature, seed, isEnd)
	if err != nil {
		return trunk, nil, err
	}
	if len(trunk) <= k {
		return trunk, slices.Clone(trunk), nil
	}
	rest, err := Sample(lm, slices.Concat(prompt, trunk[:k]), n-k, temperature, branchSeed, isEnd)
	branch = slices.Concat(trunk[:k], rest)
	return trunk, branch, err
}

// Distinct counts, for every k from 0 to the length of the longest
// sample, how many different token sequences the samples have among their
// first k tokens (a sample shorter than k counts as the whole of itself).
// counts[0] is 1 (every sample starts from the same prompt), and the counts
// never decrease: a sample that took another path does not come back. No
// samples give nil.
func Distinct(samples [][]int) []int {
	if len(samples) == 0 {
		return nil
	}
	longest := 0
	for _, s := range samples {
		longest = max(longest, len(s))
	}
	counts := make([]int, longest+1)
	for k := range counts {
		seen := map[string]bool{}
		for _, s := range samples {
			seen[fmt.Sprint(s[:min(k, len(s))])] = true
		}
		counts[k] = len(seen)
	}
	return counts
}
