package decoding

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/constrain"
)

// Options control a generation. The zero value is greedy decoding until the
// context is full, with no penalties and no stop sequences; every setting
// whose zero value would be meaningless (TopP, RepetitionPenalty) treats
// zero as "off".
type Options struct {
	// MaxNewTokens caps the number of generated tokens; 0 means "until the
	// context is full".
	MaxNewTokens int

	// Temperature divides the logits before softmax. 0 is greedy decoding
	// (always the most likely token); 1 samples from the model's own
	// distribution; above 1 flattens it. Must be 0 or in
	// [MinTemperature, MaxTemperature].
	Temperature float64
	// TopK keeps only the K most likely tokens; 0 disables it.
	TopK int
	// TopP keeps the nucleus: the fewest most likely tokens whose
	// probabilities add up to more than TopP. Must be in (0, 1]; 1 (or 0,
	// meaning unset) disables it.
	TopP float64
	// MinP keeps tokens with probability at least MinP × the top token's.
	// Must be in [0, 1]; 0 disables it.
	MinP float64
	// Seed seeds the sampler's random number generator: the same seed,
	// prompt and settings give the same text.
	Seed uint64

	// RepetitionPenalty divides the positive logits (and multiplies the
	// negative ones) of tokens already in the text (CTRL/HF). Values above
	// 1 discourage repetition; 1 (or 0, meaning unset) disables it. Must
	// be 0 or in [MinRepetitionPenalty, MaxRepetitionPenalty].
	RepetitionPenalty float64
	// PresencePenalty is subtracted once from the logit of every token
	// already in the text (OpenAI; usual range -2..2; at most MaxPenalty
	// either way).
	PresencePenalty float64
	// FrequencyPenalty × count is subtracted from the logit of every token
	// already in the text, count being how often it occurs (OpenAI; usual
	// range -2..2; at most MaxPenalty either way).
	FrequencyPenalty float64
	// PenaltyWindow limits the repetition, presence and frequency
	// penalties to the last PenaltyWindow tokens of the text (llama.cpp's
	// penalty_last_n), so a word used long ago is allowed again; 0 means
	// the whole text. Must not be negative.
	PenaltyWindow int
	// NoRepeatNGram bans any token that would repeat an n-gram of this
	// many tokens already in the text; 0 disables it.
	NoRepeatNGram int
	// LogitBias adds an offset to the logits of chosen token ids before
	// every other stage: at most MaxLogitBias either way, or -Inf, which
	// bans a token.
	LogitBias map[int]float32

	// Stop lists stop sequences: generation ends as soon as the text
	// contains one, even across token boundaries. The stop sequence itself
	// is not part of the text unless IncludeStop is set. Streamed text never
	// shows part of a stop sequence.
	Stop []string
	// IncludeStop keeps the matched stop sequence at the end of the text.
	IncludeStop bool
	// StopWhen, if set, is asked after every token whether to stop. text is
	// everything generated so far (raw bytes, stop sequences not yet
	// removed) and ids the generated token ids, which it must not modify.
	StopWhen func(text string, ids []int) bool

	// TopLogProbs, when positive, fills Step.TopLogProbs with that many of
	// the most likely tokens at each step.
	TopLogProbs int
	// NoLogProbs leaves Step.LogProb (and, with a Constraint,
	// Step.ConstrainedLogProb) NaN: not computed. Choosing a token does not
	// need them, and computing them is a pass of exponentials over the
	// whole vocabulary at every step: a caller that only shows the text
	// (the generate command without -json) saves that time. Beam search
	// fills them anyway, as it ranks its hypotheses by them, and so does
	// GenerateN, as Completion.LogProb is their sum. TopLogProbs is
	// unaffected.
	NoLogProbs bool
	// Trace fills Step.Stages with the distribution after every sampling
	// stage (costly for big vocabularies: one softmax per stage).
	Trace bool

	// Constraint, if set, limits the text to a language: a JSON Schema, a
	// regular expression or a grammar (see NewConstraint). It is one more
	// stage of the sampler, before all the others: tokens that would lead
	// out of the language get the logit -Inf. An end-of-text token is
	// allowed only where the text is a whole sentence of the language, and
	// the generation ends with FinishConstraint as soon as nothing more may
	// follow, or with FinishUnsatisfiable when no token of the vocabulary
	// can continue the text. Every sampling setting, stop sequence and
	// log-probability works as without it; of the decoders, only NoCache
	// applies it.
	Constraint *Constraint

	// Decoder chooses the tokens another way than sampling them one at a
	// time with the settings above: Pick, Beam, Speculation, NoCache or
	// Shared. Nil samples with the settings above.
	Decoder Decoder
	// IsEnd reports whether a token ends the text (that token is the last
	// one yielded). Nil means the tokenizer's end-of-text tokens in
	// Generate, and no token in Decode, which has no tokenizer.
	IsEnd func(id int) bool
}

