package decoding

import (
	"context"
	"iter"
)

// The decoders all stream Steps. These helpers gather a whole run into the
// shapes the tests compare against references: the token ids, a beam
// search's result, a speculative run's counts.

// sampleLoop runs Decode with pick and yields the token ids alone.
func sampleLoop(lm LM, prompt []int, maxNew int, pick func([]float32) int, isEnd func(int) bool) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		for s, err := range Decode(context.Background(), lm, prompt, Options{MaxNewTokens: maxNew, Decoder: Pick(pick), IsEnd: isEnd}) {
			if err != nil {
				yield(0, err)
				return
			}
			if s.ID != NoToken && !yield(s.ID, nil) {
				return
			}
		}
	}
}

// beamSearch runs Decode with opts (whose Decoder is a Beam) to its end
// and returns the search's result.
func beamSearch(lm LM, prompt []int, opts Options) (*BeamResult, error) {
	return beamSearchContext(context.Background(), lm, prompt, opts)
}

// beamSearchContext is beamSearch under ctx: when ctx ends the search, it
// returns the result so far (nil if there is none) with ctx's error. It
// also checks that the streamed tokens are the best hypothesis's.
func beamSearchContext(ctx context.Context, lm LM, prompt []int, opts Options) (*BeamResult, error) {
	var ids []int
	for s, err := range Decode(ctx, lm, prompt, opts) {
		if err != nil {
			return nil, err
		}
		if s.ID != NoToken {
			ids = append(ids, s.ID)
		}
		if s.Finish == "" {
			continue
		}
		res, _ := s.Stats.Report.(*BeamResult)
		if res != nil && !equalInts(ids, res.Best.Tokens) {
			return nil, errStreamed{ids, res.Best.Tokens}
		}
		if s.Finish == FinishCancelled || s.Finish == FinishDeadline {
			return res, ctx.Err()
		}
		return res, nil
	}
	return nil, errNoFinish
}

// specRun is what a speculative run gave: its counts and why it ended.
type specRun struct {
	SpeculativeStats
	Finish FinishReason
}

// speculative runs Decode with a draft model to its end: opts.Decoder is
// a Speculation whose Drafter is set to draft. emit, if not nil, sees
// every token and may stop the run.
func speculative(target, draft LM, prompt []int, opts Options, emit func(id int, logProb float64) bool) (specRun, error) {
	return speculativeWith(target, DraftLM{draft}, prompt, opts, emit)
}

// speculativeWith is speculative with any drafter.
func speculativeWith(target LM, draft Drafter, prompt []int, opts Options, emit func(id int, logProb float64) bool) (specRun, error) {
	sp, _ := opts.Decoder.(Speculation)
	sp.Drafter = draft
	opts.Decoder = sp
	var run specRun
	for s, err := range Decode(context.Background(), target, prompt, opts) {
		if err != nil {
			return run, err
		}
		if s.Stats != nil {
			run.SpeculativeStats, run.Finish = *s.Stats.Report.(*SpeculativeStats), s.Finish
		}
		if emit != nil && s.ID != NoToken && !emit(s.ID, s.LogProb) {
			break
		}
	}
	return run, nil
}

type errStreamed struct{ streamed, best []int }

func (e errStreamed) Error() string {
	return "streamed tokens differ from the best hypothesis's"
}

var errNoFinish = errorString("the steps ended without a finish reason")

type errorString string

func (e errorString) Error() string { return string(e) }
