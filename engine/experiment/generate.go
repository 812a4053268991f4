package experiment

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/parallel"
)

// Generation plumbing for the first lessons: many continuations at once,
// the logits of every step of one, and text people wrote to compare with.

// Continuations generates n new tokens after every prompt with opts (whose
// MaxNewTokens is set to n) and returns their ids, prompt by prompt. With
// seeds, every prompt is continued once per seed (opts.Seed set to it), so
// the result holds len(prompts)×len(seeds) texts: the first prompt's for
// every seed, then the second's... The texts are generated side by side,
// one per core; each is exactly what decoding.Generate gives alone.
//
// A text is shorter than n if the model ends it: ban the end-of-text
// tokens with opts.LogitBias to have every text run to n.
func Continuations(m *engine.Model, tok *engine.Tokenizer, prompts []string, n int, opts decoding.Options, seeds ...uint64) ([][]int, error) {
	if len(seeds) == 0 {
		seeds = []uint64{opts.Seed}
	}
	type job struct {
		prompt string
		seed   uint64
	}
	var jobs []job
	for _, p := range prompts {
		for _, s := range seeds {
			jobs = append(jobs, job{p, s})
		}
	}
	texts := make([][]int, len(jobs))
	errs := make([]error, len(jobs))
	parallel.For(len(jobs), true, func(_, j0, j1 int) {
		for i := j0; i < j1; i++ {
			o := opts
			o.MaxNewTokens, o.Seed = n, jobs[i].seed
			for step, err := range decoding.Generate(context.Background(), m, tok, jobs[i].prompt, o) {
				if err != nil {
					errs[i] = fmt.Errorf("continuing %q (seed %d): %w", jobs[i].prompt, jobs[i].seed, err)
					break
				}
				if step.ID != decoding.NoToken && !tok.IsEnd(step.ID) {
					texts[i] = append(texts[i], step.ID)
				}
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return texts, nil
}

// NoEnd returns opts with every token that would end the text banned (a
// logit bias of −∞, added to a copy of opts.LogitBias): BOS and each of the
// tokenizer's end tokens. An instruction-tuned model has several (SmolLM2:
// end of text and end of turn), and a continuation that must run to its
// full length has to ban them all.
func NoEnd(tok *engine.Tokenizer, opts decoding.Options) decoding.Options {
	bias := make(map[int]float32, len(opts.LogitBias)+3)
	for id, b := range opts.LogitBias {
		bias[id] = b
	}
	ban := float32(math.Inf(-1))
	bias[tok.BOS()], bias[tok.EOS()] = ban, ban
	for id := range tok.VocabSize() {
		if tok.IsEnd(id) {
			bias[id] = ban
		}
	}
	opts.LogitBias = bias
	return opts
}

// SampledSteps samples n tokens after prompt at temperature 1 with seed,
// never the tokens that end a text (so it runs to n steps, or to the
// model's context), and returns a copy of the logits at every step with the
// text written before it: steps[i] are the scores the model gave for the
// token after texts[i]. steps[0] are the logits after the prompt itself.
func SampledSteps(m *engine.Model, tok *engine.Tokenizer, prompt string, n int, seed uint64) (steps [][]float32, texts []string, err error) {
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		return nil, nil, err
	}
	st := m.NewState()
	logits, err := st.Prefill(ids, 0)
	if err != nil {
		return nil, nil, err
	}
	sampler, err := NoEnd(tok, decoding.Options{Temperature: 1, Seed: seed}).NewSampler(m.Config.VocabSize)
	if err != nil {
		return nil, nil, err
	}
	text := prompt
	for pos := len(ids); len(steps) < n && pos < m.Config.SeqLen; pos++ {
		steps, texts = append(steps, slices.Clone(logits)), append(texts, text)
		next, err := sampler.Sample(logits)
		if err != nil {
			return nil, nil, err
		}
		text += tok.Decode(ids[len(ids)-1], next)
		ids = append(ids, next)
		if logits, err = st.Forward(next, pos); err != nil {
			return nil, nil, err
		}
	}
	return steps, texts, nil
}

// TopProb returns the probability softmax gives the most likely token of
// logits: how sure the model is at that step (1 for a single token).
func TopProb(logits []float32) float64 {
	return math.Exp(decoding.TopLogProbs(logits, 1)[0].LogProb)
}

// SurestSteps returns the step where the model was most sure of its
// favourite (the highest TopProb) and the step where it was least sure;
// the first such step on a tie. steps must not be empty.
func SurestSteps(steps [][]float32) (sure, unsure int) {
	best, worst := TopProb(steps[0]), TopProb(steps[0])
	for i, l := range steps[1:] {
		p := TopProb(l)
		if p > best {
			sure, best = i+1, p
		}
		if p < worst {
			unsure, worst = i+1, p
		}
	}
	return sure, unsure
}

// MiddleOf returns about size bytes from the middle of text, starting at the
// beginning of a line: from the first line that starts at or after
// len(text)/2, for at most size bytes. Text with no line start in its
// second half gives "".
func MiddleOf(text string, size int) string {
	mid := len(text) / 2
	if mid > 0 && text[mid-1] != '\n' {
		nl := strings.IndexByte(text[mid:], '\n')
		if nl < 0 {
			return ""
		}
		mid += nl + 1
	}
	return text[mid:min(mid+size, len(text))]
}

// GoSource returns size bytes from the middle of each of files (paths under
// the Go installation's src/, such as "strings/strings.go"), each starting
// at a line (see MiddleOf): code people wrote, to compare with the model's.
func GoSource(files []string, size int) ([]string, error) {
	root, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("finding the Go installation: %w", err)
	}
	var texts []string
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(string(bytes.TrimSpace(root)), "src", f))
		if err != nil {
			return nil, err
		}
		texts = append(texts, MiddleOf(string(src), size))
	}
	return texts, nil
}

// NextTokens encodes prompt (with the beginning-of-text token), runs it
// through the model and returns its ids and the k most likely next tokens,
// most likely first, leaving out the tokens that would end the text.
func NextTokens(m *engine.Model, tok *engine.Tokenizer, prompt string, k int) (ids []int, next []decoding.TokenLogProb, err error) {
	ids, err = tok.Encode(prompt, true, false)
	if err != nil {
		return nil, nil, err
	}
	logits, err := m.NewState().Prefill(ids, 0)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range decoding.TopLogProbs(logits, len(logits)) {
		if len(next) == k {
			break
		}
		if !tok.IsEnd(t.ID) {
			next = append(next, t)
		}
	}
	return ids, next, nil
}
