package bpe

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// None stands for a special token that the vocabulary does not have.
const None = -1

// TokenType is what a token is, as tokenizer.ggml.token_type gives it.
type TokenType int32

// The token types of GGUF.
const (
	Undefined   TokenType = 0 // no type given: stands for nothing
	Normal      TokenType = 1 // ordinary text
	Unknown     TokenType = 2 // stands for text the vocabulary cannot spell (SentencePiece's <unk>)
	Control     TokenType = 3 // marks structure, not text: <|im_start|>, <s>, </s>
	UserDefined TokenType = 4 // text added to the vocabulary by hand, always kept whole
	Unused      TokenType = 5 // a reserved slot
	Byte        TokenType = 6 // one raw byte, written <0xNN> (SentencePiece byte fallback)
)

// Spec is a tokenizer as a GGUF file describes it, in plain values: the
// tokenizer.ggml.* metadata. Ids that a file does not give must be set to
// None; Defaults gives the values to start from.
type Spec struct {
	// Model is tokenizer.ggml.model: "gpt2" for byte-level BPE, "llama"
	// for SentencePiece.
	Model string
	// Pre is tokenizer.ggml.pre, the rule that cuts text into words
	// before byte-level BPE: "smollm", "llama-bpe", "qwen2", "gpt-2",
	// "default", ... ("" is "default"). SentencePiece ignores it.
	Pre string
	// Tokens is tokenizer.ggml.tokens: each token's text, by id.
	// Byte-level BPE writes bytes with the characters of its byte map
	// ("Ġworld"); SentencePiece writes spaces as "▁" ("▁world").
	Tokens []string
	// Types is tokenizer.ggml.token_type, one per token; nil means all
	// Normal.
	Types []int32
	// Scores is tokenizer.ggml.scores, one per token; nil means all 0.
	// SentencePiece merges the pair whose result has the highest score
	// first.
	Scores []float32
	// Merges is tokenizer.ggml.merges ("gpt2" only): pairs of tokens
	// written "left right", the earliest merged first.
	Merges []string
	// Special token ids, or None: tokenizer.ggml.bos_token_id,
	// eos_token_id, unknown_token_id, padding_token_id, eot_token_id
	// (end of turn) and eom_token_id (end of message).
	BOS, EOS, UNK, PAD, EOT, EOM int
	// AddBOS and AddEOS are tokenizer.ggml.add_bos_token and
	// add_eos_token: whether Encode, asked to add special tokens, puts BOS
	// in front and EOS at the end.
	AddBOS, AddEOS bool
	// AddSpacePrefix is tokenizer.ggml.add_space_prefix ("llama" only):
	// SentencePiece puts a space in front of the text, so that its first
	// word is spelled like any other ("▁Hello").
	AddSpacePrefix bool
}

// Defaults returns the Spec that llama.cpp assumes for a model and
// pre-tokenizer when a GGUF file leaves keys out; fill in what the file
// gives over it. For "llama": BOS 1, EOS 2, UNK 0, BOS added and a space
// prefix. For "gpt2": no special tokens (llama.cpp falls back to id 11 for
// both BOS and EOS, which fits few vocabularies; here they are None), and
// BOS added for the Llama 3 pre-tokenizers.
func Defaults(model, pre string) Spec {
	s := Spec{Model: model, Pre: pre, BOS: None, EOS: None, UNK: None, PAD: None, EOT: None, EOM: None}
	switch model {
	case "llama":
		s.BOS, s.EOS, s.UNK = 1, 2, 0
		s.AddBOS, s.AddSpacePrefix = true, true
	case "gpt2":
		switch pre {
		case "llama-bpe", "llama3", "llama-v3", "falcon3", "pixtral":
			s.AddBOS = true
		}
	}
	return s
}

// Tokenizer encodes text to token ids and decodes ids to text. It is safe
// for concurrent use.
type Tokenizer struct {
	spm     bool // SentencePiece ("llama"), else byte-level BPE ("gpt2")
	llama2c bool // SentencePiece as llama2.c's run.c encodes it (see llama2c.go)
	pre     preTokenizer
	tokens  []string
	types   []TokenType
	scores  []float32
	pieces  [][]byte         // what each token decodes to
	ids     map[string]int32 // token text to id
	merges  map[pair]merge   // byte-level BPE: the merge of two tokens
	// byteToken is the token for each single byte, or None: byte-level
	// BPE's byte-map character, SentencePiece's <0xNN>.
	byteToken [256]int32
	// specials are the tokens cut out of the text before tokenizing
	// (control, user-defined and unknown), longest first.
	specials []int32
	eog      map[int]bool

	bos, eos, unk, pad, eot, eom int
	addBOS, addEOS, spacePrefix  bool
}

