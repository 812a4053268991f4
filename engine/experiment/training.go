package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/train"
)

// How training teaches (notebook 12): a small corpus of Go packages, the
// loss at every position of a text, a fresh model (its live loss chart is
// notebook.LossChart), a file the course's model never trained on, and the
// cost of a text's second copy.

// GoCorpus is hand-written Go source, file by file, split into a training
// and a validation part.
type GoCorpus struct {
	Train, Val []string
}

// Data turns the corpus into the token streams the trainer reads: each
// function-sized piece of a file (train.Segments) becomes <s>, its tokens,
// </s>.
func (c *GoCorpus) Data(tok *engine.Tokenizer) (*train.Data, error) {
	enc := train.NewEncoder(tok)
	stream := func(files []string) ([]uint16, error) {
		var docs []string
		for _, f := range files {
			docs = append(docs, train.Segments(f)...)
		}
		return enc.EncodeDocuments(docs)
	}
	tr, err := stream(c.Train)
	if err != nil {
		return nil, err
	}
	val, err := stream(c.Val)
	if err != nil {
		return nil, err
	}
	return &train.Data{Train: tr, Val: val, VocabSize: tok.VocabSize()}, nil
}

// ReadGoCorpus reads the non-test .go files directly in root/<package> for
// each package (root is a GOROOT's src directory), skips generated ones
// (train.IsGenerated), and puts every every-th file read, counting across
// the packages in order, into the validation part.
func ReadGoCorpus(root string, packages []string, every int) (*GoCorpus, error) {
	if every < 1 {
		return nil, fmt.Errorf("one file in %d for validation: must be at least 1", every)
	}
	c := &GoCorpus{}
	n := 0
	for _, pkg := range packages {
		files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("package %s: no Go files in %s", pkg, filepath.Join(root, pkg))
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			if train.IsGenerated(src) {
				continue
			}
			if n++; n%every == 0 {
				c.Val = append(c.Val, string(src))
			} else {
				c.Train = append(c.Train, string(src))
			}
		}
	}
	return c, nil
}

// HeldOutGoFile returns the first file under root (a GOROOT's src
// directory, walked in lexical order) that the course's model kept for
// validation (train.IsValidation of its path relative to root): a
// hand-written, non-test .go file outside testdata, of minSize to maxSize
// bytes, and in none of the packages excluded. rel is its slash-separated
// path relative to root.
func HeldOutGoFile(root string, exclude []string, minSize, maxSize int) (rel, text string, err error) {
	found := errors.New("found")
	err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		r, err := filepath.Rel(root, path)
		if err != nil {
			return nil
		}
		r = filepath.ToSlash(r)
		if strings.Contains(r, "testdata/") || !train.IsValidation(r) {
			return nil
		}
		for _, pkg := range exclude {
			if filepath.ToSlash(filepath.Dir(r)) == pkg {
				return nil
			}
		}
		b, err := os.ReadFile(path)
		if err != nil || len(b) < minSize || len(b) > maxSize || train.IsGenerated(b) {
			return nil
		}
		rel, text = r, string(b)
		return found
	})
	if err == found {
		return rel, text, nil
	}
	if err == nil {
		err = fmt.Errorf("no held-out Go file of %d to %d bytes under %s", minSize, maxSize, root)
	}
	return "", "", err
}

// PositionScore is the game at one position of a text: the token just read,
// the token that really comes next, and the probability the model gave it.
type PositionScore struct {
	After, Next string // the tokens' pieces
	P           float64
}

// Loss is −ln P, the position's loss in nats.
func (s PositionScore) Loss() float64 { return -math.Log(s.P) }

