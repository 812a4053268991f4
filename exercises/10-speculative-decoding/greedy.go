package speculative

// Result describes a speculative generation. Its acceptance rate α is
// Accepted / (Accepted + Rejected): the share of the proposals the target
// checked that it kept.
type Result struct {
	Tokens   []int // the generated tokens
	Accepted int   // proposals the target agreed with
	Rejected int   // proposals the target turned down (at most one per round)
	Rounds   int   // rounds, each one pass of the target
}

// Greedy is speculative decoding at temperature 0 (Task 4): its output
// must be, token for token, the target's greedy continuation of prompt,
// made with one target pass per round instead of one per token.
//
// Let limit be maxNew, or fewer if the context would overflow: at most
// min(target.ContextLength(), draft.ContextLength()) − len(prompt). Each
// round:
//
//  1. Draft: g = min(gamma, limit − len(Tokens) − 1) proposals, each the
//     draft's argmax (lowest id on ties) after the sequence so far plus
//     the proposals before it, one draft.NextLogits(…, 1) call each; stop
//     proposing early, right after a proposal that ends the text.
//  2. Verify: one target.NextLogits(sequence + proposals, g′+1) call,
//     where g′ is the number of proposals made; row i holds the target's
//     logits where proposal i stands, row g′ those after the last one.
//  3. Left to right, proposal i is accepted if it equals argmax(row i):
//     append it. The first that differs is rejected: append argmax(row i)
//     instead and end the round.
//  4. If every proposal was accepted, append argmax(row g′): the bonus
//     token, free because the target has already scored it.
//
// Stop as soon as an appended token ends the text (isEnd; nil means no
// token does), which is then the last token, or when limit tokens are
// generated. Count Accepted, Rejected and Rounds as you go. Return an error
// if gamma < 1, maxNew < 1, the models' vocabulary sizes differ, the prompt
// is empty or leaves no room in the context, and pass on any model error.
func Greedy(target, draft LM, prompt []int, gamma, maxNew int, isEnd func(id int) bool) (Result, error) {
	return Result{}, nil
}
