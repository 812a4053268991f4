package stopping

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// FinishReason says which condition ended a generation. The values are the
// engine's (decoding.FinishReason) for the same conditions.
type FinishReason string

// The finish reasons Generate reports.
const (
	FinishEOS       FinishReason = "eos"       // the model produced an end-of-text token
	FinishLength    FinishReason = "length"    // MaxNewTokens tokens were generated
	FinishStop      FinishReason = "stop"      // the text contains one of the stop strings
	FinishPredicate FinishReason = "predicate" // the caller's StopWhen rule said stop
	FinishDeadline  FinishReason = "deadline"  // the context's deadline passed
	FinishCancelled FinishReason = "cancelled" // the context was cancelled
)

// NextToken is one step of a model: given the tokens generated so far (which
// it must not modify), it returns the next token's id and its text. It may
// take a while, and should give up with ctx.Err() when ctx is done.
type NextToken func(ctx context.Context, generated []int) (id int, piece string, err error)

// Config says when a generation must stop. Its zero value never stops by
// itself: set at least one condition, or use a context that ends.
type Config struct {
	// MaxNewTokens is the most tokens to generate; 0 means no limit.
	MaxNewTokens int
	// IsEnd reports whether a token ends the text (the model's
	// end-of-text token); nil means no token does.
	IsEnd func(id int) bool
	// Stop lists stop strings (none empty); IncludeStop keeps the one
	// found at the end of the text.
	Stop        []string
	IncludeStop bool
	// StopWhen, if set, is asked after every token whether to stop; text
	// is every piece generated so far, joined, before any stop string is
	// removed.
	StopWhen func(text string) bool
}

// Result is a finished generation.
type Result struct {
	Text         string       // what the reader sees: the released text, then the flushed rest
	IDs          []int        // every generated token, the end-of-text token included
	Finish       FinishReason // why it ended
	StopSequence string       // the stop string found, when Finish is FinishStop
}

// Generate runs the loop: it asks next for a token, appends it, and checks
// the stop conditions, until one of them fires. After each token the checks
// run in this order, and the first that fires wins:
//
//  1. the token is an end-of-text token (cfg.IsEnd): FinishEOS; its piece
//     is not part of the text;
//  2. the text contains a stop string (cfg.Stop): FinishStop;
//  3. cfg.StopWhen returns true: FinishPredicate;
//  4. cfg.MaxNewTokens tokens have been generated: FinishLength.
//
// Before every call of next, the first one included, ctx is checked: if it
// is done, the generation ends with FinishDeadline (ctx's deadline passed)
// or FinishCancelled (anything else). So does an error from next while ctx
// is done. Any other error from next ends the generation with that error.
func Generate(ctx context.Context, next NextToken, cfg Config) (Result, error) {
	var res Result
	matcher := NewStopMatcher(cfg.Stop, cfg.IncludeStop)
	var shown, raw strings.Builder
	end := func(reason FinishReason) (Result, error) {
		shown.WriteString(matcher.Flush())
		res.Text, res.Finish = shown.String(), reason
		return res, nil
	}

	for {
		if err := ctx.Err(); err != nil {
			return end(reasonFor(err))
		}
		id, piece, err := next(ctx, res.IDs)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return end(reasonFor(ctxErr))
			}
			res.Text = shown.String()
			return res, fmt.Errorf("generating token %d: %w", len(res.IDs)+1, err)
		}
		res.IDs = append(res.IDs, id)
		if cfg.IsEnd != nil && cfg.IsEnd(id) {
			return end(FinishEOS)
		}
		raw.WriteString(piece)
		out, stop, stopped := matcher.Push(piece)
		shown.WriteString(out)
		switch {
		case stopped:
			res.StopSequence = stop
			return end(FinishStop)
		case cfg.StopWhen != nil && cfg.StopWhen(raw.String()):
			return end(FinishPredicate)
		case len(res.IDs) == cfg.MaxNewTokens:
			return end(FinishLength)
		}
	}
}

// reasonFor turns the error of a done context into a finish reason.
func reasonFor(err error) FinishReason {
	if errors.Is(err, context.DeadlineExceeded) {
		return FinishDeadline
	}
	return FinishCancelled
}