// SettingError reports an impossible setting in Options: which one, its
// value and what it must be.
type SettingError struct {
	Setting string // the Options field, e.g. "TopP" or "Stop[2]"
	Value   any
	Problem string
}

// Error says "Setting = value: problem".
func (e *SettingError) Error() string {
	v := fmt.Sprint(e.Value)
	if s, ok := e.Value.(string); ok {
		v = fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%s = %s: %s", e.Setting, v, e.Problem)
}

// Validate reports the first impossible setting. vocabSize is the model's
// vocabulary, which LogitBias ids must fall in (0 skips that check).
func (o Options) Validate(vocabSize int) error {
	if o.MaxNewTokens < 0 {
		return &SettingError{"MaxNewTokens", o.MaxNewTokens, "must be 0 (no limit) or positive"}
	}
	if err := o.validateSampling(vocabSize); err != nil {
		return err
	}
	for i, s := range o.Stop {
		if s == "" {
			return &SettingError{fmt.Sprintf("Stop[%d]", i), s, "an empty stop sequence would match before any text"}
		}
	}
	if o.TopLogProbs < 0 {
		return &SettingError{"TopLogProbs", o.TopLogProbs, "must be 0 (none) or positive"}
	}
	if c := o.Constraint; c != nil {
		if n := c.c.Vocabulary().Size(); vocabSize > 0 && n != vocabSize {
			return &SettingError{"Constraint", c, fmt.Sprintf("the model has %d tokens: make the constraint with the model's tokenizer", vocabSize)}
		}
	}
	if o.Decoder != nil {
		return o.Decoder.check(o)
	}
	return nil
}

// Ranges of the sampling settings. They are wide — far past any value
// that makes sense for text — and exist so that a setting cannot turn
// ordinary logits into infinities: 1e-38 as a temperature, or -1e39 as a
// penalty (which float32 holds only as -Inf), would make softmax NaN.
const (
	MinTemperature       = 1e-3 // below it, sampling is greedy decoding in all but name
	MaxTemperature       = 100  // above it, every distribution is uniform
	MinRepetitionPenalty = 0.01
	MaxRepetitionPenalty = 100
	MaxPenalty           = 100 // the largest |PresencePenalty| and |FrequencyPenalty| (OpenAI allows 2)
	MaxLogitBias         = 100 // the largest |LogitBias| value, other than -Inf (OpenAI's range too)
)

// validateSampling checks the settings the sampler (sample.go) reads.
// Generate's Options hold them, and Generate builds its Sampler from them,
// so generate.go and sample.go use each other: the sampler has no settings
// of its own to keep apart from the ones a generation is asked with.
func (o Options) validateSampling(vocabSize int) error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	between := func(v, lo, hi float64) bool { return v >= lo && v <= hi }
	switch {
	case !finite(o.Temperature) || o.Temperature != 0 && !between(o.Temperature, MinTemperature, MaxTemperature):
		return &SettingError{"Temperature", o.Temperature, fmt.Sprintf("must be 0 (greedy) or between %v and %v", MinTemperature, MaxTemperature)}
	case o.TopK < 0:
		return &SettingError{"TopK", o.TopK, "must be 0 (off) or positive"}
	case math.IsNaN(o.TopP) || o.TopP < 0 || o.TopP > 1:
		return &SettingError{"TopP", o.TopP, "must be in (0, 1] (0 means unset, 1 is off)"}
	case math.IsNaN(o.MinP) || o.MinP < 0 || o.MinP > 1:
		return &SettingError{"MinP", o.MinP, "must be in [0, 1] (0 is off)"}
	case !finite(o.RepetitionPenalty) || o.RepetitionPenalty != 0 && !between(o.RepetitionPenalty, MinRepetitionPenalty, MaxRepetitionPenalty):
		return &SettingError{"RepetitionPenalty", o.RepetitionPenalty, fmt.Sprintf("must be between %v and %v (1 is off; 0 means unset)", MinRepetitionPenalty, MaxRepetitionPenalty)}
	case !between(o.PresencePenalty, -MaxPenalty, MaxPenalty):
		return &SettingError{"PresencePenalty", o.PresencePenalty, fmt.Sprintf("must be between %v and %v (0 is off)", -MaxPenalty, MaxPenalty)}
	case !between(o.FrequencyPenalty, -MaxPenalty, MaxPenalty):
		return &SettingError{"FrequencyPenalty", o.FrequencyPenalty, fmt.Sprintf("must be between %v and %v (0 is off)", -MaxPenalty, MaxPenalty)}
	case o.PenaltyWindow < 0:
		return &SettingError{"PenaltyWindow", o.PenaltyWindow, "must be 0 (the whole text) or positive"}
	case o.NoRepeatNGram < 0:
		return &SettingError{"NoRepeatNGram", o.NoRepeatNGram, "must be 0 (off) or positive"}
	}
	for id, b := range o.LogitBias {
		if vocabSize > 0 && (id < 0 || id >= vocabSize) {
			return &SettingError{fmt.Sprintf("LogitBias[%d]", id), b, fmt.Sprintf("token id %d is outside the vocabulary (0..%d)", id, vocabSize-1)}
		}
		if !math.IsInf(float64(b), -1) && !between(float64(b), -MaxLogitBias, MaxLogitBias) {
			return &SettingError{fmt.Sprintf("LogitBias[%d]", id), b, fmt.Sprintf("must be between %v and %v, or -Inf (ban)", -MaxLogitBias, MaxLogitBias)}
		}
	}
	return nil
}

