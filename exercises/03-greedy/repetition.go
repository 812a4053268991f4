package greedy

// RepeatedNGramRate measures how much a token sequence repeats itself: the
// share of its n-grams that already occurred earlier in it. Task 4.
//
// The n-grams of ids are its runs of n consecutive tokens, ids[i:i+n] for
// i = 0, 1, …, len(ids)−n: there are len(ids)−n+1 of them, and neighbours
// overlap. The n-gram at i is repeated if the same n tokens in the same
// order start at an earlier position j < i (the two may overlap). The rate
// is
//
//	(number of repeated n-grams) / (number of n-grams)
//
// 0 means no n-gram occurs twice; a text that is one loop comes close to 1.
// When there is no n-gram at all (len(ids) < n) or n < 1, the rate is 0.
//
// Example: [1 2 3 1 2 3 1 2] has the 2-grams 12 23 31 12 23 31 12; the last
// four were all seen before, so the rate for n = 2 is 4/7.
func RepeatedNGramRate(ids []int, n int) float64 {
	return 0
}