// New checks s and builds its Tokenizer. It refuses a model or
// pre-tokenizer it does not know, lists whose lengths disagree, unknown
// token types, duplicate tokens, merges that name tokens not in the
// vocabulary, and special ids out of range.
func New(s Spec) (*Tokenizer, error) {
	t := &Tokenizer{
		tokens: slices.Clone(s.Tokens), // the caller may reuse its slices
		bos:    s.BOS, eos: s.EOS, unk: s.UNK, pad: s.PAD, eot: s.EOT, eom: s.EOM,
		addBOS: s.AddBOS, addEOS: s.AddEOS,
	}
	switch s.Model {
	case "gpt2":
		p, ok := preTokenizers[s.Pre]
		if !ok {
			return nil, fmt.Errorf("pre-tokenizer %q is not supported (supported: %s)", s.Pre, knownPre())
		}
		t.pre = p
	case "llama":
		t.spm = true
		t.spacePrefix = s.AddSpacePrefix
	default:
		return nil, fmt.Errorf("tokenizer model %q is not supported (want \"gpt2\" or \"llama\")", s.Model)
	}
	n := len(s.Tokens)
	if n == 0 {
		return nil, fmt.Errorf("the vocabulary has no tokens")
	}
	if n > 1<<31-1 {
		return nil, fmt.Errorf("the vocabulary has %d tokens, more than ids can number", n)
	}
	if s.Types != nil && len(s.Types) != n {
		return nil, fmt.Errorf("%d token types for %d tokens", len(s.Types), n)
	}
	if s.Scores != nil && len(s.Scores) != n {
		return nil, fmt.Errorf("%d token scores for %d tokens", len(s.Scores), n)
	}
	t.scores = slices.Clone(s.Scores)
	if t.scores == nil {
		t.scores = make([]float32, n)
	}
	t.types = make([]TokenType, n)
	t.ids = make(map[string]int32, n)
	for id, text := range t.tokens {
		t.types[id] = Normal
		if s.Types != nil {
			typ := TokenType(s.Types[id])
			if typ < Undefined || typ > Byte {
				return nil, fmt.Errorf("token %d %q has type %d (want 0..6)", id, text, typ)
			}
			t.types[id] = typ
		}
		if text == "" {
			// No text is spelled with an empty token; Lookup finds the
			// last, as llama.cpp's table of texts does.
			t.ids[text] = int32(id)
			continue
		}
		if prev, dup := t.ids[text]; dup {
			return nil, fmt.Errorf("token %d %q is already token %d", id, text, prev)
		}
		t.ids[text] = int32(id)
	}
	for _, sp := range []struct {
		name string
		id   int
	}{{"BOS", s.BOS}, {"EOS", s.EOS}, {"UNK", s.UNK}, {"PAD", s.PAD}, {"EOT", s.EOT}, {"EOM", s.EOM}} {
		if sp.id != None && (sp.id < 0 || sp.id >= n) {
			return nil, fmt.Errorf("%s token id %d is out of range (vocabulary of %d tokens; None is %d)", sp.name, sp.id, n, None)
		}
	}
	if s.AddBOS && s.BOS == None {
		return nil, fmt.Errorf("BOS is to be added but the vocabulary has no BOS token")
	}
	if s.AddEOS && s.EOS == None {
		return nil, fmt.Errorf("EOS is to be added but the vocabulary has no EOS token")
	}
	t.markEndOfGeneration()
	if err := t.buildPieces(); err != nil {
		return nil, err
	}
	if t.spm {
		t.buildByteTokensSPM()
	} else {
		t.buildByteTokensBPE()
		if err := t.buildMerges(s.Merges); err != nil {
			return nil, err
		}
	}
	t.buildSpecials()
	return t, nil
}

func knownPre() string {
	var names []string
	for n := range preTokenizers {
		if n != "" {
			names = append(names, strconv.Quote(n))
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// buildPieces works out the bytes each token stands for.
func (t *Tokenizer) buildPieces() error {
	t.pieces = make([][]byte, len(t.tokens))
	for id, text := range t.tokens {
		switch t.types[id] {
		case Normal:
			if t.spm {
				t.pieces[id] = []byte(strings.ReplaceAll(text, "▁", " "))
			} else {
				t.pieces[id] = unByteLevel(text)
			}
		case Control, UserDefined, Unknown:
			t.pieces[id] = []byte(text)
		case Byte:
			b, ok := parseByteToken(text)
			if !ok {
				return fmt.Errorf("token %d %q has type byte but is not of the form <0xNN>", id, text)
			}
			t.pieces[id] = []byte{b}
		default:
			// Unused and undefined tokens stand for nothing.
		}
	}
	return nil
}

// parseByteToken reads a byte token's "<0xNN>".
func parseByteToken(text string) (byte, bool) {
	if len(text) != 6 || !strings.HasPrefix(text, "<0x") || text[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(text[3:5], 16, 8)
	return byte(v), err == nil
}

// IsControl reports whether id is a control token (such as <|im_start|> or
// </s>): it marks structure rather than text.
func (t *Tokenizer) IsControl(id int) bool {
	return t.Type(id) == Control
}

// Type returns the type of token id, or Undefined if id is out of range.
func (t *Tokenizer) Type(id int) TokenType {
	if id < 0 || id >= len(t.types) {
		return Undefined
	}
	return t.types[id]
}

// Token returns the text of token id as the vocabulary spells it ("Ġworld",
// "▁world"), or "" if id is out of range.
func (t *Tokenizer) Token(id int) string {
	if id < 0 || id >= len(t.tokens) {
		return ""
	}
	return t.tokens[id]
}

// Score returns the score of token id: SentencePiece merges into the
// token of highest score first. It panics if id is out of range.
func (t *Tokenizer) Score(id int) float32 { return t.scores[id] }

// Lookup returns the id of the token whose text (as Token gives it) is
// text, if there is one.
func (t *Tokenizer) Lookup(text string) (int, bool) {
	id, ok := t.ids[text]
	return int(id), ok
}

// VocabSize returns the number of tokens.
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// BOS returns the beginning-of-sequence token id, or None.
func (t *Tokenizer) BOS() int { return t.bos }

// EOS returns the end-of-sequence token id, or None.
func (t *Tokenizer) EOS() int { return t.eos }

// EOT returns the end-of-turn token id, or None.
func (t *Tokenizer) EOT() int { return t.eot }

// UNK returns the unknown token id, or None.
func (t *Tokenizer) UNK() int { return t.unk }

// PAD returns the padding token id, or None.
func (t *Tokenizer) PAD() int { return t.pad }
