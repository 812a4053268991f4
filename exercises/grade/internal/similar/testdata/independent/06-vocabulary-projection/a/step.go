package projection

type Shape struct {
	Dim       int // d: width of the hidden state
	HiddenDim int // width of the MLP's hidden layer
	NLayers   int // number of transformer blocks
	NHeads    int // number of query heads
	NKVHeads  int // number of key/value heads
	VocabSize int // V: number of tokens in the vocabulary
}

func AttentionFLOPs(s Shape, pos int) int64 {
	dim := int64(s.Dim)
	hs := dim / int64(s.NHeads)
	kvDim := int64(s.NKVHeads) * hs
	projections := 2 * (dim*dim + kvDim*dim + kvDim*dim + dim*dim)
	rotary := 6 * (dim + kvDim) / 2
	attention := int64(pos+1) * int64(s.NHeads) * (4*hs + 5)
	return int64(s.NLayers) * (projections + rotary + attention)
}

func MLPFLOPs(s Shape) int64 {
	perLayer := 2*3*int64(s.Dim)*int64(s.HiddenDim) + 6*int64(s.HiddenDim)
	return int64(s.NLayers) * perLayer
}

func StepFLOPs(s Shape, pos int) int64 {
	embedding := int64(0)
	norms := 4 * int64(s.Dim) * int64(2*s.NLayers+1)
	return embedding + norms + AttentionFLOPs(s, pos) + MLPFLOPs(s) + ProjectionFLOPs(s.Dim, s.VocabSize)
}

func ProjectionShare(s Shape, pos int) float64 {
	proj := ProjectionFLOPs(s.Dim, s.VocabSize)
	total := StepFLOPs(s, pos)
	return float64(proj) / float64(total)
}
