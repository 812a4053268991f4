package train

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
)

// patternData is a token stream with an obvious structure (a repeated
// phrase), which a tiny model learns in a few dozen steps.
func patternData(vocab int) *Data {
	phrase := []uint16{1, 260, 261, 262, 263, 264, 265, 266, 2}
	var s []uint16
	for i := 0; len(s) < 4000; i++ {
		s = append(s, phrase...)
		s = append(s, uint16(259+i%(vocab-259)))
	}
	return &Data{Train: s, Val: s[:400], TrainBytes: int64(len(s)), ValBytes: 400, VocabSize: vocab}
}

func tinyTrainConfig(steps int) Config {
	return Config{Model: tinyConfig, BatchSize: 4, Steps: steps, LR: 1e-2, MinLR: 1e-3, WarmupSteps: 3,
		WeightDecay: 0.1, GradClip: 1, Seed: 42, EvalEvery: 5, EvalBatches: 2}
}

func TestTrainingLowersTheLoss(t *testing.T) {
	cfg := tinyTrainConfig(60)
	var first, last Progress
	st, err := Train(context.Background(), cfg, patternData(cfg.Model.VocabSize), Options{OnStep: func(p Progress) {
		if p.Step == 1 {
			first = p
		}
		last = p
	}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Step != 60 || last.Step != 60 || len(st.History) != 60 {
		t.Fatalf("ran %d steps (progress %d, history %d), want 60", st.Step, last.Step, len(st.History))
	}
	if !(last.Loss < first.Loss/2) {
		t.Errorf("loss went from %.3f to %.3f; expected it to halve", first.Loss, last.Loss)
	}
	if math.IsNaN(st.ValLoss) || st.ValLoss > first.Loss/2 {
		t.Errorf("validation loss %.3f (first training loss %.3f)", st.ValLoss, first.Loss)
	}
	if last.TokensPerSec <= 0 || last.Tokens != int64(60*cfg.TokensPerStep()) {
		t.Errorf("progress reports %v tokens/s and %d tokens", last.TokensPerSec, last.Tokens)
	}
}

// TestInterruptedRunResumesExactly stops a run through its context, resumes
// it from the checkpoint, and checks that the result is bit for bit the
// result of an uninterrupted run: weights, optimizer moments and counters.
func TestInterruptedRunResumesExactly(t *testing.T) {
	cfg := tinyTrainConfig(8)
	data := patternData(cfg.Model.VocabSize)
	straight, err := Train(context.Background(), cfg, data, Options{})
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	ckpt := filepath.Join(dir, "run.ckpt")
	ctx, cancel := context.WithCancel(context.Background())
	_, err = Train(ctx, cfg, data, Options{Checkpoint: ckpt, OnStep: func(p Progress) {
		if p.Step == 3 {
			cancel() // like Ctrl-C during step 4's wait
		}
	}})
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "resume") {
		t.Fatalf("interrupted run: got error %v", err)
	}
	saved, err := LoadState(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Step != 3 {
		t.Fatalf("checkpoint at step %d, want 3", saved.Step)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d files, want only the checkpoint (no temporary files)", len(entries))
	}

	resumed, err := Train(context.Background(), cfg, data, Options{Checkpoint: ckpt})
	if err != nil {
		t.Fatal(err)
	}
	if resumed.Step != 8 || resumed.Tokens != straight.Tokens {
		t.Fatalf("resumed run: step %d tokens %d; want 8, %d", resumed.Step, resumed.Tokens, straight.Tokens)
	}
	for name, pair := range map[string][2][]float32{
		"weights": {straight.Params.Data, resumed.Params.Data},
		"m":       {straight.Opt.M, resumed.Opt.M},
		"v":       {straight.Opt.V, resumed.Opt.V},
	} {
		for i := range pair[0] {
			if pair[0][i] != pair[1][i] {
				t.Fatalf("%s[%d] differs after resuming: %v vs %v", name, i, pair[0][i], pair[1][i])
			}
		}
	}
	if len(resumed.History) != 8 {
		t.Errorf("history has %d points, want 8", len(resumed.History))
	}

	// A finished run started again does nothing and keeps its result.
	again, err := Train(context.Background(), cfg, data, Options{Checkpoint: ckpt})
	if err != nil || again.Step != 8 || again.Params.Data[0] != resumed.Params.Data[0] {
		t.Errorf("re-running a finished run: step %d, err %v", again.Step, err)
	}
	// Asking for fewer steps than done is an error; asking for more
	// extends the run.
	shorter := cfg
	shorter.Steps = 4
	if _, err := Train(context.Background(), shorter, data, Options{Checkpoint: ckpt}); err == nil || !strings.Contains(err.Error(), "already at step 8") {
		t.Errorf("fewer steps than done: got %v", err)
	}
	longer := cfg
	longer.Steps = 10
	ext, err := Train(context.Background(), longer, data, Options{Checkpoint: ckpt})
	if err != nil || ext.Step != 10 || len(ext.History) != 10 {
		t.Errorf("extending to 10 steps: %v", err)
	}
}

func TestTrainRejectsBadInput(t *testing.T) {
	data := patternData(tinyConfig.VocabSize)
	bad := func(name string, mutate func(*Config), d *Data, want string) {
		t.Helper()
		cfg := tinyTrainConfig(4)
		mutate(&cfg)
		_, err := Train(context.Background(), cfg, d, Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, want)
		}
	}
	bad("heads not dividing dim", func(c *Config) { c.Model.NHeads = 3 }, data, "does not divide")
	bad("kv heads not dividing heads", func(c *Config) { c.Model.NKVHeads = 3 }, data, "does not divide")
	bad("small vocabulary", func(c *Config) { c.Model.VocabSize = 200 }, data, "vocab_size 200")
	bad("separate classifier", func(c *Config) { c.Model.SharedClassifier = false }, data, "shared")
	bad("no steps", func(c *Config) { c.Steps = 0 }, data, "steps")
	bad("no batch", func(c *Config) { c.BatchSize = 0 }, data, "batch size")
	bad("short data", func(c *Config) {}, &Data{Train: []uint16{1, 2, 3}, Val: data.Val}, "too short")
	bad("tokens outside the vocabulary", func(c *Config) { c.Model.VocabSize = 262 }, data, "outside the model's vocabulary")

	// A checkpoint of another run, or a corrupt one, is reported and left
	// untouched.
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "run.ckpt")
	cfg := tinyTrainConfig(2)
	cfg.WarmupSteps = 1
	if _, err := Train(context.Background(), cfg, data, Options{Checkpoint: ckpt}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(ckpt)
	other := cfg
	other.Seed++
	if _, err := Train(context.Background(), other, data, Options{Checkpoint: ckpt}); err == nil || !strings.Contains(err.Error(), "different run") {
		t.Errorf("other run's checkpoint: got %v", err)
	}
	os.WriteFile(ckpt, before[:len(before)/2], 0o644)
	if _, err := Train(context.Background(), cfg, data, Options{Checkpoint: ckpt}); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated checkpoint: got %v", err)
	}
	if after, _ := os.ReadFile(ckpt); len(after) != len(before)/2 {
		t.Error("a bad checkpoint was overwritten")
	}
}