// Step is one generated token.
type Step struct {
	ID    int    // token id (NoToken on a final step without a token)
	Piece string // the token's own text: raw bytes, possibly part of a UTF-8 character
	// Text is the text to show now. It is always valid UTF-8, never holds
	// part of a stop sequence, and may be empty (text held back) or cover
	// several tokens (text released). Joining every step's Text gives the
	// whole output.
	Text    string
	LogProb float64 // log-probability the model gave this token (before any sampling stage); NaN with Options.NoLogProbs
	Pos     int     // its position in the sequence (the prompt starts at 0)
	// ConstrainedLogProb is, with Options.Constraint, the token's
	// log-probability among the tokens the constraint allowed: the model's
	// distribution renormalised over them, which the other stages of the
	// sampler start from. It is never below LogProb; the difference is
	// minus the log of the probability the model gave to the allowed
	// tokens together. Zero without a constraint.
	ConstrainedLogProb float64
	// TopLogProbs lists the Options.TopLogProbs most likely tokens at this
	// position under the model's distribution, whether or not a constraint
	// allowed them.
	TopLogProbs []TokenLogProb
	// Stages is the distribution after every sampling stage (Options.Trace),
	// starting with the model's; with a constraint, the next one is named
	// "constraint".
	Stages []Stage
	// Finish is set on the last step and says why generation ended. When
	// the model ends the text, the last step is its end-of-text token, with
	// an empty Piece.
	Finish FinishReason
	// Stats is set on the last step.
	Stats *Stats
}

// Stats summarises a generation: token counts and the time of each phase.
type Stats struct {
	PromptTokens    int           // prompt tokens, BOS included
	GeneratedTokens int           // steps that produced a token
	Prefill         time.Duration // running the prompt, up to the first logits
	Decode          time.Duration // sampling and forward passes of the generated tokens
	StopSequence    string        // the stop sequence that ended the text (FinishStop)
	EndToken        string        // a GGUF model's end token that ended the text, as its vocabulary writes it (FinishEOS)

	// Report is what Options.Decoder found out beyond these counts: a
	// *BeamResult after Beam, a *SpeculativeStats after Speculation; nil
	// after the other decoders.
	Report Report
}

// Report is what a decoder tells about its run, in Stats.Report: the
// explored tree of a beam search (*BeamResult) or the proposals and
// passes of speculative decoding (*SpeculativeStats). Take it back with a
// type assertion:
//
//	res, ok := step.Stats.Report.(*decoding.BeamResult)
type Report interface {
	// Decoder names the decoder that made the report: "beam" or
	// "speculative".
	Decoder() string
}

