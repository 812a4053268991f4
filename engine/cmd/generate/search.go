package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
)

// defaultGamma is the number of tokens the draft proposes per round when
// -draft is given without -speculate.
const defaultGamma = 4

// flagDecoder is the decoder the search and speed flags ask for: kind is
// "" (sampling one token at a time), "beam", "speculative" or "no-cache".
type flagDecoder struct {
	kind  string
	width int    // -beam
	draft string // -draft
	gamma int    // -speculate, or its default
}

// searchDecoder returns the decoder for the search and speed flags (-beam,
// -draft, -speculate, -no-cache); its kind is "" when none is set and the
// ordinary sampling loop runs. An error means the flags cannot be used as
// given and is reported as flag misuse (exit status 2). The engine runs the
// decoder (decoding.Options.Decoder); what it did is summarised after the
// text (notes).
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
func searchDecoder(cfg *config) (flagDecoder, error) {
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
		return flagDecoder{}, fmt.Errorf("-beam, -draft/-speculate and -no-cache are different decoders: use one at a time")
	case cfg.beam < 0:
		return flagDecoder{}, fmt.Errorf("-beam = %d: beam width must be at least 1 (0 is off)", cfg.beam)
	case cfg.beam > decoding.MaxBeamWidth:
		return flagDecoder{}, fmt.Errorf("-beam = %d: beam width must be at most %d (0 is off)", cfg.beam, decoding.MaxBeamWidth)
	case cfg.beam > 0:
		if f := given("temperature", "topk", "topp", "minp", "seed", "repeat-penalty", "presence", "frequency", "penalty-window", "logprobs"); len(f) > 0 {
			return flagDecoder{}, fmt.Errorf("-%s = %s: beam search does not sample; it keeps the %d likeliest continuations by the model's own log-probabilities, so -%s would change nothing (remove it)", f[0], cfg.set[f[0]], cfg.beam, f[0])
		}
		// The sampling defaults are for sampling; beam search leaves them out.
		cfg.temperature, cfg.topK, cfg.topP, cfg.minP = 0, 0, 1, 0
		cfg.repeatPenalty, cfg.presence, cfg.frequency, cfg.penaltyWindow = 1, 0, 0, 0
		return flagDecoder{kind: "beam", width: cfg.beam}, nil
	case cfg.speculate < 0:
		return flagDecoder{}, fmt.Errorf("-speculate = %d: the draft must propose at least 1 token per round", cfg.speculate)
	case cfg.speculate > 0 && cfg.draft == "":
		return flagDecoder{}, fmt.Errorf("-speculate = %d needs -draft: the path of the draft model (only the built-in model has a draft of its own)", cfg.speculate)
	case cfg.draft != "":
		if f := given("topk", "topp", "minp", "repeat-penalty", "presence", "frequency", "penalty-window"); len(f) > 0 {
			return flagDecoder{}, fmt.Errorf("-%s = %s: speculative decoding samples the target's whole tempered distribution; turn -%s off (or leave it out)", f[0], cfg.set[f[0]], f[0])
		}
		if cfg.isSet("logprobs") && cfg.logprobs > 0 {
			return flagDecoder{}, fmt.Errorf("-logprobs = %d: speculative decoding does not list alternatives (run without -draft for them)", cfg.logprobs)
		}
		// The defaults of the filters and penalties are for sampling one
		// token at a time; speculative decoding leaves them out.
		cfg.topK, cfg.topP, cfg.minP = 0, 1, 0
		cfg.repeatPenalty, cfg.presence, cfg.frequency, cfg.penaltyWindow = 1, 0, 0, 0
		gamma := cfg.speculate
		if gamma == 0 {
			gamma = defaultGamma
		}
		return flagDecoder{kind: "speculative", draft: cfg.draft, gamma: gamma}, nil
	case cfg.noCache:
		return flagDecoder{kind: "no-cache"}, nil
	}
	return flagDecoder{}, nil
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

// decoderFor turns the flags' decoder into the engine's, once the model,
// its tokenizer and the prompt are known: for speculative decoding it loads
// the draft and checks that it fits this run.
func decoderFor(dec flagDecoder, m *engine.Model, tok *engine.Tokenizer, prompt string, maxNew int) (decoding.Decoder, error) {
	switch dec.kind {
	case "beam":
		return decoding.Beam{Width: dec.width}, nil
	case "no-cache":
		return decoding.NoCache{}, nil
	case "speculative":
		d, err := loadDraft(dec.draft, m, tok)
		if err != nil {
			return nil, err
		}
		// The draft must see everything the target sees: with a shorter
		// context it would stop drafting part-way, and the run would go
		// on at the target's own pace.
		ids, err := tok.Encode(prompt, true, false)
		if err != nil {
			return nil, fmt.Errorf("encoding prompt: %w", err)
		}
		if need := len(ids) + maxNew; d.Config.SeqLen < m.Config.SeqLen && (maxNew == 0 || need > d.Config.SeqLen) {
			wanted := "until the model's context is full (-n 0)"
			if maxNew > 0 {
				wanted = fmt.Sprintf("%d tokens: %d of prompt and -n %d", need, len(ids), maxNew)
			}
			return nil, fmt.Errorf("-draft = %q: its context is %d tokens, shorter than the model's %d, and this run needs %s; use a draft with a context of at least %d tokens, or -n %d or less",
				dec.draft, d.Config.SeqLen, m.Config.SeqLen, wanted, min(need, m.Config.SeqLen), d.Config.SeqLen-len(ids))
		}
		return decoding.Speculation{Drafter: decoding.DraftLM{LM: engine.NewModelLM(d, 1)}, Gamma: dec.gamma}, nil
	}
	return nil, nil
}

// notes says what a decoder did, from the last step's Stats, for the
// summary after the text.
func notes(dec flagDecoder, last decoding.Step) []string {
	if last.Stats == nil {
		return nil
	}
	if res, ok := last.Stats.Report.(*decoding.BeamResult); ok && dec.kind == "beam" {
		return []string{fmt.Sprintf("beam: width %d, %d nodes explored in %d passes, best log-probability %.3f over %d tokens",
			dec.width, len(res.Tree), res.Passes, res.Best.CumLogProb, len(res.Best.Tokens))}
	}
	if st, ok := last.Stats.Report.(*decoding.SpeculativeStats); ok {
		return []string{fmt.Sprintf("speculative: γ=%d, acceptance rate %.2f, %.2f tokens per target pass (%d passes for %d tokens)",
			dec.gamma, st.AcceptanceRate(), st.TokensPerTargetPass(), st.TargetPasses, len(st.Tokens))}
	}
	return nil
}

// loadDraft reads the draft model ("default": the built-in draft) and checks
// that it speaks the target's language: the same vocabulary size and, when a
// tokenizer.bin sits beside the draft, the same tokens.
func loadDraft(path string, m *engine.Model, tok *engine.Tokenizer) (*engine.Model, error) {
	var d *engine.Model
	var dtok *engine.Tokenizer
	var err error
	if path == "default" {
		d, dtok, err = models.Draft()
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
