package stopping

import "context"

// FinishReason says which condition ended a generation. The values are the
// engine's (decoding.FinishReason) for the same conditions; keep them as they
// are.
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

// Generate runs the generation loop with its stop conditions. Task 2.
//
// It repeats: check ctx; call next(ctx, ids) with the ids generated so far;
// append the new id to Result.IDs; check the stop conditions. The pieces go
// through a StopMatcher (task 1) made from cfg.Stop and cfg.IncludeStop, and
// Result.Text is everything it released, followed, at the end, by its Flush.
//
// After each token the conditions are checked in this order, and the first
// that fires ends the generation with its reason:
//
//  1. cfg.IsEnd(id) (if IsEnd is set): FinishEOS. The end token's piece is
//     not pushed and is not part of any text.
//  2. the matcher found a stop string: FinishStop, and
//     Result.StopSequence says which.
//  3. cfg.StopWhen(text) (if set) returns true, where text is all the pieces
//     so far joined (stop strings not removed): FinishPredicate.
//  4. len(Result.IDs) == cfg.MaxNewTokens (if it is not 0): FinishLength.
//
// The clock: before every call of next (the first one too), check ctx.Err().
// If ctx is done, end with FinishDeadline when the error is (errors.Is)
// context.DeadlineExceeded, else FinishCancelled. A next that returns an
// error while ctx is done ends the same way (it gave up because of ctx):
// a deadline or a cancellation is a finish reason, not an error. Any other
// error from next is returned, wrapped with %w, with the Result so far.
//
// So an already-cancelled ctx returns at once, with no tokens and
// FinishCancelled, without calling next.
func Generate(ctx context.Context, next NextToken, cfg Config) (Result, error) {
	return Result{}, nil
}
