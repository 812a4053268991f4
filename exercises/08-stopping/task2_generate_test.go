package stopping

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// endID is the scripted models' end-of-text token.
const endID = 0

func isEnd(id int) bool { return id == endID }

// script is a model that plays a fixed list of pieces: the i-th call
// returns token id i+1 with pieces[i], except that a piece "<end>" is the
// end-of-text token endID. When the list runs out it returns an error, and
// a few calls later its budget stops a loop that does not stop (even one
// that ignores the error). It records how it was called.
type script struct {
	pieces []string
	calls  int
	budget *check.Budget
	// onCall, if set, runs at the start of call number n (1-based).
	onCall func(n int)
	// wrongIDs notes a call that was not given the ids generated so far.
	wrongIDs string
	ids      []int
}

var errScriptDone = errors.New("the scripted model has no more tokens")

// modelHint says when Generate stops calling the model, for a budget's
// message.
const modelHint = "Generate calls the model once per token: does your loop stop at the end token, a stop string, the rule, MaxNewTokens, a done context and an error from the model?"

// bound gives s a budget for one call of Generate, doing (as the failure
// messages write it), and returns s.
func (s *script) bound(t *testing.T, doing string) *script {
	s.budget = check.NewBudget(t, "the model").For(doing, len(s.pieces)+10, modelHint)
	return s
}

// modelBudget returns a budget of max calls of a test's own model
// function, for the call of Generate doing.
func modelBudget(t *testing.T, doing string, max int) *check.Budget {
	return check.NewBudget(t, "the model").For(doing, max, modelHint)
}

func (s *script) next(ctx context.Context, generated []int) (int, string, error) {
	s.budget.Spend()
	s.calls++
	if s.onCall != nil {
		s.onCall(s.calls)
	}
	if !slices.Equal(generated, s.ids) && s.wrongIDs == "" {
		s.wrongIDs = fmt.Sprintf("call %d of the model was given the generated ids %s; want %s", s.calls, check.Vec(generated), check.Vec(s.ids))
	}
	if s.calls > len(s.pieces) {
		return 0, "", errScriptDone
	}
	id, piece := s.calls, s.pieces[s.calls-1]
	if piece == "<end>" {
		id, piece = endID, ""
	}
	s.ids = append(s.ids, id)
	return id, piece, nil
}

// want is what a scripted generation must return.
type want struct {
	text   string
	n      int // number of generated ids
	finish FinishReason
	stop   string
}

// runScript runs Generate over a script and compares the result with w.
func runScript(t *testing.T, ctx context.Context, s *script, cfg Config, w want) Result {
	t.Helper()
	desc := fmt.Sprintf("Generate over pieces %q with %s", s.pieces, describe(cfg))
	s.bound(t, desc)
	res, err := Generate(ctx, s.next, cfg)
	if err != nil {
		t.Errorf("%s: error %v; want none", desc, err)
		return res
	}
	if s.wrongIDs != "" {
		t.Errorf("%s: %s", desc, s.wrongIDs)
	}
	if res.Text != w.text || len(res.IDs) != w.n || res.Finish != w.finish || res.StopSequence != w.stop {
		t.Errorf("%s: Text %q, %d ids, Finish %q, StopSequence %q; want Text %q, %d ids, Finish %q, StopSequence %q",
			desc, res.Text, len(res.IDs), res.Finish, res.StopSequence, w.text, w.n, w.finish, w.stop)
	} else if !slices.Equal(res.IDs, s.ids[:w.n]) {
		t.Errorf("%s: IDs %s; want %s", desc, check.Vec(res.IDs), check.Vec(s.ids[:w.n]))
	}
	return res
}

