package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/engine/internal/quant"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
)

// llama.cpp's greedy runs on SmolLM2-135M-Instruct: for each prompt, its
// token ids, then at every step the greedy token, the 20 highest logits and
// the log-sum-exp of them all. testdata/llamacpp/ has the project's own
// recordings (see its README); the course's shared folder beside the
// checkout, where present, has more.
type llamaCppRun struct {
	Prompt    string `json:"prompt"`
	PromptIDs []int  `json:"prompt_ids"`
	Steps     []struct {
		ID        int          `json:"id"`
		LogSumExp *float64     `json:"logsumexp"`
		LSE       *float64     `json:"lse"`
		Top       [][2]float64 `json:"top"`
	} `json:"steps"`
}

// llamaCppRuns reads every recording there is; the project's own must be
// there.
func llamaCppRuns(t *testing.T) map[string][]llamaCppRun {
	t.Helper()
	files := map[string]string{
		"own":    filepath.Join("testdata", "llamacpp", "smollm2-greedy.jsonl"),
		"shared": filepath.Join("..", "..", "shared", "models", "smollm2", "llamacpp-greedy.jsonl"),
	}
	runs := map[string][]llamaCppRun{}
	for name, path := range files {
		f, err := os.Open(path)
		if err != nil {
			if name == "own" && testmodel.Required() {
				t.Errorf("the project's recordings: %v", err)
			}
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var r llamaCppRun
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			runs[name] = append(runs[name], r)
		}
		f.Close()
	}
	if len(runs) == 0 {
		t.Skip("no recordings of llama.cpp")
	}
	return runs
}

// TestSmolLM2MatchesLlamaCpp feeds llama.cpp's tokens (teacher forcing) and
// compares, at every step of every recorded prompt, the 20 logits llama.cpp
// recorded and the log-probability of its greedy token, and the greedy
// choice itself.
//
// The engine computes a GGUF model with llama.cpp's arithmetic (Arithmetic
// LlamaCpp: its quantization of activations, its order of operations in
// the products, its f16 keys and values and flash attention, the C
// library's expf and sincosf), so its logits are llama.cpp's, bit for bit;
// the bounds only allow for the recordings' 7 significant digits. The
// greedy choice must then be llama.cpp's at every step where the recorded
// top two differ. The course's shared recordings, where present, are
// compared and logged, not bounded: they were made by another build of
// llama.cpp, with other arithmetic (see testdata/llamacpp/README.md).
func TestSmolLM2MatchesLlamaCpp(t *testing.T) {
	testmodel.Path(t, testmodel.SmolLM2)
	m, tok, err := smolLM2()
	if err != nil {
		t.Fatal(err)
	}
	const (
		bound   = 1e-4 // the largest logit difference allowed
		lpBound = 1e-4 // the largest log-probability difference allowed
	)
	for source, runs := range llamaCppRuns(t) {
		worst, worstLP, steps, disagree := 0.0, 0.0, 0, 0
		for _, r := range runs {
			ids, err := tok.Encode(r.Prompt, true, false)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids, r.PromptIDs) {
				t.Errorf("%s %q: Encode gives %v; llama.cpp %v", source, r.Prompt, ids, r.PromptIDs)
				continue
			}
			if source == "shared" && len(ids) >= 32 {
				continue
			}
			s := m.NewState()
			logits, err := s.Prefill(ids, 0)
			if err != nil {
				t.Fatal(err)
			}
			pos := len(ids)
			for i, step := range r.Steps {
				for _, top := range step.Top {
					worst = max(worst, math.Abs(float64(logits[int(top[0])])-top[1]))
				}
				recordedLSE := 0.0
				switch {
				case step.LogSumExp != nil:
					recordedLSE = *step.LogSumExp
				case step.LSE != nil:
					recordedLSE = *step.LSE
				}
				want := step.Top[0][1] - recordedLSE
				got := float64(logits[int(step.Top[0][0])]) - logSumExp64(logits)
				worstLP = max(worstLP, math.Abs(got-want))
				gap := step.Top[0][1] - step.Top[1][1]
				if got := argmax(logits); got != step.ID {
					disagree++
					if gap > 0 && source == "own" {
						t.Errorf("%q step %d: greedy %d (%q), llama.cpp %d (%q), recorded top-two gap %.3f",
							r.Prompt, i, got, tok.Decode(0, got), step.ID, tok.Decode(0, step.ID), gap)
					}
				}
				steps++
				if i == len(r.Steps)-1 {
					break
				}
				if logits, err = s.Forward(step.ID, pos); err != nil {
					t.Fatal(err)
				}
				pos++
			}
		}
		t.Logf("%s recordings: %d steps, greedy choice differs at %d; largest logit difference %.2g, largest log-probability difference %.2g",
			source, steps, disagree, worst, worstLP)
		if source == "own" && worst > bound {
			t.Errorf("the largest logit difference from llama.cpp is %.6f; want at most %g", worst, bound)
		}
		if source == "own" && worstLP > lpBound {
			t.Errorf("the largest log-probability difference from llama.cpp is %.6f; want at most %g", worstLP, lpBound)
		}
	}
}