func TestLearningRateSchedule(t *testing.T) {
	const steps, warmup, peak, floor = 100, 10, 1e-3, 1e-4
	if lr := LearningRate(0, steps, warmup, peak, floor); math.Abs(lr-peak/warmup) > 1e-12 {
		t.Errorf("first step: %v, want %v", lr, peak/warmup)
	}
	if lr := LearningRate(warmup-1, steps, warmup, peak, floor); lr != peak {
		t.Errorf("end of warm-up: %v, want peak %v", lr, peak)
	}
	if lr := LearningRate(steps-1, steps, warmup, peak, floor); math.Abs(lr-floor) > 1e-12 {
		t.Errorf("last step: %v, want floor %v", lr, floor)
	}
	mid := LearningRate(warmup+(steps-warmup-1)/2, steps, warmup, peak, floor)
	if math.Abs(mid-(peak+floor)/2) > 1e-5 {
		t.Errorf("half-way through the decay: %v, want about %v", mid, (peak+floor)/2)
	}
	prev := math.Inf(1)
	for s := warmup; s < steps; s++ {
		lr := LearningRate(s, steps, warmup, peak, floor)
		if lr > prev {
			t.Fatalf("learning rate rises at step %d", s)
		}
		prev = lr
	}
}

func TestClipGradNorm(t *testing.T) {
	g := []float32{3, 4}
	if n := ClipGradNorm(g, 1); n != 5 || math.Abs(float64(g[0])-0.6) > 1e-6 || math.Abs(float64(g[1])-0.8) > 1e-6 {
		t.Errorf("clip to 1: norm %v, g %v", n, g)
	}
	g = []float32{0.3, 0.4}
	if n := ClipGradNorm(g, 1); math.Abs(n-0.5) > 1e-6 || g[0] != 0.3 {
		t.Errorf("below the limit the gradient must not change: norm %v, g %v", n, g)
	}
}

func TestAdamWFirstStep(t *testing.T) {
	// On the first step Adam's bias-corrected update is lr·sign(g) (plus
	// decay for matrices): every weight moves by about lr.
	c := tinyConfig
	p, _ := NewParams(c)
	p.Init(1)
	before := append([]float32(nil), p.Data...)
	g := make([]float32, len(p.Data))
	for i := range g {
		g[i] = float32(i%3) - 1
	}
	opt := NewAdamW(c, 0.9, 0.95, adamEps, 0)
	opt.Update(p.Data, g, 0.01)
	for i := range g {
		want := before[i] - 0.01*float32(math.Copysign(1, float64(g[i])))
		if g[i] == 0 {
			want = before[i]
		}
		if math.Abs(float64(p.Data[i]-want)) > 1e-5 {
			t.Fatalf("weight %d: %v, want %v", i, p.Data[i], want)
		}
	}
}

// TestTrainingDoesNotDependOnCores trains the same model on one core and
// on several and requires bit-identical weights: every sum in the trainer
// is done by one goroutine in a fixed order, so the documented training
// command gives the same weights on a machine with more or fewer cores.
// The model is large enough for the matrix products to be split.
func TestTrainingDoesNotDependOnCores(t *testing.T) {
	cfg := tinyTrainConfig(3)
	cfg.Model = engine.Config{Dim: 64, HiddenDim: 176, NLayers: 1, NHeads: 4, NKVHeads: 2, VocabSize: 512, SeqLen: 64, SharedClassifier: true}
	cfg.BatchSize = 6
	data := patternData(cfg.Model.VocabSize)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var weights [][]float32
	for _, procs := range []int{1, 3} {
		runtime.GOMAXPROCS(procs)
		st, err := Train(context.Background(), cfg, data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		weights = append(weights, st.Params.Data)
	}
	for i := range weights[0] {
		if math.Float32bits(weights[0][i]) != math.Float32bits(weights[1][i]) {
			t.Fatalf("weight %d is %g on one core and %g on three", i, weights[0][i], weights[1][i])
		}
	}
}
