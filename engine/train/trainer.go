package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/tokenbytoken/course/engine/internal/atomicfile"
)

// ErrInterrupted is returned (wrapped) when a run is stopped through its
// context; the run's checkpoint is saved first, so it can be resumed.
var ErrInterrupted = errors.New("training interrupted")

// Progress describes the run after one step; Options.OnStep receives it.
type Progress struct {
	Step, Steps  int     // steps completed, and in the whole run
	Loss         float64 // training loss of this step's batch (nats per token)
	ValLoss      float64 // latest validation loss (NaN before the first)
	Evaluated    bool    // whether ValLoss was measured at this step
	LR           float64 // learning rate used at this step
	GradNorm     float64 // gradient norm before clipping
	Tokens       int64   // training tokens seen so far
	TokensPerSec float64 // training speed in this session
	Elapsed      time.Duration
	Remaining    time.Duration // estimate for the steps left
}

// Options are the parts of a run that do not change its result.
type Options struct {
	// Checkpoint is the path of the training checkpoint. If it exists, the
	// run resumes from it; it is saved every Config.CheckpointEvery steps,
	// at the end and when the run is interrupted. Empty: no checkpoints.
	Checkpoint string
	// OnStep, if set, is called after every step, e.g. to draw a progress
	// bar or a live loss chart.
	OnStep func(Progress)
}

// Train runs (or resumes) a training run and returns its final state.
// Cancelling ctx stops it between two steps: the checkpoint is saved and
// the error wraps ErrInterrupted.
func Train(ctx context.Context, cfg Config, data *Data, opts Options) (*State, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if ctx == nil || data == nil {
		return nil, errors.New("train: no context or no data")
	}
	T, B := cfg.Model.SeqLen, cfg.BatchSize
	if err := checkStream("training", data.Train, T, cfg.Model.VocabSize); err != nil {
		return nil, err
	}
	if err := checkStream("validation", data.Val, T, cfg.Model.VocabSize); err != nil {
		return nil, err
	}

	if err := checkNet(cfg.Model, B, T, true); err != nil {
		return nil, err
	}
	if opts.Checkpoint != "" {
		atomicfile.Clean(opts.Checkpoint) // what a run killed mid-save left
	}
	st, err := startState(cfg, opts.Checkpoint)
	if err != nil {
		return nil, err
	}
	n := newNet(st.Params, B, T)
	grad, _ := NewParams(cfg.Model)
	tokens, targets := make([]int32, B*T), make([]int32, B*T)
	save := func() error {
		if opts.Checkpoint == "" {
			return nil
		}
		return st.Save(opts.Checkpoint)
	}

	sessionStart, sessionTokens := time.Now(), int64(0)
	elapsedBefore := st.Elapsed
	for st.Step < cfg.Steps {
		if ctx.Err() != nil {
			if err := save(); err != nil {
				return st, fmt.Errorf("%w at step %d, and saving the checkpoint failed: %v", ErrInterrupted, st.Step, err)
			}
			where := "no checkpoint path was given"
			if opts.Checkpoint != "" {
				where = "checkpoint saved to " + opts.Checkpoint + "; run the same command again to resume"
			}
			return st, fmt.Errorf("%w at step %d of %d: %s", ErrInterrupted, st.Step, cfg.Steps, where)
		}
		sampleBatch(data.Train, cfg.Seed, st.Step, B, T, tokens, targets)
		loss, _ := n.forward(tokens, targets)
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return st, fmt.Errorf("loss is %v at step %d: training diverged (try a lower learning rate)", loss, st.Step)
		}
		n.backward(grad)
		norm := ClipGradNorm(grad.Data, cfg.GradClip)
		lr := LearningRate(st.Step, cfg.Steps, cfg.WarmupSteps, cfg.LR, cfg.MinLR)
		st.Opt.Update(st.Params.Data, grad.Data, lr)
		st.Step++
		st.Tokens += int64(B * T)
		sessionTokens += int64(B * T)

		pt := Point{Step: st.Step, Loss: loss, ValLoss: math.NaN()}
		evaluated := st.Step == cfg.Steps || (cfg.EvalEvery > 0 && st.Step%cfg.EvalEvery == 0)
		if evaluated {
			st.ValLoss = validationLoss(n, data.Val, cfg.EvalBatches)
			pt.ValLoss = st.ValLoss
		}
		st.History = append(st.History, pt)
		session := time.Since(sessionStart)
		st.Elapsed = elapsedBefore + session
		if opts.OnStep != nil {
			perStep := session / time.Duration(sessionTokens/int64(B*T))
			opts.OnStep(Progress{
				Step: st.Step, Steps: cfg.Steps, Loss: loss, ValLoss: st.ValLoss, Evaluated: evaluated,
				LR: lr, GradNorm: norm, Tokens: st.Tokens,
				TokensPerSec: float64(sessionTokens) / session.Seconds(),
				Elapsed:      st.Elapsed, Remaining: perStep * time.Duration(cfg.Steps-st.Step),
			})
		}
		if cfg.CheckpointEvery > 0 && st.Step%cfg.CheckpointEvery == 0 && st.Step < cfg.Steps {
			if err := save(); err != nil {
				return st, err
			}
		}
	}
	if err := save(); err != nil {
		return st, err
	}
	return st, nil
}

