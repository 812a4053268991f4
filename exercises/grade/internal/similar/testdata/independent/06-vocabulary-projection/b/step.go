package projection

type Shape struct {
	Dim, HiddenDim, NLayers, NHeads, NKVHeads, VocabSize int
}

// dims are a shape's sizes in int64, with the head sizes derived.
type dims struct {
	d, hidden, layers, heads, kvHeads, vocab, hs, kv int64
}

func (s Shape) dims() dims {
	x := dims{
		d: int64(s.Dim), hidden: int64(s.HiddenDim), layers: int64(s.NLayers),
		heads: int64(s.NHeads), kvHeads: int64(s.NKVHeads), vocab: int64(s.VocabSize),
	}
	x.hs = x.d / x.heads
	x.kv = x.kvHeads * x.hs
	return x
}

func AttentionFLOPs(s Shape, pos int) int64 {
	x := s.dims()
	perLayer := 4*x.d*x.d + 4*x.kv*x.d // q, o: d×d; k, v: kv×d; 2 FLOPs each
	perLayer += 3 * (x.d + x.kv)       // rotary: 6 per pair
	perLayer += (int64(pos) + 1) * x.heads * (4*x.hs + 5)
	return perLayer * x.layers
}

func MLPFLOPs(s Shape) int64 {
	x := s.dims()
	return x.layers * x.hidden * (6*x.d + 6)
}

func StepFLOPs(s Shape, pos int) int64 {
	x := s.dims()
	var total int64
	total += 4 * x.d * (2*x.layers + 1)
	total += AttentionFLOPs(s, pos)
	total += MLPFLOPs(s)
	total += 2 * x.d * x.vocab
	return total
}

func ProjectionShare(s Shape, pos int) float64 {
	x := s.dims()
	return float64(2*x.d*x.vocab) / float64(StepFLOPs(s, pos))
}