// PrefillTokensPerSecond is the prompt processing speed.
func (s Stats) PrefillTokensPerSecond() float64 { return perSecond(s.PromptTokens, s.Prefill) }

// DecodeTokensPerSecond is the generation speed.
func (s Stats) DecodeTokensPerSecond() float64 { return perSecond(s.GeneratedTokens, s.Decode) }

func perSecond(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// FinishReason says which condition ended a generation. Every decoder,
// in Generate or Decode, ends on one of these, decided in one place
// (decoding.step).
type FinishReason string

const (
	// FinishEOS: the model produced its end-of-text token.
	FinishEOS FinishReason = "eos"
	// FinishLength: MaxNewTokens tokens were generated.
	FinishLength FinishReason = "length"
	// FinishContext: the model's context window is full.
	FinishContext FinishReason = "context"
	// FinishStop: the text contains one of Options.Stop.
	FinishStop FinishReason = "stop"
	// FinishPredicate: Options.StopWhen returned true.
	FinishPredicate FinishReason = "predicate"
	// FinishDeadline: the context's deadline passed.
	FinishDeadline FinishReason = "deadline"
	// FinishCancelled: the context was cancelled.
	FinishCancelled FinishReason = "cancelled"
	// FinishConstraint: the text is a complete sentence of
	// Options.Constraint's language and nothing more may follow it.
	FinishConstraint FinishReason = "constraint"
	// FinishUnsatisfiable: no token of the vocabulary can continue the
	// text within Options.Constraint; the text so far is a prefix of the
	// language.
	FinishUnsatisfiable FinishReason = "unsatisfiable"
)

// NoToken is the Step.ID of a final step that carries no new token: when
// generation is cancelled or times out before the first token.
const NoToken = -1

// finishFor turns a context error into a finish reason.
func finishFor(err error) FinishReason {
	if errors.Is(err, context.DeadlineExceeded) {
		return FinishDeadline
	}
	return FinishCancelled
}

// Generate runs the autoregressive loop: it encodes the prompt (after BOS),
// feeds it through the model (prefill), then repeatedly turns the logits of
// the last position into a token, yields it, and feeds it back (decode).
// Options.Decoder chooses the tokens another way (beam search, speculative
// decoding, no cache); the steps, their text and their finish reasons mean
// the same with every decoder.
//
// It stops at the first of: the model's end-of-text token, a stop sequence,
// StopWhen, MaxNewTokens, a full context, or ctx being done (checked before
// every forward pass, and inside the prompt's pass between layers). The
// last step says which in Finish; a cancelled or expired ctx is a finish
// reason, not an error.
//
// Errors — a nil context, model or tokenizer, a model whose weights do not
// fit its shape, invalid Options, a tokenizer that does not fit the model,
// a prompt with no room to generate, a KV cache for the prompt and
// MaxNewTokens that would not fit in memory — are reported before any
// work, as the only value yielded. A model that produces logits that are
// not numbers ends the generation with an error saying where.
func Generate(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, prompt string, opts Options) iter.Seq2[Step, error] {
	return func(yield func(Step, error) bool) {
		ids, err := prepare(ctx, m, tok, prompt, opts)
		if err != nil {
			yield(Step{}, err)
			return
		}
		isEnd := opts.IsEnd
		if isEnd == nil {
			isEnd = tok.IsEnd
		}
		d := newDecoding(ctx, ids, m.Config.SeqLen, opts.MaxNewTokens, isEnd)
		d.showText(tok, opts)
		if opts.Constraint != nil {
			d.constrain(opts)
		}
		opts.decoder().generate(d, m, opts, yield)
	}
}

// Decode runs the autoregressive loop over any LM, on token ids: a model
// that is not a Model with a KV cache — a NoCacheLM, a hand-built table —
// or a Model seen as an LM (engine.NewModelLM). It is Generate without a
// tokenizer: Options.Decoder chooses the tokens (nil samples with the
// settings of Options; Pick chooses with a function of the logits), and
// the steps carry ID, LogProb (under the model's own distribution) and
// Pos, but no text. Options.IsEnd says which tokens end the text;
// Options.Stop and StopWhen, which read text, must be unset.
//
// It stops after MaxNewTokens tokens, after a token for which IsEnd
// reports true, when the context is full, or when ctx is done; the last
// step says which in Finish. Errors — a nil context or LM, invalid
// Options, an empty prompt or one that leaves no room — are reported
// before any work, as the only value yielded.
func Decode(ctx context.Context, lm LM, prompt []int, opts Options) iter.Seq2[Step, error] {
	return func(yield func(Step, error) bool) {
		if err := checkDecode(ctx, lm, prompt, opts); err != nil {
			yield(Step{}, err)
			return
		}
		d := newDecoding(ctx, prompt, lm.ContextLength(), opts.MaxNewTokens, opts.IsEnd)
		if opts.Constraint != nil {
			d.constrain(opts)
		}
		opts.decoder().decode(d, lm, opts, yield)
	}
}

// checkDecode does the checks of Decode before any work.
func checkDecode(ctx context.Context, lm LM, prompt []int, opts Options) error {
	if ctx == nil {
		return errors.New("nil context: pass context.Background() for no deadline")
	}
	if err := checkLM(lm); err != nil {
		return err
	}
	if err := opts.Validate(lm.VocabSize()); err != nil {
		return err
	}
	if len(opts.Stop) > 0 {
		return &SettingError{"Stop", opts.Stop, "Decode has no tokenizer to read text with: use IsEnd, or Generate"}
	}
	if opts.StopWhen != nil {
		return &SettingError{"StopWhen", "set", "Decode has no tokenizer to read text with: use IsEnd, or Generate"}
	}
	return checkPrompt(prompt, lm.ContextLength())
}

// decoder is the Decoder that runs: Options.Decoder, or sampling with the
// settings of o.
func (o Options) decoder() Decoder {
	if o.Decoder == nil {
		return sampling{}
	}
	return o.Decoder
}

// sampling is the default decoder: one token at a time, drawn by the
// Sampler with the settings of Options, with the KV cache in Generate.
type sampling struct{}

func (sampling) check(Options) error { return nil }

func (sampling) generate(d *decoding, m *engine.Model, opts Options, yield func(Step, error) bool) {
	d.cached(m, opts.chooser(d.tok), yield)
}

func (sampling) decode(d *decoding, lm LM, opts Options, yield func(Step, error) bool) {
	d.sample(yield, opts.chooser(nil), lmNext(lm))
}

// cached is the loop of Generate's decoders that take one token at a
// time: the prompt in one batched pass, then one pass per token, with the
// KV cache of a State. pick chooses each token.
func (d *decoding) cached(m *engine.Model, pick choose, yield func(Step, error) bool) {
	d.room++ // the last token is never run
	// Room for the prompt and every token it may generate, reserved now,
	// so that a generation too big for memory fails before it starts
	// rather than half-way.
	st := m.NewState()
	if err := st.Reserve(d.positions()); err != nil {
		yield(Step{}, fmt.Errorf("prompt of %d tokens and up to %d new ones: %w", d.prompt, d.positions()-d.prompt, err))
		return
	}
	ids := d.seq[:d.prompt:d.prompt]
	d.sample(yield, pick, func(seq []int) ([]float32, error) {
		if len(seq) == len(ids) {
			return prefillPrompt(d.ctx, st, ids)
		}
		return st.Forward(seq[len(seq)-1], len(seq)-1)
	})
}

// prepare does the checks of Generate before any work and encodes the
// prompt.
func prepare(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, prompt string, opts Options) ([]int, error) {
	switch {
	case ctx == nil:
		return nil, errors.New("nil context: pass context.Background() for no deadline")
	case tok == nil:
		return nil, errors.New("no tokenizer (nil *Tokenizer)")
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if tok.VocabSize() != m.Config.VocabSize {
		return nil, fmt.Errorf("tokenizer has %d tokens but model %s has vocab_size %d", tok.VocabSize(), m.Name, m.Config.VocabSize)
	}
	if err := opts.Validate(m.Config.VocabSize); err != nil {
		return nil, err
	}
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		return nil, fmt.Errorf("encoding prompt: %w", err)
	}
	if len(ids) == 0 {
		// A model without a BOS token to start from has nothing to
		// predict after an empty prompt.
		return nil, errors.New("the prompt is empty and model " + m.Name + " adds no BOS token: give at least one token of text")
	}
	if len(ids) >= m.Config.SeqLen {
		return nil, fmt.Errorf("prompt is %d tokens (with BOS) but the model's context is %d: no room to generate", len(ids), m.Config.SeqLen)
	}
	return ids, nil
}

// prefillPrompt runs the whole prompt through the model in one batched pass
// (matrix-matrix products, see State.Prefill), filling the KV cache, and
// returns the logits after the last token: the distribution of the first new
// token. ctx is checked before the pass and between its layers.
func prefillPrompt(ctx context.Context, st *engine.State, ids []int) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return st.PrefillContext(ctx, ids, 0)
}