// exactRun is a sequence's logits computed exactly (testdata/exact: the
// weights dequantized by llama.cpp's gguf package, the forward pass in
// float64): at each position from the prompt's last token on, the 20
// highest logits and the log-sum-exp of them all.
type exactRun struct {
	Prompt string `json:"prompt"`
	IDs    []int  `json:"ids"`
	Steps  []struct {
		Position int          `json:"position"`
		LSE      float64      `json:"lse"`
		Top      [][2]float64 `json:"top"`
	} `json:"steps"`
}

func exactRuns(t *testing.T) []exactRun {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "exact", "smollm2-float64.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var runs []exactRun
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r exactRun
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return runs
}

// dequantized is m with every matrix dequantized to float32: the same
// weights, without the quantized products' rounding of the activations.
func dequantized(t *testing.T, m *Model) *Model {
	t.Helper()
	mats := *m.Matrices
	mats.Arithmetic = RunC // float32 between the products too
	mats.Layers = slices.Clone(mats.Layers)
	f32 := func(mx *Matrix) *Matrix {
		w := make([]float32, mx.Rows()*mx.Cols())
		mx.Dequantize(w)
		out, err := quant.NewMatrixF32(mx.Rows(), mx.Cols(), w)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	mats.Embedding = f32(mats.Embedding)
	mats.Classifier = mats.Embedding
	for i := range mats.Layers {
		L := &mats.Layers[i]
		L.Wq, L.Wk, L.Wv, L.Wo = f32(L.Wq), f32(L.Wk), f32(L.Wv), f32(L.Wo)
		L.W1, L.W2, L.W3 = f32(L.W1), f32(L.W2), f32(L.W3)
	}
	return &Model{Config: m.Config, Matrices: &mats, Name: m.Name + " (dequantized)"}
}

// TestSmolLM2MatchesFloat64 compares the engine's logits with the exact
// ones at every recorded position: with the weights dequantized and
// float32 arithmetic between the products (RunC), the engine must give
// them to a few thousandths; with the model as it is, quantized and in
// llama.cpp's arithmetic, within what llama.cpp's rounding costs on this
// model (the engine's logits being llama.cpp's: see
// TestSmolLM2MatchesLlamaCpp).
func TestSmolLM2MatchesFloat64(t *testing.T) {
	testmodel.Path(t, testmodel.SmolLM2)
	m, _, err := smolLM2()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		m     *Model
		bound float64
	}{{"dequantized", dequantized(t, m), 0.01}, {"quantized", m, 1.25}} {
		worst, sum, n := 0.0, 0.0, 0
		for _, r := range exactRuns(t) {
			all, err := c.m.NewState().PrefillAll(r.IDs, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, step := range r.Steps {
				logits := all[step.Position]
				for _, top := range step.Top {
					d := math.Abs(float64(logits[int(top[0])]) - top[1])
					worst = max(worst, d)
					sum += d
					n++
				}
			}
		}
		t.Logf("%s: %d logits, largest difference from the exact ones %.4f, mean %.4f", c.name, n, worst, sum/float64(n))
		if worst > c.bound {
			t.Errorf("%s: the largest difference from the exact logits is %.4f; want at most %.2f", c.name, worst, c.bound)
		}
	}
}

// TestSmolLM2TokenizesAsLlamaCpp: the engine's Tokenizer for SmolLM2 gives
// llama.cpp's ids for the recorded texts, with special tokens recognised
// (Encode, as for a prompt) and as plain text (EncodeText).
func TestSmolLM2TokenizesAsLlamaCpp(t *testing.T) {
	testmodel.Path(t, testmodel.SmolLM2)
	_, tok, err := smolLM2()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "llamacpp", "smollm2-tokenize.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r struct {
			Text       string `json:"text"`
			IDs        []int  `json:"ids"`
			IDsSpecial []int  `json:"ids_special"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		special, err := tok.Encode(r.Text, false, false)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := tok.EncodeText(r.Text, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(special, r.IDsSpecial) {
			t.Errorf("Encode(%q) = %v; llama.cpp %v", r.Text, special, r.IDsSpecial)
		}
		if !slices.Equal(plain, r.IDs) {
			t.Errorf("EncodeText(%q) = %v; llama.cpp %v", r.Text, plain, r.IDs)
		}
		n++
	}
	if n < 40 {
		t.Errorf("%d recorded texts; want the 40 of testdata/llamacpp", n)
	}
}