// startState resumes from the checkpoint if there is one, or starts fresh.
// A checkpoint may be resumed with more steps than it was started with:
// the run is extended, and the learning-rate schedule is recomputed for the
// new total from the current step on.
func startState(cfg Config, path string) (*State, error) {
	if path != "" {
		st, err := LoadState(path)
		switch {
		case err == nil:
			if !sameRun(st.Config, cfg) {
				return nil, fmt.Errorf("checkpoint %s belongs to a different run (%+v); use another output directory or delete it to start over", path, st.Config)
			}
			if cfg.Steps < st.Step {
				return nil, fmt.Errorf("checkpoint %s is already at step %d, past the %d steps asked for", path, st.Step, cfg.Steps)
			}
			st.Config = cfg
			return st, nil
		case !errors.Is(err, os.ErrNotExist):
			return nil, err
		}
	}
	p, err := NewParams(cfg.Model)
	if err != nil {
		return nil, err
	}
	p.Init(cfg.Seed)
	opt := NewAdamW(cfg.Model, cfg.Beta1, cfg.Beta2, adamEps, cfg.WeightDecay)
	return &State{Config: cfg, Params: p, Opt: opt, ValLoss: math.NaN()}, nil
}

// sameRun reports whether two configs describe the same run; how often it
// evaluates or saves, and how many steps it lasts, do not matter.
func sameRun(a, b Config) bool {
	a.EvalEvery, b.EvalEvery = 0, 0
	a.CheckpointEvery, b.CheckpointEvery = 0, 0
	a.Steps, b.Steps = 0, 0
	return a == b
}

func checkStream(what string, s []uint16, T, vocab int) error {
	if len(s) < T+1 {
		return fmt.Errorf("the %s text is %d tokens, too short for even one sequence of seq_len+1 = %d tokens", what, len(s), T+1)
	}
	for i, t := range s {
		if int(t) >= vocab {
			return fmt.Errorf("%s token %d at index %d is outside the model's vocabulary of %d (data and tokenizer do not match)", what, t, i, vocab)
		}
	}
	return nil
}

// sampleBatch fills tokens and targets with B random windows of the stream.
// The windows depend only on the seed and the step, so a resumed run sees
// the same batches as an uninterrupted one.
func sampleBatch(stream []uint16, seed uint64, step, B, T int, tokens, targets []int32) {
	r := splitmix(seed ^ uint64(step+1)*0x9E3779B97F4A7C15)
	span := uint64(len(stream) - T)
	for b := range B {
		start := int(r.next() % span)
		for t := range T {
			tokens[b*T+t] = int32(stream[start+t])
			targets[b*T+t] = int32(stream[start+t+1])
		}
	}
}

// validationLoss averages the loss over batches of windows spread evenly
// over the validation stream (always the same windows).
func validationLoss(n *net, val []uint16, batches int) float64 {
	B, T := n.B, n.T
	count := batches * B
	tokens, targets := make([]int32, B*T), make([]int32, B*T)
	span := len(val) - T - 1
	var sum float64
	for bi := range batches {
		for b := range B {
			start := 0
			if count > 1 {
				start = (bi*B + b) * span / (count - 1)
			}
			for t := range T {
				tokens[b*T+t] = int32(val[start+t])
				targets[b*T+t] = int32(val[start+t+1])
			}
		}
		l, _ := n.forward(tokens, targets)
		sum += l
	}
	return sum / float64(batches)
}

// splitmix is the SplitMix64 generator: tiny, fast and good enough to pick
// batch windows.
type splitmixRNG struct{ s uint64 }

func splitmix(seed uint64) *splitmixRNG { return &splitmixRNG{seed} }

func (r *splitmixRNG) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}
