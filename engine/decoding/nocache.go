package decoding

import "github.com/tokenbytoken/course/engine"

// NoCache decodes in Generate like the default decoder, with every
// sampling setting, but keeps no KV cache: every step runs the whole
// sequence through the model again (see NoCacheLM), to show what the cache
// saves. In Decode the LM decides what it keeps, and NoCache decodes as
// the default decoder does.
type NoCache struct{}

func (NoCache) check(Options) error { return nil }

func (NoCache) generate(d *decoding, m *engine.Model, opts Options, yield func(Step, error) bool) {
	d.sample(yield, opts.chooser(d.tok), lmNext(engine.NewNoCacheLM(m)))
}

func (NoCache) decode(d *decoding, lm LM, opts Options, yield func(Step, error) bool) {
	sampling{}.decode(d, lm, opts, yield)
}
