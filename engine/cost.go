package engine

import (
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"
	"time"
)

// Part names one part of the forward pass, for counting its cost.
type Part int

// The parts of the forward pass, in the order a token meets them.
const (
	PartEmbedding Part = iota // copying the token's embedding row into the residual stream
	PartNorm                  // every RMSNorm (two per layer, one at the end)
	PartAttention             // Q/K/V projections, RoPE, attention over the cache, output projection
	PartMLP                   // the SwiGLU feed-forward block
	PartVocab                 // the final projection to one logit per vocabulary entry
	NumParts
)

var partNames = [NumParts]string{"embedding", "norm", "attention", "mlp", "vocab"}

// String is the part's short name.
func (p Part) String() string {
	if p < 0 || p >= NumParts {
		return fmt.Sprintf("Part(%d)", int(p))
	}
	return partNames[p]
}

// Cost is the work of some part of the forward pass: floating-point
// operations (a multiply-add counts as two), bytes read and written (every
// weight read once per pass, every cached key and value read once per
// layer, activations read and written once), and measured time.
type Cost struct {
	FLOPs int64
	Bytes int64
	Time  time.Duration
}

// Add returns the sum of two costs.
func (c Cost) Add(o Cost) Cost {
	return Cost{c.FLOPs + o.FLOPs, c.Bytes + o.Bytes, c.Time + o.Time}
}

// Intensity is FLOPs per byte moved. Matrix-vector decoding sits near 0.5
// (each 4-byte weight is used for one multiply-add); a batched prefill of n
// tokens reuses each weight n times.
func (c Cost) Intensity() float64 {
	if c.Bytes == 0 {
		return 0
	}
	return float64(c.FLOPs) / float64(c.Bytes)
}

// Profile accumulates the cost of every forward pass run by a State whose
// Profile field points to it. Counting is opt-in: with a nil Profile the
// forward pass does no counting and reads no clock.
type Profile struct {
	Parts  [NumParts]Cost
	Tokens int64 // positions run through the model
	Passes int64 // forward passes (a batched prefill counts as one)
}

// Reset zeroes every counter.
func (p *Profile) Reset() { *p = Profile{} }

// Total is the sum over all parts.
func (p *Profile) Total() Cost {
	var t Cost
	for _, c := range p.Parts {
		t = t.Add(c)
	}
	return t
}

// WriteTable prints one line per part: share of time, time per token,
// FLOPs and bytes per token, and the achieved GFLOP/s.
func (p *Profile) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "part\ttime%%\tµs/token\tMFLOP/token\tkB/token\tFLOP/byte\tGFLOP/s\t\n")
	total := p.Total()
	n := max(p.Tokens, 1)
	row := func(name string, c Cost) {
		share := 0.0
		if total.Time > 0 {
			share = 100 * float64(c.Time) / float64(total.Time)
		}
		gflops := 0.0
		if c.Time > 0 {
			gflops = float64(c.FLOPs) / c.Time.Seconds() / 1e9
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.2f\t%.3f\t%.1f\t%.2f\t%.2f\t\n", name, share,
			float64(c.Time.Microseconds())/float64(n), float64(c.FLOPs)/float64(n)/1e6,
			float64(c.Bytes)/float64(n)/1e3, c.Intensity(), gflops)
	}
	for part, c := range p.Parts {
		row(Part(part).String(), c)
	}
	row("total", total)
	return tw.Flush()
}

// tick adds a part's measured time since t0 and its counted work, and
// returns the time now, which starts the next part.
func (p *Profile) tick(part Part, t0 time.Time, c Cost) time.Time {
	now := time.Now()
	c.Time = now.Sub(t0)
	p.Parts[part] = p.Parts[part].Add(c)
	return now
}

// count adds the counted work of one pass over n tokens at pos.
func (p *Profile) count(c Config, n, pos, outputs int) {
	p.work(c, n, pos, outputs)
	p.Passes++
}

// work adds the counted work of n tokens of one sequence at pos, one
// pass's or part of one.
func (p *Profile) work(c Config, n, pos, outputs int) {
	for part := range NumParts {
		w := c.PartCost(part, n, pos, outputs)
		p.Parts[part].FLOPs += w.FLOPs
		p.Parts[part].Bytes += w.Bytes
	}
	p.Tokens += int64(n)
}

// matmulCost is the work of multiplying n vectors of length cols by a
// (rows, cols) weight matrix: 2·n·rows·cols FLOPs; the weights are read
// once, the inputs read and the outputs written once.
func matmulCost(n, rows, cols int) Cost {
	return Cost{
		FLOPs: 2 * int64(n) * int64(rows) * int64(cols),
		Bytes: 4 * (int64(rows)*int64(cols) + int64(n)*int64(rows+cols)),
	}
}

// PartCost is the counted work (no time) of one part of the forward pass
// for n tokens at positions pos..pos+n-1, all layers together. The vocab
// part counts logits for outputs of the n positions (1 when only the last
// position's logits are computed).
func (c Config) PartCost(part Part, n, pos, outputs int) Cost {
	d, h, L := c.Dim, c.HiddenDim, int64(c.NLayers)
	kv := c.KVDim()
	switch part {
	case PartEmbedding:
		return Cost{Bytes: 2 * 4 * int64(n) * int64(d)}
	case PartNorm:
		// Per vector: square-and-add, then scale and gain: about 4 FLOPs
		// per channel; read the vector and the gain, write the result.
		norms := int64(n) * (2*L + 1)
		return Cost{FLOPs: 4 * norms * int64(d), Bytes: 4 * norms * 3 * int64(d)}
	case PartAttention:
		proj := matmulCost(n, d, d).Add(matmulCost(n, kv, d)).Add(matmulCost(n, kv, d)).Add(matmulCost(n, d, d))
		// Scores and weighted sum: for every query position, every head
		// does two dot products of head_size with each visible position
		// (plus softmax, about 5 FLOPs per score). Keys and values of the
		// visible positions are read once per layer.
		var visible int64
		for i := range n {
			visible += int64(pos + i + 1)
		}
		hs := int64(c.HeadSize())
		attn := Cost{
			FLOPs: visible * int64(c.NHeads) * (4*hs + 5),
			Bytes: 2 * 4 * int64(pos+n) * int64(kv),
		}
		rope := Cost{FLOPs: 6 * int64(n) * int64(d+kv) / 2}
		one := proj.Add(attn).Add(rope)
		return Cost{FLOPs: L * one.FLOPs, Bytes: L * one.Bytes}
	case PartMLP:
		one := matmulCost(n, h, d).Add(matmulCost(n, h, d)).Add(matmulCost(n, d, h))
		one.FLOPs += 6 * int64(n) * int64(h) // SwiGLU: sigmoid, two multiplies
		return Cost{FLOPs: L * one.FLOPs, Bytes: L * one.Bytes}
	case PartVocab:
		return matmulCost(outputs, c.VocabSize, d)
	}
	return Cost{}
}

// StepCost is the counted work of one decode step at position pos, per part.
func (c Config) StepCost(pos int) [NumParts]Cost {
	var out [NumParts]Cost
	for p := range NumParts {
		out[p] = c.PartCost(p, 1, pos, 1)
	}
	return out
}

// AllocatedBytes runs f and returns how many bytes of heap it allocated, as
// counted by the Go runtime (runtime.MemStats.TotalAlloc). Other goroutines
// allocating at the same time are counted too.
func AllocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