// describe prints the settings of a Config.
func describe(cfg Config) string {
	var parts []string
	if cfg.MaxNewTokens != 0 {
		parts = append(parts, fmt.Sprintf("MaxNewTokens %d", cfg.MaxNewTokens))
	}
	if cfg.IsEnd != nil {
		parts = append(parts, "IsEnd")
	}
	if cfg.Stop != nil {
		parts = append(parts, fmt.Sprintf("Stop %q", cfg.Stop))
	}
	if cfg.IncludeStop {
		parts = append(parts, "IncludeStop")
	}
	if cfg.StopWhen != nil {
		parts = append(parts, "StopWhen")
	}
	if len(parts) == 0 {
		return "an empty Config"
	}
	return strings.Join(parts, ", ")
}

// TestTask2_EndAndLength: the end-of-text token ends the text (its piece is
// not shown; its id is kept), and MaxNewTokens caps the number of tokens.
//
//grade:task 2 points 1
func TestTask2_EndAndLength(t *testing.T) {
	defer check.Recover(t)
	bg := context.Background()
	pieces := []string{"Hello", ",", " world", "<end>", "!"}
	runScript(t, bg, &script{pieces: pieces}, Config{IsEnd: isEnd}, want{"Hello, world", 4, FinishEOS, ""})
	runScript(t, bg, &script{pieces: pieces}, Config{IsEnd: isEnd, MaxNewTokens: 10}, want{"Hello, world", 4, FinishEOS, ""})
	runScript(t, bg, &script{pieces: pieces}, Config{IsEnd: isEnd, MaxNewTokens: 2}, want{"Hello,", 2, FinishLength, ""})
	runScript(t, bg, &script{pieces: pieces}, Config{MaxNewTokens: 1}, want{"Hello", 1, FinishLength, ""})
}

// TestTask2_StopAndRule: a stop string across tokens ends the text with
// FinishStop (and IncludeStop keeps it); the caller's rule ends it with
// FinishPredicate, and sees the raw text, held-back part included.
//
//grade:task 2 points 1
func TestTask2_StopAndRule(t *testing.T) {
	defer check.Recover(t)
	bg := context.Background()
	pieces := []string{"}", "\n", "\n", "func", "<end>"}
	runScript(t, bg, &script{pieces: pieces}, Config{IsEnd: isEnd, Stop: []string{"\n\n"}}, want{"}", 3, FinishStop, "\n\n"})
	runScript(t, bg, &script{pieces: pieces}, Config{IsEnd: isEnd, Stop: []string{"\n\n"}, IncludeStop: true}, want{"}\n\n", 3, FinishStop, "\n\n"})
	runScript(t, bg, &script{pieces: []string{"a", "User", ":", "b"}}, Config{Stop: []string{"\n\n", "User:"}, MaxNewTokens: 9}, want{"a", 3, FinishStop, "User:"})

	closes := func(text string) bool { return strings.Contains(text, "}") }
	runScript(t, bg, &script{pieces: []string{"{", "x", "}", "\n", "<end>"}}, Config{IsEnd: isEnd, StopWhen: closes}, want{"{x}", 3, FinishPredicate, ""})
	// The rule sees "aUs" although "Us" is still held back (it could become
	// "User:"); at the end the held text is flushed into Text.
	var seen []string
	rule := func(text string) bool { seen = append(seen, text); return strings.HasSuffix(text, "Us") }
	runScript(t, bg, &script{pieces: []string{"a", "Us", "e", "<end>"}}, Config{IsEnd: isEnd, Stop: []string{"User:"}, StopWhen: rule}, want{"aUs", 2, FinishPredicate, ""})
	if !slices.Equal(seen, []string{"a", "aUs"}) {
		t.Errorf("StopWhen was called with %q; want [\"a\" \"aUs\"]: once per token, with every piece so far joined", seen)
	}
}

