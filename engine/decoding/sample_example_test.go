package decoding

import (
	"context"
	"fmt"

	"github.com/tokenbytoken/course/engine"
)

// The course's example: the same logits at three temperatures.
func ExampleSoftmax() {
	logits := []float32{3, 2, 1, 0.5}
	for _, temp := range []float64{1, 0.5, 2} {
		z := append([]float32(nil), logits...)
		ApplyTemperature(z, temp)
		fmt.Printf("T=%-3v %.2f\n", temp, Softmax(z))
	}
	// Output:
	// T=1   [0.63 0.23 0.09 0.05]
	// T=0.5 [0.86 0.12 0.02 0.01]
	// T=2   [0.44 0.27 0.16 0.13]
}

// Top-p keeps the fewest most likely tokens whose probabilities add up to
// more than p; the others get probability 0.
func ExampleApplyTopP() {
	probs := []float32{0.05, 0.6, 0.25, 0.1}
	ApplyTopP(probs, 0.8)
	fmt.Println(probs)
	probs = []float32{0.05, 0.6, 0.25, 0.1}
	ApplyTopP(probs, 0.5)
	fmt.Println(probs)
	// Output:
	// [0 0.6 0.25 0]
	// [0 0.6 0 0]
}

// Min-p keeps tokens at least min_p times as likely as the best one; the
// others get probability 0.
func ExampleApplyMinP() {
	probs := []float32{0.05, 0.6, 0.25, 0.1}
	ApplyMinP(probs, 0.2) // threshold 0.12
	fmt.Println(probs)
	// Output:
	// [0 0.6 0.25 0]
}

// A repetition penalty of 2 halves a positive logit and doubles a negative
// one, for every token already in the text.
func ExampleApplyRepetitionPenalty() {
	logits := []float32{3, 2, -1, 0.5}
	ApplyRepetitionPenalty(logits, []int{0, 2, 0}, 2)
	fmt.Println(logits)
	// Output:
	// [1.5 2 -2 0.5]
}

// SampleTrace shows what every stage of the sampler did to the
// distribution.
func ExampleSampler_SampleTrace() {
	s, err := Options{Temperature: 1, TopK: 3, TopP: 0.8, Seed: 1}.NewSampler(4)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, stages, _ := s.SampleTrace([]float32{3, 2, 1, 0.5}, nil)
	for _, st := range stages {
		fmt.Printf("%-6s %.3f\n", st.Name, st.Probs)
	}
	// Output:
	// model  [0.631 0.232 0.085 0.052]
	// top-k  [0.665 0.245 0.090 0.000]
	// top-p  [0.731 0.269 0.000 0.000]
}

// A stop sequence split across pieces is held back until it is certain.
func ExampleStopMatcher() {
	m := NewStopMatcher([]string{"\n\n"}, false)
	for _, piece := range []string{"Hi.\n", "\nMore"} {
		out, stop, stopped := m.Push(piece)
		fmt.Printf("%q %q %v\n", out, stop, stopped)
	}
	// Output:
	// "Hi." "" false
	// "" "\n\n" true
}

// Byte-fallback tokens can split a character; the stream waits for it.
func ExampleUTF8Stream() {
	var u UTF8Stream
	for _, b := range []string{"caf", "\xc3", "\xa9"} {
		fmt.Printf("%q\n", u.Push(b))
	}
	// Output:
	// "caf"
	// ""
	// "é"
}

// Generate with a tiny model built in code: a "bigram" model whose next
// token depends only on the current one (every transformer weight is zero
// except the embedding and the classifier, which hold the bigram table).
func ExampleGenerate() {
	pieces := []string{"<unk>", "<s>", "</s>", " the", " cat", " sat", " on", " mat", "."}
	tok, err := engine.NewTokenizer(pieces, make([]float32, len(pieces)), 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	// bigram[{a, b}] is the logit of b right after a (about 4× the value
	// stored, after the final RMSNorm); every other pair scores 0.
	bigram := map[[2]int]float32{
		{1, 3}: 2, {3, 4}: 2, {3, 7}: 1.5, {4, 5}: 2, {5, 6}: 2, {6, 3}: 2, {7, 8}: 2, {8, 2}: 2,
	}
	v := len(pieces)
	dim := 4 * ((v + 3) / 4) // room for a one-hot embedding; two heads of even size
	c := engine.Config{Dim: dim, HiddenDim: 2, NLayers: 1, NHeads: 2, NKVHeads: 2, VocabSize: v, SeqLen: 32}
	w := mustWeights(c)
	for i := range w.RMSFinal {
		w.RMSFinal[i] = 1
	}
	for t := range v {
		w.TokenEmbedding[t*dim+t] = 1 // one-hot: the stream is the token itself
	}
	for pair, z := range bigram {
		w.Classifier[pair[1]*dim+pair[0]] = z
	}
	m := mustModel(c, w, "bigram")

	// Greedy would loop ("the cat sat on the cat sat …"); a no-repeat 2-gram
	// rule forbids a second "the cat", so " mat" comes next.
	for step, err := range Generate(context.Background(), m, tok, "", Options{NoRepeatNGram: 2, MaxNewTokens: 10}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(step.Text)
		if step.Finish != "" {
			fmt.Printf("\n[%s after %d tokens]\n", step.Finish, step.Stats.GeneratedTokens)
		}
	}
	// Output:
	// the cat sat on the mat.
	// [eos after 8 tokens]
}
