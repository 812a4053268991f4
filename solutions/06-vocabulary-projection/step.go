package projection

// Shape is the shape of a Llama model: everything the cost of a decode step
// depends on. The fields are named like those of the engine's Config; all
// are positive, NHeads divides Dim and NKVHeads divides NHeads.
type Shape struct {
	Dim       int // d: width of the hidden state
	HiddenDim int // width of the MLP's hidden layer
	NLayers   int // number of transformer blocks
	NHeads    int // number of query heads
	NKVHeads  int // number of key/value heads
	VocabSize int // V: number of tokens in the vocabulary
}

// matmulFLOPs is the work of multiplying one vector by a rows × cols
// matrix: a multiply-add per weight.
func matmulFLOPs(rows, cols int) int64 {
	return 2 * int64(rows) * int64(cols)
}

// AttentionFLOPs is the work of the attention blocks of all layers for one
// token at position pos: the four projections (the key and value ones only
// kvDim rows tall under grouped-query attention), the rotary embedding of
// query and key, and for every query head a score and a weighted value per
// position of the context, plus the softmax.
func AttentionFLOPs(s Shape, pos int) int64 {
	d := s.Dim
	hs := s.Dim / s.NHeads
	kvDim := s.NKVHeads * hs
	proj := matmulFLOPs(d, d) + 2*matmulFLOPs(kvDim, d) + matmulFLOPs(d, d)
	rope := 6 * int64(d+kvDim) / 2
	context := int64(pos+1) * int64(s.NHeads) * (4*int64(hs) + 5)
	return int64(s.NLayers) * (proj + rope + context)
}

// MLPFLOPs is the work of the SwiGLU MLP blocks of all layers: three
// matrices of Dim × HiddenDim weights, and 6 FLOPs per hidden unit to
// combine the gate with the up projection.
func MLPFLOPs(s Shape) int64 {
	one := 3*matmulFLOPs(s.HiddenDim, s.Dim) + 6*int64(s.HiddenDim)
	return int64(s.NLayers) * one
}

// StepFLOPs is the work of one decode step at position pos: the norms, the
// attention and MLP blocks, and the projection to the vocabulary (copying
// the embedding row costs no arithmetic).
func StepFLOPs(s Shape, pos int) int64 {
	norms := 4 * int64(s.Dim) * (2*int64(s.NLayers) + 1)
	return norms + AttentionFLOPs(s, pos) + MLPFLOPs(s) + ProjectionFLOPs(s.Dim, s.VocabSize)
}

// ProjectionShare is the fraction of a decode step's FLOPs spent in the
// vocabulary projection.
func ProjectionShare(s Shape, pos int) float64 {
	return float64(ProjectionFLOPs(s.Dim, s.VocabSize)) / float64(StepFLOPs(s, pos))
}