// TestTask2_Precedence: when several conditions fire on the same token, the
// first in the documented order wins: end of text, stop string, rule,
// length; the context is checked only before asking for another token.
//
//grade:task 2 points 2
func TestTask2_Precedence(t *testing.T) {
	defer check.Recover(t)
	bg := context.Background()
	always := func(string) bool { return true }
	// End of text and length on the same token: eos.
	runScript(t, bg, &script{pieces: []string{"a", "b", "<end>"}}, Config{IsEnd: isEnd, MaxNewTokens: 3}, want{"ab", 3, FinishEOS, ""})
	// Stop string and length: stop.
	runScript(t, bg, &script{pieces: []string{"x", "\n\n"}}, Config{Stop: []string{"\n\n"}, MaxNewTokens: 2}, want{"x", 2, FinishStop, "\n\n"})
	// Stop string and rule: stop.
	runScript(t, bg, &script{pieces: []string{"x\n\n"}}, Config{Stop: []string{"\n\n"}, StopWhen: always}, want{"x", 1, FinishStop, "\n\n"})
	// Rule and length: predicate.
	runScript(t, bg, &script{pieces: []string{"x", "y"}}, Config{MaxNewTokens: 2, StopWhen: func(s string) bool { return len(s) == 2 }}, want{"xy", 2, FinishPredicate, ""})
	// End of text and a rule that would fire on the second token: eos.
	asked := 0
	secondTime := func(string) bool { asked++; return asked >= 2 }
	runScript(t, bg, &script{pieces: []string{"x", "<end>"}}, Config{IsEnd: isEnd, StopWhen: secondTime}, want{"x", 2, FinishEOS, ""})

	// The context is cancelled while the model computes the end token:
	// the token still ends the text (eos), since the clock is read only
	// before the next call.
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	s := &script{pieces: []string{"a", "<end>", "b"}, onCall: func(n int) {
		if n == 2 {
			cancel()
		}
	}}
	runScript(t, ctx, s, Config{IsEnd: isEnd}, want{"a", 2, FinishEOS, ""})
	// Likewise for the length limit.
	ctx2, cancel2 := context.WithCancel(bg)
	defer cancel2()
	s = &script{pieces: []string{"a", "b", "c"}, onCall: func(n int) {
		if n == 2 {
			cancel2()
		}
	}}
	runScript(t, ctx2, s, Config{MaxNewTokens: 2}, want{"ab", 2, FinishLength, ""})
}

// TestTask2_Cancelled: a context cancelled before the start returns at once
// without calling the model; one cancelled during the generation ends it
// before the next call, with the text so far (held-back text flushed); a
// model that gives up with ctx.Err() is a cancellation, not an error.
//
//grade:task 2 points 1
func TestTask2_Cancelled(t *testing.T) {
	defer check.Recover(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &script{pieces: []string{"a", "b"}}
	runScript(t, ctx, s, Config{MaxNewTokens: 2}, want{"", 0, FinishCancelled, ""})
	if s.calls != 0 {
		t.Errorf("with a context cancelled beforehand, Generate called the model %d times; want 0", s.calls)
	}

	// The reader goes away during the third token: three tokens, and the
	// "E" held back as a possible start of "END" is flushed.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	s = &script{pieces: []string{"one", " two", " thrE", " four", "<end>"}, onCall: func(n int) {
		if n == 3 {
			cancel()
		}
	}}
	runScript(t, ctx, s, Config{IsEnd: isEnd, Stop: []string{"END"}}, want{"one two thrE", 3, FinishCancelled, ""})
	if s.calls != 3 {
		t.Errorf("cancelled during call 3, Generate called the model %d times; want 3 (check ctx before every call)", s.calls)
	}

	// A model that notices the cancellation itself.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	calls, budget := 0, modelBudget(t, "Generate over a model returning ctx.Err() after cancelling at call 2", 10)
	giveUp := func(ctx context.Context, _ []int) (int, string, error) {
		budget.Spend()
		calls++
		if calls == 2 {
			cancel()
			return 0, "", ctx.Err()
		}
		if calls > 5 {
			return 0, "", errScriptDone
		}
		return 7, "x", nil
	}
	res, err := Generate(ctx, giveUp, Config{MaxNewTokens: 5})
	if err != nil || res.Finish != FinishCancelled || res.Text != "x" || len(res.IDs) != 1 {
		t.Errorf("model returning ctx.Err() after cancelling at call 2: Generate returned Text %q, %d ids, Finish %q, error %v; want Text \"x\", 1 id, Finish %q, no error",
			res.Text, len(res.IDs), res.Finish, err, FinishCancelled)
	}
}

