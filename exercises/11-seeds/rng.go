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

// RNG is llama2.c's xorshift* generator: 64 bits of state, three shifts and
// a multiplication per number. Task 1.
//
// Add the field it needs: the state, a uint64.
type RNG struct {
}

// NewRNG returns a generator whose state is seed. Seed 0 would make
// xorshift produce only zeros, so it is replaced by the constant
// 0x9E3779B97F4A7C15. Task 1.
func NewRNG(seed uint64) *RNG {
	return nil
}

// Uint32 advances the state and returns the next 32 random bits. Task 1.
//
// With s the state (a uint64), in this order:
//
//	s ^= s >> 12
//	s ^= s << 25
//	s ^= s >> 27
//
// then store s and return the top 32 bits of s * 0x2545F4914F6CDD1D (the
// product wraps around in uint64, as Go's unsigned arithmetic does).
func (r *RNG) Uint32() uint32 {
	return 0
}

// Float32 returns a uniform number in [0, 1): take one Uint32, keep its top
// 24 bits (shift right by 8) and divide by 2²⁴ = 16777216, as a float32.
// 24 bits is what a float32's mantissa holds exactly, so every result is
// exact and 1 is never reached. Task 1.
func (r *RNG) Float32() float32 {
	return 0
}
