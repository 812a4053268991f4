package projection

// Shape is the shape of a Llama model: everything the cost of a decode step
// depends on. The fields are named like those of the engine's Config, so
// that Shape{Dim: c.Dim, HiddenDim: c.HiddenDim, …} copies one.
//
// The head size is Dim / NHeads, and the keys (and values) of one position
// in one layer have kvDim = NKVHeads × head size numbers: with grouped-query
// attention NKVHeads is smaller than NHeads and several query heads share
// one key/value head. The functions below may assume every field is
// positive, NHeads divides Dim and NKVHeads divides NHeads, as in every real
// model.
type Shape struct {
	Dim       int // d: width of the hidden state
	HiddenDim int // width of the MLP's hidden layer
	NLayers   int // number of transformer blocks
	NHeads    int // number of query heads
	NKVHeads  int // number of key/value heads
	VocabSize int // V: number of tokens in the vocabulary
}

// AttentionFLOPs is the work of the attention blocks of all layers in one
// decode step: one token at position pos (counting from 0), so the
// context it attends over is pos+1 positions, itself included. Task 3.
//
// Count FLOPs as engine/cost.go does (a multiply-add is 2). With
// hs = Dim/NHeads and kvDim = NKVHeads·hs, one layer costs the sum of:
//
//   - the four projections, 2·(Dim·Dim + kvDim·Dim + kvDim·Dim + Dim·Dim):
//     the query (Dim × Dim), the key and the value (kvDim × Dim each: only
//     NKVHeads heads of them) and the output projection (Dim × Dim);
//   - the rotary position embedding of the query and the key, 6 FLOPs per
//     rotated pair of numbers: 6·(Dim + kvDim)/2;
//   - attention over the context: for each of the pos+1 positions and each
//     of the NHeads query heads, a dot product q·k of length hs (2·hs), the
//     weighted sum of the values (2·hs) and a share of the softmax (5):
//     (pos+1)·NHeads·(4·hs + 5).
//
// Return NLayers times that.
func AttentionFLOPs(s Shape, pos int) int64 {
	return 0
}

// MLPFLOPs is the work of the MLP blocks of all layers in one decode step.
// Task 3.
//
// Each layer's SwiGLU MLP multiplies by three matrices — the gate and the
// up projection (HiddenDim × Dim each) and the down projection (Dim ×
// HiddenDim) — 2·3·Dim·HiddenDim FLOPs, and combines gate and up with
// 6 FLOPs per hidden unit (a sigmoid and two multiplies): 6·HiddenDim.
// Return NLayers times that. The MLP's cost does not depend on the
// position.
func MLPFLOPs(s Shape) int64 {
	return 0
}

// StepFLOPs is the work of one whole decode step at position pos, as the
// sum of the engine's five parts (engine.Config.StepCost):
//
//   - embedding: copying the token's row, 0 FLOPs;
//   - norms: 2 RMSNorms per layer and a final one, 4 FLOPs per number:
//     4·Dim·(2·NLayers + 1);
//   - attention: AttentionFLOPs(s, pos);
//   - MLP: MLPFLOPs(s);
//   - vocabulary projection: ProjectionFLOPs(Dim, VocabSize).
//
// Task 3.
func StepFLOPs(s Shape, pos int) int64 {
	return 0
}

// ProjectionShare is the fraction of StepFLOPs(s, pos) spent in the
// vocabulary projection, between 0 and 1. Task 3.
func ProjectionShare(s Shape, pos int) float64 {
	return 0
}
