package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/tokenbytoken/course/engine"
)

// defaultGamma is the number of tokens the draft proposes per round when
// -draft is given without -speculate.
const defaultGamma = 4

// searchDecoder returns the decoder for the search and speed flags (-beam,
// -draft, -speculate, -no-cache), or nil when none is set and the ordinary
// sampling loop runs. An error means the flags cannot be used as given and
// is reported as flag misuse (exit status 2). note receives what a decoder
// has to say about its run (printed after the text).
//
//   - -beam N runs beam search with N beams and prints the best
//     continuation; a summary of the search follows the text. The search is
//     deterministic and scores the model's own log-probabilities, so the
//     sampling flags and penalties do not apply: given on the command line,
//     they are refused (their defaults are simply not used).
//   - -draft PATH [-speculate γ] runs speculative decoding with PATH as the
//     draft model (it must use the same tokenizer as -model); γ defaults to
//     4. With the built-in model, -speculate γ alone uses the built-in draft.
//     Only -temperature and -seed shape the sampling: the output follows
//     the target's tempered distribution exactly, so top-k, top-p, min-p
//     and the penalties, which would change that distribution, are refused
//     when given (their defaults are not used). Acceptance rate and tokens
//     per target pass follow the text.
//   - -no-cache generates with every sampling flag, but recomputes the whole
//     prefix at every step instead of keeping a KV cache.
func searchDecoder(cfg *config, note func(string)) (decoder, error) {
	if cfg.speculate != 0 && cfg.draft == "" && builtIn(cfg) {
		cfg.draft = "default" // the built-in target's own draft
	}
	modes := 0
	for _, on := range []bool{cfg.beam != 0, cfg.draft != "" || cfg.speculate != 0, cfg.noCache} {
		if on {
			modes++
		}
	}
	// given lists the flags from names that were given on the command line
	// with a value that does something.
	given := func(names ...string) []string {
		var out []string
		for _, n := range names {
			if cfg.isSet(n) && !neutral(n, cfg) {
				out = append(out, n)
			}
		}
		return out
	}
	switch {
	case modes > 1:
		return nil, fmt.Errorf("-beam, -draft/-speculate and -no-cache are different decoders: use one at a time")
	case cfg.beam < 0:
		return nil, fmt.Errorf("-beam = %d: beam width must be at least 1 (0 is off)", cfg.beam)
	case cfg.beam > engine.MaxBeamWidth:
		return nil, fmt.Errorf("-beam = %d: beam width must be at most %d (0 is off)", cfg.beam, engine.MaxBeamWidth)
	case cfg.beam > 0:
		if f := given("temperature", "topk", "topp", "minp", "seed", "repeat-penalty", "presence", "frequency", "penalty-window", "logprobs"); len(f) > 0 {
			return nil, fmt.Errorf("-%s = %s: beam search does not sample; it keeps the %d likeliest continuations by the model's own log-probabilities, so -%s would change nothing (remove it)", f[0], cfg.set[f[0]], cfg.beam, f[0])
		}
		return beamDecoder(cfg.beam, note), nil
	case cfg.speculate < 0:
		return nil, fmt.Errorf("-speculate = %d: the draft must propose at least 1 token per round", cfg.speculate)
	case cfg.speculate > 0 && cfg.draft == "":
		return nil, fmt.Errorf("-speculate = %d needs -draft: the path of the draft model (only the built-in model has a draft of its own)", cfg.speculate)
	case cfg.draft != "":
		if f := given("topk", "topp", "minp", "repeat-penalty", "presence", "frequency", "penalty-window"); len(f) > 0 {
			return nil, fmt.Errorf("-%s = %s: speculative decoding samples the target's whole tempered distribution; turn -%s off (or leave it out)", f[0], cfg.set[f[0]], f[0])
		}
		if cfg.isSet("logprobs") && cfg.logprobs > 0 {
			return nil, fmt.Errorf("-logprobs = %d: speculative decoding does not list alternatives (run without -draft for them)", cfg.logprobs)
		}
		// The defaults of the filters and penalties are for sampling one
		// token at a time; speculative decoding leaves them out.
		cfg.topK, cfg.topP, cfg.minP = 0, 1, 0
		cfg.repeatPenalty, cfg.presence, cfg.frequency, cfg.penaltyWindow = 1, 0, 0, 0
		gamma := cfg.speculate
		if gamma == 0 {
			gamma = defaultGamma
		}
		return speculativeDecoder(cfg.draft, gamma, note), nil
	case cfg.noCache:
		return noCacheDecoder, nil
	}
	return nil, nil
}