// chooser returns how the sampling decoders pick a token with these
// (checked) settings: the sampler's stages, with the log-probabilities and
// trace the options ask for. tok, when not nil, gives the alternatives'
// text.
func (o Options) chooser(tok *engine.Tokenizer) choose {
	sampler := o.sampler()
	return func(logits []float32, seq []int) (Step, error) {
		return o.pick(sampler, tok, logits, nil, nil, seq)
	}
}

// pick draws a token with sampler from the logits after seq, or, when
// allowed is not nil, from masked: the logits with every token allowed
// does not hold set to -Inf. The log-probabilities are the model's, from
// logits.
func (o Options) pick(sampler *Sampler, tok *engine.Tokenizer, logits, masked []float32, allowed *constrain.Mask, seq []int) (Step, error) {
	var step Step
	var err error
	from := logits
	if allowed != nil {
		from = masked
	}
	history := seq[1:] // what the penalties look at: everything after BOS
	if o.Trace {
		step.ID, step.Stages, err = sampler.SampleTrace(from, history)
		if err == nil && allowed != nil {
			// The sampler saw the masked logits as the model's.
			step.Stages[0].Name = "constraint"
			step.Stages = append([]Stage{{"model", distribution(logits)}}, step.Stages...)
		}
	} else {
		step.ID, err = sampler.Sample(from, history...)
	}
	if err != nil {
		return step, fmt.Errorf("sampling the token at position %d: %w", len(seq), err)
	}
	if o.NoLogProbs {
		step.LogProb = math.NaN()
		if allowed != nil {
			step.ConstrainedLogProb = math.NaN()
		}
	} else {
		lse := logSumExp(logits)
		step.LogProb = logProb(logits[step.ID], lse)
		if allowed != nil {
			// The allowed tokens' mass is at most 1; the rounding of lse's
			// float32 exponentials must not make it more.
			step.ConstrainedLogProb = step.LogProb - min(logMass(logits, lse, allowed), 0)
		}
	}
	if o.TopLogProbs > 0 {
		step.TopLogProbs = TopLogProbs(logits, o.TopLogProbs)
		if tok != nil {
			for i := range step.TopLogProbs {
				step.TopLogProbs[i].Text = tok.Decode(seq[len(seq)-1], step.TopLogProbs[i].ID)
			}
		}
	}
	return step, nil
}

