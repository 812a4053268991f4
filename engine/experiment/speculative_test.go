package experiment

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
)

// lateTableLM always gives the same logits, whatever the prefix.
type lateTableLM []float32

func (m lateTableLM) VocabSize() int { return len(m) }

func (m lateTableLM) ContextLength() int { return 64 }

func (m lateTableLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = slices.Clone(m)
	}
	return rows, nil
}

func lateNear(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestExpectedTokensPerPass(t *testing.T) {
	for _, c := range []struct {
		alpha float64
		gamma int
		want  float64
	}{
		{0, 4, 1},            // every first proposal rejected: the target's own token
		{1, 4, 5},            // every proposal accepted, plus the bonus
		{0.5, 2, 1.75},       // 1 + 0.5 + 0.25
		{0.8, 4, 3.36160000}, // (1 − 0.8⁵) / 0.2
	} {
		if got := ExpectedTokensPerPass(c.alpha, c.gamma); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("ExpectedTokensPerPass(%v, %d) = %v, want %v", c.alpha, c.gamma, got, c.want)
		}
	}
}

func TestMeasureSpeculativeCountsRounds(t *testing.T) {
	target := lateTableLM{0, 5, 0}
	// A draft that agrees with the target: every round yields γ+1 tokens.
	run, err := MeasureSpeculative(target, []int{0}, decoding.Options{MaxNewTokens: 9, Decoder: decoding.Speculation{Drafter: decoding.DraftLM{LM: target}, Gamma: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(run.Yields, []int{3, 3, 3}) || run.Stats.TargetPasses != 3 {
		t.Errorf("agreeing draft: yields %v from %d passes, want [3 3 3] from 3", run.Yields, run.Stats.TargetPasses)
	}
	// A draft that always proposes what the target never picks: one token
	// per round, the target's own.
	run, err = MeasureSpeculative(target, []int{0}, decoding.Options{MaxNewTokens: 4, Decoder: decoding.Speculation{Drafter: decoding.DraftLM{LM: lateTableLM{0, 0, 5}}, Gamma: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(run.Yields, []int{1, 1, 1, 1}) || run.Stats.AcceptanceRate() != 0 {
		t.Errorf("disagreeing draft: yields %v, α %v, want [1 1 1 1], 0", run.Yields, run.Stats.AcceptanceRate())
	}
	if !slices.Equal(run.Stats.Tokens, []int{1, 1, 1, 1}) {
		t.Errorf("tokens %v, want the target's [1 1 1 1]", run.Stats.Tokens)
	}
}

func TestYieldShares(t *testing.T) {
	r := SpeculativeRun{Gamma: 2, Yields: []int{1, 2, 3, 3},
		Stats: decoding.SpeculativeStats{Accepted: 5, Rejected: 5}} // α = 0.5
	measured, predicted := r.YieldShares()
	if !slices.Equal(measured, []float64{0.25, 0.25, 0.5}) {
		t.Errorf("measured %v, want [0.25 0.25 0.5]", measured)
	}
	// 1 token: rejected at once (0.5); 2: one accepted, then rejected
	// (0.25); 3: both accepted (0.25).
	if !slices.Equal(predicted, []float64{0.5, 0.25, 0.25}) {
		t.Errorf("predicted %v, want [0.5 0.25 0.25]", predicted)
	}
}

func TestTotalVariationAndShares(t *testing.T) {
	if got := TotalVariation([]float64{0.5, 0.5}, []float64{1, 0}); !lateNear(got, 0.5) {
		t.Errorf("TotalVariation = %v, want 0.5", got)
	}
	if got := TotalVariation([]float64{0.2, 0.8}, []float64{0.2, 0.8}); got != 0 {
		t.Errorf("TotalVariation of a distribution with itself = %v", got)
	}
	if got := Shares([]int{1, 3, 0}); !slices.Equal(got, []float64{0.25, 0.75, 0}) {
		t.Errorf("Shares = %v, want [0.25 0.75 0]", got)
	}
}

func TestTargetDrawsAreGenerateFirstTokens(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "func main() {"
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		t.Fatal(err)
	}
	prev := make([]int, m.Config.VocabSize)
	for seed := uint64(1); seed <= 3; seed++ {
		counts, err := TargetDraws(m, ids, 1, int(seed))
		if err != nil {
			t.Fatal(err)
		}
		var first int
		for step, err := range decoding.Generate(context.Background(), m, tok, prompt, decoding.Options{MaxNewTokens: 1, Temperature: 1, Seed: seed}) {
			if err != nil {
				t.Fatal(err)
			}
			first = step.ID
		}
		if counts[first] != prev[first]+1 {
			t.Errorf("seed %d: Generate's first token %d is not the new draw", seed, first)
		}
		prev = counts
	}
}

// The claim notebook 10 measures: speculative sampling draws from the
// target's distribution, not the draft's. After this prompt the draft puts
// nearly all its probability on "\n\t", the target only about 0.6.
func TestSpeculativeDrawsFollowTheTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("draws 500 tokens")
	}
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := models.Draft()
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := tok.Encode("func (b *Buffer) WriteString(s string) (n int, err error) {", true, false)
	p, err := NextTokenDistribution(m, ids, 1)
	if err != nil {
		t.Fatal(err)
	}
	q, err := NextTokenDistribution(d, ids, 1)
	if err != nil {
		t.Fatal(err)
	}
	const draws = 500
	counts, err := SpeculativeDraws(m, d, ids, 1, 1, draws)
	if err != nil {
		t.Fatal(err)
	}
	spec := Shares(counts)
	top, _ := tok.Lookup("\n\t")
	// The share of 500 draws has a standard deviation of at most
	// sqrt(0.25/500) ≈ 0.022; 0.09 is four of them.
	if q[top]-p[top] < 0.2 || math.Abs(spec[top]-p[top]) > 0.09 {
		t.Errorf(`"\n\t": p %.3f, q %.3f, speculative %.3f: want the draft far above the target and the draws near the target`, p[top], q[top], spec[top])
	}
	if TotalVariation(spec, q) < 0.25 {
		t.Errorf("TV from the draws to the draft %.3f: they follow the draft", TotalVariation(spec, q))
	}
}

func TestBestTimeAndGreedyTokens(t *testing.T) {
	calls := 0
	d := BestTime(3, func() {
		calls++
		if calls == 2 {
			return // the fast run
		}
		time.Sleep(20 * time.Millisecond)
	})
	if calls != 3 || d >= 20*time.Millisecond {
		t.Errorf("BestTime: %d calls, best %v; want 3 calls and the fast run", calls, d)
	}
	if got := Milliseconds(1500 * time.Microsecond); got != 1.5 {
		t.Errorf("Milliseconds(1.5ms) = %v", got)
	}
	// Token 2 is the best after anything; the end test stops after it.
	got, err := GreedyTokens(lateTableLM{0, 1, 2}, []int{0}, 5, func(id int) bool { return id == 2 })
	if err != nil || !slices.Equal(got, []int{2}) {
		t.Errorf("GreedyTokens = %v, %v; want [2]", got, err)
	}
	got, _ = GreedyTokens(lateTableLM{0, 1, 2}, []int{0}, 3, nil)
	if !slices.Equal(got, []int{2, 2, 2}) {
		t.Errorf("GreedyTokens without an end = %v, want [2 2 2]", got)
	}
}

func TestStepFLOPs(t *testing.T) {
	c := engine.Config{Dim: 8, HiddenDim: 16, NLayers: 1, NHeads: 2, NKVHeads: 2, VocabSize: 10, SeqLen: 4, SharedClassifier: true}
	total, vocab := StepFLOPs(c)
	// The vocabulary projection multiplies a vector of 8 by a 10×8 matrix:
	// 10·8 multiply-adds, 2 FLOPs each.
	if vocab != 160 {
		t.Errorf("vocabulary projection %d FLOPs, want 2·10·8 = 160", vocab)
	}
	var sum int64
	for _, cost := range c.StepCost(1) {
		sum += cost.FLOPs
	}
	if total != sum || total <= vocab {
		t.Errorf("total %d, want the sum of the parts %d, more than the projection", total, sum)
	}
}

func TestTopIDsAndTokenCounts(t *testing.T) {
	if got := TopIDs([]float64{0.2, 0.5, 0.2, 0.1}, 3); !slices.Equal(got, []int{1, 0, 2}) {
		t.Errorf("TopIDs = %v, want [1 0 2]: the largest, then the tie in id order", got)
	}
	if got := TopIDs([]float64{0.3, 0.7}, 5); !slices.Equal(got, []int{1, 0}) {
		t.Errorf("TopIDs with k past the end = %v, want [1 0]", got)
	}
	got := TokenCounts([][]int{{1, 2}, {1, 3}, {0}, {1, 2}}, 1, 4)
	if !slices.Equal(got, []int{0, 0, 2, 1}) {
		t.Errorf("TokenCounts = %v, want [0 0 2 1]", got)
	}
}

// The counts are those of one speculative run (decoding.Speculation) per seed, whoever
// draws them.
func TestSpeculativeDrawsCountEverySeedOnce(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := models.Draft()
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := tok.Encode("func main() {", true, false)
	const draws = 7
	counts, err := SpeculativeDraws(m, d, ids, 2, 1, draws)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int, len(counts))
	for seed := uint64(1); seed <= draws; seed++ {
		run, err := MeasureSpeculative(engine.NewModelLM(m, 1), ids,
			decoding.Options{MaxNewTokens: 3, Temperature: 1, Seed: seed, Decoder: decoding.Speculation{Drafter: decoding.DraftLM{LM: engine.NewModelLM(d, 1)}, Gamma: 2}})
		if err != nil {
			t.Fatal(err)
		}
		want[run.Stats.Tokens[0]]++
	}
	if !slices.Equal(counts, want) {
		t.Error("the counts differ from one run per seed")
	}
}