// neutral says whether a flag's value is the one that turns its stage off.
func neutral(name string, cfg *config) bool {
	switch name {
	case "temperature":
		return cfg.temperature == 0 // greedy: the likeliest token, as a search of one beam
	case "topk":
		return cfg.topK == 0
	case "topp":
		return cfg.topP == 1
	case "minp":
		return cfg.minP == 0
	case "seed":
		return false
	case "repeat-penalty":
		return cfg.repeatPenalty == 1
	case "presence":
		return cfg.presence == 0
	case "frequency":
		return cfg.frequency == 0
	case "penalty-window":
		return cfg.penaltyWindow == 0
	case "logprobs":
		return cfg.logprobs == 0
	}
	return false
}

// prepare does the checks every decoder shares, before any work: the
// tokenizer fits the model, the options are valid, the prompt leaves room.
func prepare(m *engine.Model, tok *engine.Tokenizer, prompt string, opts engine.Options) ([]int, error) {
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
	if len(ids) >= m.Config.SeqLen {
		return nil, fmt.Errorf("prompt is %d tokens (with BOS) but the model's context is %d: no room to generate", len(ids), m.Config.SeqLen)
	}
	return ids, nil
}

// stepper turns a stream of token ids into engine.Steps: pieces, text
// that is valid UTF-8 and never shows part of a stop sequence, finish
// reasons and the final Stats.
type stepper struct {
	tok    *engine.Tokenizer
	opts   engine.Options
	stops  *engine.StopMatcher
	held   []byte // bytes of an unfinished UTF-8 character
	prev   int
	pos    int
	n      int
	ctxLen int
	stats  engine.Stats
	start  time.Time
}

func newStepper(m *engine.Model, tok *engine.Tokenizer, ids []int, opts engine.Options) *stepper {
	s := &stepper{tok: tok, opts: opts, prev: ids[len(ids)-1], pos: len(ids) - 1, ctxLen: m.Config.SeqLen,
		stats: engine.Stats{PromptTokens: len(ids)}, start: time.Now()}
	if len(opts.Stop) > 0 {
		s.stops = engine.NewStopMatcher(opts.Stop, opts.IncludeStop)
	}
	return s
}

// step makes the Step for the next token; last says the stream has no
// more tokens after it (for a reason of its own, given as finish).
func (s *stepper) step(id int, logProb float64, last bool, finish engine.FinishReason) engine.Step {
	s.n++
	s.pos++
	st := engine.Step{ID: id, Pos: s.pos, LogProb: logProb}
	if !s.tok.IsEnd(id) {
		st.Piece = s.tok.Decode(s.prev, id)
	}
	s.prev = id
	released := st.Piece
	stopped := false
	if s.stops != nil {
		var stop string
		released, stop, stopped = s.stops.Push(st.Piece)
		if stopped {
			s.stats.StopSequence = stop
		}
	}
	switch {
	case s.tok.IsEnd(id):
		st.Finish = engine.FinishEOS
	case stopped:
		st.Finish = engine.FinishStop
	case s.n == s.opts.MaxNewTokens:
		st.Finish = engine.FinishLength
	case s.pos+1 >= s.ctxLen:
		st.Finish = engine.FinishContext
	case last:
		st.Finish = finish
	}
	text := append(s.held, released...)
	if st.Finish != "" {
		if s.stops != nil && !stopped {
			text = append(text, s.stops.Flush()...)
		}
		st.Text = string(text)
		s.stats.GeneratedTokens = s.n
		s.stats.Decode = time.Since(s.start)
		st.Stats = &s.stats
		return st
	}
	// Hold back the start of a UTF-8 character split across tokens.
	cut := len(text)
	for i := len(text) - 1; i >= 0 && i >= len(text)-utf8.UTFMax; i-- {
		if utf8.RuneStart(text[i]) {
			if !utf8.FullRune(text[i:]) {
				cut = i
			}
			break
		}
	}
	st.Text = string(text[:cut])
	s.held = append([]byte(nil), text[cut:]...)
	return st
}