// A Decoder chooses the tokens of Generate or Decode (Options.Decoder)
// another way than sampling them one at a time with the settings of
// Options: Pick, Beam, Speculation, NoCache or Shared.
type Decoder interface {
	// check reports the settings of o the decoder cannot honour,
	// Options.Constraint among them.
	check(o Options) error
	// generate runs the decoder over m after d's prompt (Generate) and
	// yields d's steps.
	generate(d *decoding, m *engine.Model, o Options, yield func(Step, error) bool)
	// decode runs it over lm (Decode).
	decode(d *decoding, lm LM, o Options, yield func(Step, error) bool)
}

// choose picks the next token from the logits after seq, and returns its
// Step with ID, LogProb and whatever else the picker knows filled in.
type choose func(logits []float32, seq []int) (Step, error)

// decoding is what every decoder keeps while it generates: the sequence so
// far, the limits, the stop conditions, the text shown and the stats. The
// decoders choose tokens each their own way and hand every token to step,
// which decides whether it is the last and why, and to emit, which yields
// it; so every decoder streams the same kind of steps and ends for the
// same reasons.
//
// This is why generate.go and the other decoders' files (pick.go, beam.go,
// speculative.go, nocache.go, shared.go) use each other: they use this bookkeeping,
// and Generate runs any of them through Options.Decoder.
type decoding struct {
	ctx    context.Context
	seq    []int // the prompt, then every token decided
	prompt int   // the prompt's length
	maxNew int   // 0: until the context is full
	ctxLen int   // the model's context: the most positions a pass can see
	// room is the longest the sequence may grow: ctxLen, as a pass must
	// see every token but the last, which the cached loop of Generate never
	// runs, so its room is one more.
	room  int
	isEnd func(id int) bool
	stats Stats
	// searching: the decoder handles a done ctx itself (beam search
	// yields the best found so far), so step does not end on it.
	searching bool
	mark      time.Time // since when the decoder has been working for the current step

	// The text, when a tokenizer was given (showText).
	tok      *engine.Tokenizer
	out      *textOut
	text     []byte // every generated piece, for StopWhen
	stopWhen func(text string, ids []int) bool

	// With a constraint (constrain): where the text stands in its
	// language, and the chooser that masks the logits before sampling.
	guide  *Guide
	guided choose
}

