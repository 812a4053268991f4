// Package seeds is exercise 11 of the Token by Token track: where the
// randomness of sampling comes from, and how to make it reproducible.
//
// Task 1 is the engine's random number generator, llama2.c's xorshift*:
// the same seed gives the same numbers on every run and every machine.
// Task 2 is a sampling loop driven by it that gives the engine's tokens,
// token for token, for the same seed and temperature. Task 3 forks a
// sample at a chosen step, and counts how many different continuations a
// set of samples has after each position.
package seeds

// zeroSeed replaces seed 0, from which xorshift would only ever produce 0.
const zeroSeed = 0x9E3779B97F4A7C15

// RNG is llama2.c's xorshift* generator: 64 bits of state, three shifts and
// a multiplication per number. It is fast, small and fully determined by its
// seed, which is all a sampler needs (it is not for cryptography).
type RNG struct {
	state uint64
}

// NewRNG returns a generator seeded with seed (0 is replaced by a fixed
// non-zero constant).
func NewRNG(seed uint64) *RNG {
	if seed == 0 {
		seed = zeroSeed
	}
	return &RNG{state: seed}
}

// Uint32 advances the state (xorshift: shifts of 12, 25 and 27) and returns
// the top 32 bits of the state times the xorshift* multiplier.
func (r *RNG) Uint32() uint32 {
	r.state ^= r.state >> 12
	r.state ^= r.state << 25
	r.state ^= r.state >> 27
	return uint32((r.state * 0x2545F4914F6CDD1D) >> 32)
}

// Float32 returns a uniform number in [0, 1): the top 24 bits of Uint32
// (as many as a float32's mantissa holds exactly) divided by 2²⁴.
func (r *RNG) Float32() float32 {
	return float32(r.Uint32()>>8) / (1 << 24)
}