// final is a last step without a token, for a stream that ends on its own.
func (s *stepper) final(finish engine.FinishReason) engine.Step {
	text := string(s.held)
	if s.stops != nil {
		text += s.stops.Flush()
	}
	s.stats.GeneratedTokens = s.n
	s.stats.Decode = time.Since(s.start)
	return engine.Step{ID: engine.NoToken, Pos: s.pos + 1, Text: text, Finish: finish, Stats: &s.stats}
}

// finishFor turns a context error into a finish reason.
func finishFor(err error) engine.FinishReason {
	if errors.Is(err, context.DeadlineExceeded) {
		return engine.FinishDeadline
	}
	return engine.FinishCancelled
}

// beamDecoder runs beam search, then streams its best continuation.
func beamDecoder(width int, note func(string)) decoder {
	return func(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, prompt string, opts engine.Options) iter.Seq2[engine.Step, error] {
		return func(yield func(engine.Step, error) bool) {
			ids, err := prepare(m, tok, prompt, opts)
			if err != nil {
				yield(engine.Step{}, err)
				return
			}
			maxNew := opts.MaxNewTokens
			if maxNew == 0 {
				maxNew = m.Config.SeqLen - len(ids)
			}
			s := newStepper(m, tok, ids, opts)
			res, err := engine.BeamSearchContext(ctx, engine.NewModelLM(m, 2*width), ids, engine.BeamOptions{
				Width: width, MaxNewTokens: maxNew, IsEnd: tok.IsEnd,
			})
			finish := engine.FinishLength
			switch {
			case err != nil && ctx.Err() != nil && res == nil: // -timeout before the first step
				yield(s.final(finishFor(err)), nil)
				return
			case err != nil && ctx.Err() != nil: // -timeout: the best found so far
				finish = finishFor(err)
			case err != nil:
				yield(engine.Step{}, fmt.Errorf("-beam = %d: %w", width, err))
				return
			}
			note(fmt.Sprintf("beam: width %d, %d nodes explored in %d passes, best log-probability %.3f over %d tokens",
				width, len(res.Tree), res.Passes, res.Best.CumLogProb, len(res.Best.Tokens)))
			for i, id := range res.Best.Tokens {
				st := s.step(id, res.Tree[nodeAt(res, i)].LogProb, i == len(res.Best.Tokens)-1, finish)
				if !yield(st, nil) || st.Finish != "" {
					return
				}
			}
		}
	}
}

// nodeAt returns the tree node of the best hypothesis's i-th token.
func nodeAt(res *engine.BeamResult, i int) int {
	n := res.Best.Node
	for d := len(res.Best.Tokens) - 1; d > i; d-- {
		n = res.Tree[n].Parent
	}
	return n
}

// speculativeDecoder runs speculative decoding with the draft model at
// draftPath proposing gamma tokens per round.
func speculativeDecoder(draftPath string, gamma int, note func(string)) decoder {
	return func(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, prompt string, opts engine.Options) iter.Seq2[engine.Step, error] {
		return func(yield func(engine.Step, error) bool) {
			ids, err := prepare(m, tok, prompt, opts)
			if err != nil {
				yield(engine.Step{}, err)
				return
			}
			d, err := loadDraft(draftPath, m, tok)
			if err != nil {
				yield(engine.Step{}, err)
				return
			}
			// The draft must see everything the target sees: a shorter
			// context would end the text early, at the draft's limit.
			if need := len(ids) + opts.MaxNewTokens; d.Config.SeqLen < m.Config.SeqLen && (opts.MaxNewTokens == 0 || need > d.Config.SeqLen) {
				wanted := "until the model's context is full (-n 0)"
				if opts.MaxNewTokens > 0 {
					wanted = fmt.Sprintf("%d tokens: %d of prompt and -n %d", need, len(ids), opts.MaxNewTokens)
				}
				yield(engine.Step{}, fmt.Errorf("-draft = %q: its context is %d tokens, shorter than the model's %d, and this run needs %s; use a draft with a context of at least %d tokens, or -n %d or less",
					draftPath, d.Config.SeqLen, m.Config.SeqLen, wanted, min(need, m.Config.SeqLen), d.Config.SeqLen-len(ids)))
				return
			}
			target, draft := engine.NewModelLM(m, 1), engine.NewModelLM(d, 1)
			s := newStepper(m, tok, ids, opts)
			start := time.Now()
			// Prefill both models; the rounds then reuse their caches.
			if _, err := target.NextLogits(ids, 1); err != nil {
				yield(engine.Step{}, err)
				return
			}
			if _, err := draft.NextLogits(ids, 1); err != nil {
				yield(engine.Step{}, err)
				return
			}
			s.stats.Prefill = time.Since(start)
			s.start = time.Now()
			var stopped bool
			stats, err := engine.Speculative(target, draft, ids, engine.SpeculativeOptions{
				Gamma: gamma, MaxNewTokens: opts.MaxNewTokens, Temperature: opts.Temperature, Seed: opts.Seed, IsEnd: tok.IsEnd,
			}, func(id int, logProb float64) bool {
				st := s.step(id, logProb, ctx.Err() != nil, finishFor(ctx.Err()))
				stopped = !yield(st, nil) || st.Finish != ""
				return !stopped
			})
			if err != nil && !stopped {
				yield(engine.Step{}, err)
				return
			}
			if !stopped { // the draft's context ran out first
				yield(s.final(engine.FinishContext), nil)
			}
			note(fmt.Sprintf("speculative: γ=%d, acceptance rate %.2f, %.2f tokens per target pass (%d passes for %d tokens)",
				gamma, stats.AcceptanceRate(), stats.TokensPerTargetPass(), stats.TargetPasses, len(stats.Tokens)))
		}
	}
}

