package constrain

import (
	"iter"
	"math"
	"math/bits"
)

// Mask is a set of token ids: the tokens allowed at one step.
type Mask struct {
	bits []uint64
	n    int
}

func newMask(n int) *Mask { return &Mask{bits: make([]uint64, (n+63)/64), n: n} }

func (m *Mask) set(id int32) { m.bits[id>>6] |= 1 << (id & 63) }

// or adds the tokens of o, a mask over the same vocabulary.
func (m *Mask) or(o *Mask) {
	for i, w := range o.bits {
		m.bits[i] |= w
	}
}

// Size is the number of tokens of the vocabulary the mask is over.
func (m *Mask) Size() int { return m.n }

// Allowed reports whether token id may be chosen.
func (m *Mask) Allowed(id int) bool {
	return id >= 0 && id < m.n && m.bits[id>>6]&(1<<(id&63)) != 0
}

// Count is the number of tokens allowed.
func (m *Mask) Count() int {
	n := 0
	for _, w := range m.bits {
		n += bits.OnesCount64(w)
	}
	return n
}

// All yields the allowed tokens in increasing order.
func (m *Mask) All() iter.Seq[int] { return m.each(0) }

// Banned yields the tokens the mask does not allow, in increasing order.
func (m *Mask) Banned() iter.Seq[int] { return m.each(math.MaxUint64) }

// each yields the ids of the bits set in the words flipped by xor, below
// the mask's size.
func (m *Mask) each(xor uint64) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i, w := range m.bits {
			w ^= xor
			for w != 0 {
				id := i*64 + bits.TrailingZeros64(w)
				if id >= m.n || !yield(id) {
					return
				}
				w &= w - 1
			}
		}
	}
}

// IDs lists the allowed tokens in increasing order.
func (m *Mask) IDs() []int {
	var out []int
	for i, w := range m.bits {
		for w != 0 {
			out = append(out, i*64+bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
	return out
}

var negInf = float32(math.Inf(-1))

// Apply sets the logit of every token the mask does not allow to -Inf, in
// place, so that softmax gives it probability 0 and every later stage of
// the sampler renormalises over the allowed tokens. Logits past the
// mask's vocabulary are banned too.
func (m *Mask) Apply(logits []float32) {
	for i, w := range m.bits {
		base := i * 64
		if base >= len(logits) {
			return
		}
		if w == math.MaxUint64 {
			continue
		}
		chunk := logits[base:min(base+64, len(logits))]
		for j := range chunk {
			if w&(1<<j) == 0 {
				chunk[j] = negInf
			}
		}
	}
	for i := len(m.bits) * 64; i < len(logits); i++ {
		logits[i] = negInf
	}
}