// newDecoding starts a generation after prompt (at least one token, and
// fewer than ctxLen). isEnd may be nil: then no token ends the text.
func newDecoding(ctx context.Context, prompt []int, ctxLen, maxNew int, isEnd func(int) bool) *decoding {
	if isEnd == nil {
		isEnd = func(int) bool { return false }
	}
	size := ctxLen + 1
	if maxNew > 0 {
		size = min(size, len(prompt)+maxNew)
	}
	seq := append(make([]int, 0, size), prompt...)
	return &decoding{ctx: ctx, seq: seq, prompt: len(prompt), maxNew: maxNew, ctxLen: ctxLen, room: ctxLen, isEnd: isEnd,
		stats: Stats{PromptTokens: len(prompt)}, mark: time.Now()}
}

// showText makes the steps carry text: each token's piece, and the text to
// show, held back across stop sequences and split characters; the stop
// sequences and StopWhen of opts end the generation.
func (d *decoding) showText(tok *engine.Tokenizer, opts Options) {
	d.tok, d.out, d.stopWhen = tok, newTextOut(opts), opts.StopWhen
}

// constrain makes the sampling loop keep the text in opts.Constraint's
// language. The loop then chooses with the constrained chooser, in place
// of the one its decoder gives (which is opts.chooser for every decoder
// that allows a constraint).
func (d *decoding) constrain(opts Options) {
	d.guide = opts.Constraint.NewGuide()
	sampler := opts.sampler()
	d.guided = func(logits []float32, seq []int) (Step, error) {
		prev := seq[len(seq)-1]
		allowed, err := d.guide.Tokens(prev, d.left())
		if err != nil {
			// A language too ambiguous to follow: the text so far is in
			// it, and the generation ends with the reason.
			return Step{ID: NoToken}, fmt.Errorf("the token at position %d: %w", len(seq), err)
		}
		if allowed.Count() == 0 {
			return Step{ID: NoToken, Finish: FinishUnsatisfiable}, nil
		}
		s, err := opts.pick(sampler, d.tok, logits, d.guide.apply(allowed, logits), allowed, seq)
		if err != nil {
			return s, err
		}
		if err := d.guide.Accept(prev, s.ID); err != nil {
			return s, fmt.Errorf("the token at position %d: %w", len(seq), err)
		}
		return s, nil
	}
}

// left is how many tokens the generation may still add, the next one
// included.
func (d *decoding) left() int {
	n := d.room - len(d.seq)
	if d.maxNew > 0 {
		n = min(n, d.maxNew-d.generated())
	}
	return n
}

// positions is the most positions the generation can fill.
func (d *decoding) positions() int {
	if d.maxNew > 0 {
		return min(d.ctxLen, d.prompt+d.maxNew)
	}
	return d.ctxLen
}

// generated is the number of tokens decided so far.
func (d *decoding) generated() int { return len(d.seq) - d.prompt }