// noCacheDecoder samples like engine.Generate but keeps no KV cache: every
// step runs the whole sequence through the model again.
func noCacheDecoder(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, prompt string, opts engine.Options) iter.Seq2[engine.Step, error] {
	return func(yield func(engine.Step, error) bool) {
		ids, err := prepare(m, tok, prompt, opts)
		if err != nil {
			yield(engine.Step{}, err)
			return
		}
		sampler, err := opts.NewSampler(m.Config.VocabSize)
		if err != nil {
			yield(engine.Step{}, err)
			return
		}
		lm := engine.NewNoCacheLM(m)
		s := newStepper(m, tok, ids, opts)
		seq := append([]int(nil), ids...)
		for {
			rows, err := lm.NextLogits(seq, 1)
			if err != nil {
				yield(engine.Step{}, err)
				return
			}
			id, err := sampler.Sample(rows[0], seq[1:]...)
			if err != nil {
				yield(engine.Step{}, err)
				return
			}
			prev := seq[len(seq)-1]
			st := s.step(id, engine.LogProbOf(rows[0], id), ctx.Err() != nil, finishFor(ctx.Err()))
			if opts.TopLogProbs > 0 {
				st.TopLogProbs = engine.TopLogProbs(rows[0], opts.TopLogProbs)
				for i := range st.TopLogProbs {
					st.TopLogProbs[i].Text = tok.Decode(prev, st.TopLogProbs[i].ID)
				}
			}
			if !yield(st, nil) || st.Finish != "" {
				return
			}
			seq = append(seq, id)
		}
	}
}

// loadDraft reads the draft model ("default": the built-in draft) and checks
// that it speaks the target's language: the same vocabulary size and, when a
// tokenizer.bin sits beside the draft, the same tokens.
func loadDraft(path string, m *engine.Model, tok *engine.Tokenizer) (*engine.Model, error) {
	var d *engine.Model
	var dtok *engine.Tokenizer
	var err error
	if path == "default" {
		d, dtok, err = engine.DefaultDraft()
	} else {
		d, err = engine.LoadModel(path)
		beside := filepath.Join(filepath.Dir(path), "tokenizer.bin")
		if _, statErr := os.Stat(beside); err == nil && statErr == nil {
			dtok, err = engine.LoadTokenizer(beside, d.Config.VocabSize)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("-draft: %w", err)
	}
	if d.Config.VocabSize != m.Config.VocabSize {
		return nil, fmt.Errorf("-draft = %q: its vocabulary has %d tokens but the model's has %d; the draft must share the model's tokenizer", path, d.Config.VocabSize, m.Config.VocabSize)
	}
	if dtok != nil {
		if id, same := tok.SameVocabulary(dtok); !same {
			return nil, fmt.Errorf("-draft = %q: its tokenizer differs from the model's at token %d (%q vs %q); the draft must share the model's tokenizer", path, id, dtok.Piece(id), tok.Piece(id))
		}
	}
	return d, nil
}
