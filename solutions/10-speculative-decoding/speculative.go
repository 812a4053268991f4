// Package speculative is exercise 10 of the Token by Token track:
// speculative decoding, the draft-then-verify rule.
//
// A small draft model proposes γ tokens, one at a time; the big target
// model scores all of them in a single pass and keeps the ones it agrees
// with. For sampling, a proposal x drawn from the draft's distribution q is
// kept with probability min(1, p[x]/q[x]), where p is the target's
// distribution, and at the first rejection a replacement is drawn from the
// leftover mass normalise(max(0, p − q)). That rule makes every token
// distributed exactly as if the target had sampled it alone. For greedy
// decoding, a proposal is kept when it is the target's own top token, so
// the output is the target's greedy output, token for token.
//
// The interfaces mirror the course's engine (decoding.Speculation) without
// importing it: LM has the method set of decoding.LM and RNG that of
// *decoding.RNG, so the course's models and generator plug straight in.
package speculative

// LM is a language model seen from outside: given the tokens so far, it
// scores every possible next token. It has the method set of decoding.LM, so
// *engine.ModelLM satisfies it.
type LM interface {
	// VocabSize is the number of tokens the model scores.
	VocabSize() int
	// ContextLength is the longest prefix the model accepts.
	ContextLength() int
	// NextLogits returns n rows of logits, 1 ≤ n ≤ len(prefix): row i
	// scores the token that follows prefix[:len(prefix)-n+1+i]. With n > 1
	// it checks several proposed tokens in one pass.
	NextLogits(prefix []int, n int) ([][]float32, error)
}

// RNG is a source of uniform random numbers in [0, 1). *decoding.RNG
// satisfies it, and so does any scripted source a test builds.
type RNG interface {
	Float32() float32
}

// Draw picks a token from the distribution p with exactly one number from
// rng (Task 1).
//
// It calls rng.Float32() once for u in [0, 1) and returns the first token i
// whose running sum p[0] + … + p[i] is strictly greater than u, so a token
// of probability 0 is never drawn. When rounding leaves the total at or
// below u, it returns the last token of positive probability (0 if there
// is none).
func Draw(p []float64, rng RNG) int {
	u := float64(rng.Float32())
	var sum float64
	for i, v := range p {
		sum += v
		if u < sum {
			return i
		}
	}
	for i := len(p) - 1; i > 0; i-- {
		if p[i] > 0 {
			return i
		}
	}
	return 0
}

// Residual is the distribution a rejected proposal is replaced from:
// normalise(max(0, p − q)), the probability mass the target wants and the
// draft under-proposes (Task 1). It returns a new slice and leaves p and q
// unchanged; nil if their lengths differ.
//
// When max(0, p − q) is zero everywhere it cannot be normalised. For two
// distributions that each sum to 1 this happens only when p == q, and then
// a rejection is impossible in exact arithmetic (u·q[x] < p[x] holds for
// every u < 1); rounding can still cause one, and the right replacement is
// then a draw from p itself. So in that case Residual returns a copy of p.
func Residual(p, q []float64) []float64 {
	if len(p) != len(q) {
		return nil
	}
	r := make([]float64, len(p))
	var sum float64
	for i := range p {
		r[i] = max(0, p[i]-q[i])
		sum += r[i]
	}
	if sum <= 0 {
		copy(r, p)
		return r
	}
	for i := range r {
		r[i] /= sum
	}
	return r
}

// Accept is the rule for one proposed token x, drawn by the draft from q,
// when the target's distribution is p (Task 2).
//
// It calls rng.Float32() once for u and accepts x if u·q[x] < p[x] — the
// same as u < p[x]/q[x], so x is kept with probability min(1, p[x]/q[x]),
// written without a division so that q[x] = 0 needs no special case. It
// then returns (x, true). Otherwise it draws the replacement with
// Draw(Residual(p, q), rng), a second call of rng.Float32(), and returns
// (replacement, false).
func Accept(x int, p, q []float64, rng RNG) (token int, accepted bool) {
	if u := float64(rng.Float32()); u*q[x] < p[x] {
		return x, true
	}
	return Draw(Residual(p, q), rng), false
}

// Verify is one verification round of speculative sampling (Task 3).
//
// drafts are the γ tokens the draft proposed, qs[i] the draft's
// distribution that drafts[i] was drawn from, and ps the target's γ+1
// distributions from its single pass: ps[i] for the position of drafts[i],
// ps[γ] for the position after the last proposal. Going left to right it
// calls Accept(drafts[i], ps[i], qs[i], rng); an accepted token is
// appended to tokens, and the first rejection appends the replacement and
// ends the round (the remaining proposals are discarded unchecked). If all
// γ are accepted, a bonus token Draw(ps[γ], rng) is appended. It returns
// the round's tokens (accepted + 1 of them) and the number of accepted
// proposals; nil and 0 if len(qs) ≠ γ or len(ps) ≠ γ+1.
func Verify(drafts []int, qs, ps [][]float64, rng RNG) (tokens []int, accepted int) {
	if len(qs) != len(drafts) || len(ps) != len(drafts)+1 {
		return nil, 0
	}
	for i, x := range drafts {
		token, ok := Accept(x, ps[i], qs[i], rng)
		tokens = append(tokens, token)
		if !ok {
			return tokens, accepted
		}
		accepted++
	}
	return append(tokens, Draw(ps[len(drafts)], rng)), accepted
}