// ScoreText plays the next-token game along text with the engine's ordinary
// forward pass, one Forward per token as in generation: after <s> and each
// token, the probability the model gives the token that comes next.
func ScoreText(m *engine.Model, tok *engine.Tokenizer, text string) ([]PositionScore, error) {
	ids, err := tok.Encode(text, true, false) // <s> first: the first guess has no text to go on
	if err != nil {
		return nil, err
	}
	st := m.NewState()
	var scores []PositionScore
	for pos := 0; pos+1 < len(ids); pos++ {
		logits, err := st.Forward(ids[pos], pos)
		if err != nil {
			return scores, err
		}
		scores = append(scores, PositionScore{After: tok.Piece(ids[pos]), Next: tok.Piece(ids[pos+1]), P: decoding.Softmax(logits)[ids[pos+1]]})
	}
	return scores, nil
}

// FreshModel returns a model of cfg's shape with the weights a training run
// of cfg starts from (train.Params.Init with cfg.Seed).
func FreshModel(cfg train.Config) (*engine.Model, error) {
	p, err := train.NewParams(cfg.Model)
	if err != nil {
		return nil, err
	}
	p.Init(cfg.Seed)
	return p.Model()
}

// CopyCost scores piece, then piece followed by itself, with
// train.Evaluate, and returns the bits per byte of the first copy and of
// the second (what the second copy adds to the total).
func CopyCost(m *engine.Model, tok *engine.Tokenizer, piece string) (first, second float64, err error) {
	if piece == "" {
		return 0, 0, errors.New("an empty piece costs nothing")
	}
	once, err := train.Evaluate(m, tok, piece)
	if err != nil {
		return 0, 0, err
	}
	twice, err := train.Evaluate(m, tok, piece+piece)
	if err != nil {
		return 0, 0, err
	}
	return once.BitsPerByte(), (twice.Nats - once.Nats) / math.Ln2 / float64(len(piece)), nil
}

// forwardChunk is how many positions EvaluateForward runs through the
// model in one batched pass: the rows of logits it keeps at once are
// forwardChunk × the vocabulary.
const forwardChunk = 128

// EvaluateForward scores text as train.Evaluate does — −ln p of every
// token given all the text before it, in total, with the text's tokens and
// bytes — but with the engine's forward pass (State.PrefillAll, a chunk of
// positions at a time), so it runs any model the engine loads, quantized
// GGUF models included, which the trainer cannot. The whole text must fit
// the model's context: every token is scored with all the text before it
// in view.
//
// When the tokenizer adds a BOS token, every token of the text is scored
// after it, as train.Evaluate does. A model whose tokenizer adds none
// (SmolLM2) has nothing to predict its first token from: that token is
// given, and neither its loss nor its bytes are counted.
func EvaluateForward(m *engine.Model, tok *engine.Tokenizer, text string) (train.EvalResult, error) {
	if m == nil || tok == nil {
		return train.EvalResult{}, fmt.Errorf("EvaluateForward needs a model and a tokenizer (got model %v, tokenizer %v)", m != nil, tok != nil)
	}
	if text == "" {
		return train.EvalResult{}, fmt.Errorf("the text is empty: nothing to evaluate")
	}
	ids, err := tok.Encode(text, true, false)
	if err != nil {
		return train.EvalResult{}, err
	}
	if len(ids) > m.Config.SeqLen {
		return train.EvalResult{}, fmt.Errorf("the text is %d tokens, more than the model's context of %d: score a shorter piece", len(ids), m.Config.SeqLen)
	}
	if len(ids) < 2 {
		return train.EvalResult{}, fmt.Errorf("the text %q is a single token: nothing to predict", text)
	}
	res := train.EvalResult{Bytes: len(text)}
	if ids[0] != tok.BOS() {
		res.Bytes -= len(tok.Decode(-1, ids[0])) // given, not predicted
	}
	st := m.NewState()
	for from := 0; from+1 < len(ids); from += forwardChunk {
		to := min(from+forwardChunk, len(ids)-1) // the last token predicts nothing
		rows, err := st.PrefillAll(ids[from:to], from)
		if err != nil {
			return train.EvalResult{}, err
		}
		for i, logits := range rows {
			p := decoding.Softmax(logits)[ids[from+i+1]]
			res.Nats -= math.Log(p)
			res.Tokens++
		}
	}
	return res, nil
}