// step appends the token of s (a Step with ID and LogProb set) to the
// sequence and completes s: its position, piece and text, and whether it
// ends the generation. own is the decoder's reason to end here when none of
// the common ones applies ("" for none).
func (d *decoding) step(s Step, own FinishReason) Step {
	pos := len(d.seq)
	prev := d.seq[pos-1]
	d.seq = append(d.seq, s.ID)
	s.Pos = pos
	end := d.isEnd(s.ID)
	var released, stop string
	var stopped bool
	if d.tok != nil {
		if !end {
			s.Piece = d.tok.Decode(prev, s.ID)
		}
		if d.stopWhen != nil {
			d.text = append(d.text, s.Piece...)
		}
		released, stop, stopped = d.out.push(s.Piece)
	}
	switch {
	case end:
		s.Finish = FinishEOS
		if d.tok != nil {
			d.stats.EndToken = d.tok.EndName(s.ID)
		}
	case stopped:
		s.Finish, d.stats.StopSequence = FinishStop, stop
	case d.stopWhen != nil && d.stopWhen(string(d.text), d.seq[d.prompt:]):
		s.Finish = FinishPredicate
	case d.guide != nil && d.guide.Done():
		// Before the limits: the text is complete, whether or not it
		// also filled them.
		s.Finish = FinishConstraint
	case d.generated() == d.maxNew:
		s.Finish = FinishLength
	case len(d.seq) >= d.room:
		s.Finish = FinishContext
	case own != "":
		s.Finish = own
	case !d.searching && d.ctx.Err() != nil:
		s.Finish = finishFor(d.ctx.Err())
	}
	d.stats.GeneratedTokens = d.generated()
	s.Text = released
	if s.Finish != "" {
		if d.out != nil {
			s.Text = d.out.flush(released)
		}
		s.Stats = &d.stats
	}
	return s
}

// last is a final step without a token: the generation ends for reason
// before (or between) tokens.
func (d *decoding) last(reason FinishReason) Step {
	s := Step{ID: NoToken, Pos: len(d.seq), Finish: reason, Stats: &d.stats}
	if d.out != nil {
		s.Text = d.out.flush("")
	}
	return s
}

// emit yields a step made by step or last, counting the time since the
// decoder started on it as decode time (the caller's time between steps is
// not), and reports whether the generation goes on.
func (d *decoding) emit(yield func(Step, error) bool, s Step) bool {
	d.stats.Decode += time.Since(d.mark)
	more := yield(s, nil)
	d.mark = time.Now()
	return more && s.Finish == ""
}

// prefilled records the time since the start as the prompt's and starts
// the clock of the first step.
func (d *decoding) prefilled() {
	now := time.Now()
	d.stats.Prefill = now.Sub(d.mark)
	d.mark = now
}

// stopped reports whether err is ctx's own error: the generation was
// cancelled or timed out, which ends it with a finish reason.
func (d *decoding) stopped(err error) bool {
	return d.ctx.Err() != nil && errors.Is(err, d.ctx.Err())
}

// sample is the loop of the decoders that take one token at a time: next
// gives the logits after the sequence so far (the first call runs the
// prompt), choose picks a token from them, step decides whether it is the
// last, and the loop asks next again. With a constraint, the constrained
// chooser picks instead of pick, and a step without a token ends the
// generation for its Finish reason.
func (d *decoding) sample(yield func(Step, error) bool, pick choose, next func(seq []int) ([]float32, error)) {
	if d.guided != nil {
		pick = d.guided
	}
	if err := d.ctx.Err(); err != nil {
		d.emit(yield, d.last(finishFor(err)))
		return
	}
	d.mark = time.Now()
	logits, err := next(d.seq)
	d.prefilled()
	if err != nil {
		if d.stopped(err) {
			d.emit(yield, d.last(finishFor(err)))
		} else {
			yield(Step{}, err)
		}
		return
	}
	for {
		s, err := pick(logits, d.seq)
		if err != nil {
			yield(Step{}, err)
			return
		}
		if s.ID == NoToken {
			d.emit(yield, d.last(s.Finish))
			return
		}
		if s = d.step(s, ""); s.Finish == "" {
			if logits, err = next(d.seq); err != nil {
				yield(Step{}, err)
				return
			}
		}
		if !d.emit(yield, s) {
			return
		}
	}
}

// textOut turns the raw pieces of the generated tokens into the text shown
// to the reader: first stop sequences are found and held back, then
// incomplete UTF-8 characters.
type textOut struct {
	stops *StopMatcher
	utf8  UTF8Stream
}

func newTextOut(opts Options) *textOut {
	return &textOut{stops: NewStopMatcher(opts.Stop, opts.IncludeStop)}
}

// push adds a token's piece and returns the text that may be shown now.
func (o *textOut) push(piece string) (text, stop string, stopped bool) {
	released, stop, stopped := o.stops.Push(piece)
	return o.utf8.Push(released), stop, stopped
}

// flush ends the text: text (already returned by push) is followed by
// everything still held back.
func (o *textOut) flush(text string) string {
	return text + o.utf8.Push(o.stops.Flush()) + o.utf8.Flush()
}
