package train

import (
	"fmt"

	"github.com/tokenbytoken/course/engine"
)

// Config is everything that determines a training run. Two runs with the
// same Config and the same data produce the same weights, bit for bit.
type Config struct {
	Model engine.Config // shape of the model; SeqLen is also the training context

	BatchSize   int     // sequences per step
	Steps       int     // optimizer steps in the whole run
	LR          float64 // peak learning rate, reached after the warm-up
	MinLR       float64 // learning rate at the last step
	WarmupSteps int     // steps of linear warm-up
	WeightDecay float64 // AdamW decoupled weight decay
	Beta1       float64 // AdamW first-moment decay
	Beta2       float64 // AdamW second-moment decay
	GradClip    float64 // maximum gradient norm (0: no clipping)
	Seed        uint64  // seeds the initial weights and the batch sampling

	EvalEvery       int // steps between validation losses (0: only at the end)
	EvalBatches     int // batches in a validation estimate
	CheckpointEvery int // steps between checkpoints (0: only at the end or on interruption)
}

// Validate reports the first setting that cannot work.
func (c Config) Validate() error {
	if err := CheckConfig(c.Model); err != nil {
		return err
	}
	switch {
	case c.BatchSize <= 0:
		return fmt.Errorf("batch size %d: must be positive", c.BatchSize)
	case c.Steps <= 0:
		return fmt.Errorf("steps %d: must be positive", c.Steps)
	case !(c.LR > 0) || c.MinLR < 0 || c.MinLR > c.LR:
		return fmt.Errorf("learning rates: need 0 <= min (%v) <= peak (%v), peak > 0", c.MinLR, c.LR)
	case c.WarmupSteps < 0 || c.WarmupSteps > c.Steps:
		return fmt.Errorf("warm-up %d steps: must be in 0..steps (%d)", c.WarmupSteps, c.Steps)
	case c.Beta1 < 0 || c.Beta1 >= 1 || c.Beta2 < 0 || c.Beta2 >= 1:
		return fmt.Errorf("AdamW betas %v, %v: must be in [0, 1)", c.Beta1, c.Beta2)
	case c.WeightDecay < 0 || c.GradClip < 0:
		return fmt.Errorf("weight decay and gradient clip must not be negative")
	case c.EvalBatches <= 0:
		return fmt.Errorf("eval batches %d: must be positive", c.EvalBatches)
	}
	return nil
}

// TokensPerStep is how many tokens one step trains on.
func (c Config) TokensPerStep() int { return c.BatchSize * c.Model.SeqLen }

// withDefaults fills the optimizer settings left at zero with the usual
// values.
func (c Config) withDefaults() Config {
	if c.Beta1 == 0 {
		c.Beta1 = 0.9
	}
	if c.Beta2 == 0 {
		c.Beta2 = 0.95
	}
	if c.EvalBatches == 0 {
		c.EvalBatches = 4
	}
	return c
}