// TestTask2_Deadline: a deadline ends the generation promptly with
// FinishDeadline, whether the model blocks until the context is done or
// takes small steps that ignore it; a deadline already past returns at once.
//
//grade:task 2 points 2
func TestTask2_Deadline(t *testing.T) {
	defer check.Recover(t)
	const bound = 2 * time.Second

	// A model that blocks until its context is done.
	budget := modelBudget(t, "Generate over a model blocking until a 50 ms deadline", 10)
	blocking := func(ctx context.Context, _ []int) (int, string, error) {
		budget.Spend()
		select {
		case <-ctx.Done():
			return 0, "", ctx.Err()
		case <-time.After(10 * time.Second):
			return 1, "late", nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	start := time.Now()
	res, err := Generate(ctx, blocking, Config{MaxNewTokens: 3})
	took := time.Since(start)
	cancel()
	if err != nil || res.Finish != FinishDeadline || len(res.IDs) != 0 || took > bound {
		t.Errorf("a model blocking until a 50 ms deadline: Generate returned after %v with %d ids, Finish %q, error %v; want within %v, 0 ids, Finish %q, no error",
			took.Round(time.Millisecond), len(res.IDs), res.Finish, err, bound, FinishDeadline)
	}

	// A slow model that ignores its context: 5 ms a token, the end token
	// after 400 tokens (at least 2 s).
	budget = modelBudget(t, "Generate over a slow model (5 ms a token, the end token after 400) with a 200 ms deadline", 420)
	slow := func(_ context.Context, generated []int) (int, string, error) {
		budget.Spend()
		time.Sleep(5 * time.Millisecond)
		if len(generated) >= 400 {
			return endID, "", nil
		}
		return 1, "ab", nil
	}
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	start = time.Now()
	res, err = Generate(ctx, slow, Config{IsEnd: isEnd})
	took = time.Since(start)
	cancel()
	if err != nil || res.Finish != FinishDeadline || len(res.IDs) == 0 || took > bound || res.Text != strings.Repeat("ab", len(res.IDs)) {
		t.Errorf("a slow model (5 ms a token, ignoring ctx) with a 200 ms deadline: Generate returned after %v with %d ids, Text of %d bytes, Finish %q, error %v; want within %v, at least 1 id and 2 bytes per id, Finish %q, no error",
			took.Round(time.Millisecond), len(res.IDs), len(res.Text), res.Finish, err, bound, FinishDeadline)
	}

	// A deadline already past.
	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	s := &script{pieces: []string{"a"}}
	runScript(t, ctx, s, Config{MaxNewTokens: 1}, want{"", 0, FinishDeadline, ""})
}

// TestTask2_ModelError: an error from the model, the context being fine, is
// returned (wrapped so errors.Is finds it), with the tokens made before it.
//
//grade:task 2 points 1
func TestTask2_ModelError(t *testing.T) {
	defer check.Recover(t)
	s := (&script{pieces: []string{"a", "b"}}).bound(t, `Generate over pieces ["a" "b"] with Stop ["zz"]`)
	res, err := Generate(context.Background(), s.next, Config{Stop: []string{"zz"}})
	if !errors.Is(err, errScriptDone) {
		t.Fatalf("a model failing at its third call: Generate returned error %v; want one that wraps %q (errors.Is)", err, errScriptDone)
	}
	if len(res.IDs) != 2 {
		t.Errorf("a model failing at its third call: Generate returned %d ids with the error; want the 2 generated before it", len(res.IDs))
	}
}
