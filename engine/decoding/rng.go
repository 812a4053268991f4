package decoding

// RNG is the small, fast xorshift* generator that llama2.c's sampler uses.
// It is fully determined by its seed, so the same seed, prompt and settings
// give the same tokens on every run and every machine.
type RNG struct{ state uint64 }

// NewRNG seeds a generator. Seed 0 (which would make xorshift emit only
// zeros) is replaced by a fixed non-zero constant.
func NewRNG(seed uint64) *RNG {
	if seed == 0 {
		seed = 0x9E3779B97F4A7C15
	}
	return &RNG{state: seed}
}

// Uint32 returns the next 32 random bits.
func (r *RNG) Uint32() uint32 {
	r.state ^= r.state >> 12
	r.state ^= r.state << 25
	r.state ^= r.state >> 27
	return uint32((r.state * 0x2545F4914F6CDD1D) >> 32)
}

// Float32 returns a uniform value in [0, 1) with 24 random bits.
func (r *RNG) Float32() float32 {
	return float32(r.Uint32()>>8) / 16777216.0
}
