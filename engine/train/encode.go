package train

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/parallel"
)

// Encoder turns a corpus into token ids with the engine's own
// Tokenizer.Encode (O(n log n) merges), so training and generation always
// tokenize alike.
type Encoder struct {
	tok *engine.Tokenizer
}

// NewEncoder returns an encoder for a tokenizer.
func NewEncoder(tok *engine.Tokenizer) *Encoder { return &Encoder{tok: tok} }

// Encode returns the ids of text, without BOS or EOS.
func (e *Encoder) Encode(text string) ([]int32, error) {
	ids, err := e.tok.Encode(text, false, false)
	if err != nil {
		return nil, err
	}
	out := make([]int32, len(ids))
	for i, id := range ids {
		out[i] = int32(id)
	}
	return out, nil
}

// EncodeDocuments encodes many documents in parallel and joins them into
// one token stream, each document as BOS, its tokens, EOS.
func (e *Encoder) EncodeDocuments(docs []string) ([]uint16, error) {
	return e.EncodeDocumentsContext(context.Background(), docs)
}

// EncodeDocumentsContext is EncodeDocuments that stops when ctx is done:
// every worker checks it before each document, so Ctrl-C during a long
// encoding is honoured within one document's time. The error then wraps
// ErrInterrupted.
func (e *Encoder) EncodeDocumentsContext(ctx context.Context, docs []string) ([]uint16, error) {
	enc, err := e.encodeEach(ctx, docs)
	if err != nil {
		return nil, err
	}
	if vocab := e.tok.VocabSize(); vocab > maxVocabSize {
		return nil, fmt.Errorf("vocabulary of %d tokens does not fit 16-bit ids", vocab)
	}
	bos, eos := uint16(e.tok.BOS()), uint16(e.tok.EOS())
	var out []uint16
	for _, ids := range enc {
		out = append(out, bos)
		for _, id := range ids {
			out = append(out, uint16(id))
		}
		out = append(out, eos)
	}
	return out, nil
}

// encodeEach encodes every document on its own, in parallel, checking ctx
// before each one (see EncodeDocumentsContext).
func (e *Encoder) encodeEach(ctx context.Context, docs []string) ([][]int32, error) {
	if e == nil || e.tok == nil {
		return nil, errors.New("encoder has no tokenizer")
	}
	enc := make([][]int32, len(docs))
	var (
		mu      sync.Mutex
		first   error
		firstAt = len(docs)
		failed  atomic.Bool // a worker stopped: the others stop too
	)
	fail := func(i int, err error) {
		mu.Lock()
		if i < firstAt {
			first, firstAt = err, i
		}
		mu.Unlock()
		failed.Store(true)
	}
	parallel.For(len(docs), true, func(_, start, end int) {
		for i := start; i < end && !failed.Load(); i++ {
			if ctx.Err() != nil {
				fail(i, fmt.Errorf("%w while encoding document %d of %d: %v", ErrInterrupted, i, len(docs), ctx.Err()))
				return
			}
			ids, err := e.Encode(docs[i])
			if err != nil {
				fail(i, fmt.Errorf("document %d: %w", i, err))
				return
			}
			enc[i] = ids
		}
	})
	if first != nil {
		return nil, first
	}
	return enc, nil
}
