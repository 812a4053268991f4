package structured

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
)

var negInf = float32(math.Inf(-1))

// pickHint says how often Sample calls the pick function, for a budget's
// message.
const pickHint = "Sample calls the pick function once per call: when its choice is not allowed, Sample returns NoToken and sets Err, rather than asking again"

// newSamplerHint is a budget's message for NewSampler, which has no need
// of the pick function: Sample is what calls it.
const newSamplerHint = "NewSampler only makes the Sampler: the pick function is for Sample, once per call"

// picks returns a budget for the calls of a test's pick function.
func picks(t *testing.T) *check.Budget { return check.NewBudget(t, "the pick function") }

// samplerString writes what NewSampler returned for a failure message: nil,
// or the Sampler's exported fields (its own fields hold pointers, which
// say nothing to a reader).
func samplerString(s *Sampler) string {
	if s == nil {
		return "nil"
	}
	return fmt.Sprintf("a Sampler in state %d (Ended %v, Err %v)", s.State, s.Ended, s.Err)
}

// TestTask4_Constrain: disallowed tokens get exactly -Inf, allowed ones
// keep their logits, the input is left alone, and softmax over the result
// is the model's distribution restricted to the allowed tokens and
// renormalised.
//
//grade:task 4 points 1
func TestTask4_Constrain(t *testing.T) {
	defer check.Recover(t)
	z := []float32{1.5, -2, 0.25, 3, 40, -7.5}
	allowed := []bool{true, false, true, false, true} // token 5 is past the end: not allowed
	in := slices.Clone(z)
	got := Constrain(in, allowed)
	want := []float32{1.5, negInf, 0.25, negInf, 40, negInf}
	if !slices.Equal(in, z) {
		t.Errorf("Constrain changed its logits to %s; it must return a copy and leave them alone", check.Vec(in))
	}
	if msg := check.Mismatch(fmt.Sprintf("Constrain(%s, %v)", check.Vec(z), allowed), got, want, 0); msg != "" {
		t.Errorf("%s\n(a token that is not allowed gets exactly -Inf, math.Inf(-1); an allowed one keeps its logit)", msg)
	}
	// softmax(Constrain(z)) = softmax(z) restricted to the allowed tokens,
	// renormalised, on random logits and masks.
	r := rand.New(rand.NewPCG(14, 4))
	fails := check.NewLimit(t, 2)
	defer fails.Close()
	for range 50 {
		n := 2 + r.IntN(30)
		z, mask := make([]float32, n), make([]bool, n)
		for i := range z {
			z[i] = float32(r.NormFloat64() * 3)
			mask[i] = r.IntN(3) > 0
		}
		mask[r.IntN(n)] = true
		p := decoding.Softmax(z)
		var kept float64
		for i, ok := range mask {
			if ok {
				kept += p[i]
			}
		}
		want := make([]float64, n)
		for i, ok := range mask {
			if ok {
				want[i] = p[i] / kept
			}
		}
		c := Constrain(z, mask)
		if len(c) != n {
			fails.Errorf("Constrain(%s, %s) returned %d logits; want %d", check.Vec(z), bools(mask), len(c), n)
			continue
		}
		if msg := check.Mismatch(fmt.Sprintf("softmax(Constrain(%s, %s))", check.Vec(z), bools(mask)), decoding.Softmax(c), want, 1e-9); msg != "" {
			fails.Errorf("%s\n(want softmax(z) restricted to the allowed tokens and renormalised)", msg)
		}
	}
}

// greedyPick is a pick function that takes the largest logit (the first on
// ties; -Inf is never larger than a number) and remembers what it was
// given; its budget stops a Sample that keeps asking it.
type greedyPick struct {
	seen   [][]float32
	budget *check.Budget
}

func (g *greedyPick) pick(z []float32) int {
	g.budget.Spend()
	g.seen = append(g.seen, slices.Clone(z))
	best := NoToken
	for i, v := range z {
		if v > negInf && (best == NoToken || v > z[best]) {
			best = i
		}
	}
	return best
}

// TestTask4_Sampler: a greedy generation of {"n":[0-9]+} in which the
// model's favourite is not allowed at almost every step. Each step is
// worked out by hand: the token, the state after it, the logits the pick
// function is given.
//
//grade:task 4 points 2
func TestTask4_Sampler(t *testing.T) {
	defer check.Recover(t)
	a, v := jsonN(t), jsonVocab()
	g := &greedyPick{budget: picks(t).For("NewSampler(jsonN, v, pick)", 10, newSamplerHint)}
	s, err := NewSampler(a, v, g.pick)
	if err != nil {
		t.Fatalf("NewSampler(jsonN, v, pick) returned the error %q; want a Sampler\n  v: %s", err, describeVocab(v))
	}
	if s == nil {
		t.Fatal("NewSampler(jsonN, v, pick) returned nil and no error")
	}
	if s.State != a.Start() || s.Ended {
		t.Fatalf("a new Sampler has State %d and Ended %v; want the start state %d and false", s.State, s.Ended, a.Start())
	}
	// ids: 0 `{"`  1 `n`  2 `":`  3 `12`  4 `3}`  5 `}`  6 `{"n":1`  7 `a`  8 ``  9 `"`  10 end  11 `1a`  12 `{`
	steps := []struct {
		fav, next int // the model's favourite (logit 5) and runner-up (logit 3)
		state     int // the state after next
		why       string
	}{
		{7, 12, 1, `"a" is not allowed at the start; "{" is`},
		{2, 9, 2, `after "{", "\":" would skip the key`},
		{9, 1, 3, `the key`},
		{9, 2, 5, `the quote alone would lead to state 4, which no token can leave`},
		{10, 3, 6, `the end token must wait for a complete value`},
		{11, 3, 6, `"1a" leaves the language after its first byte`},
		{10, 4, 7, `the object is still open: "3}" closes it`},
		{0, 10, 7, `complete: only the end token`},
	}
	var text []byte
	for i, st := range steps {
		z := make([]float32, len(v.Texts))
		for id := range z {
			z[id] = float32(id%3) * 0.25
		}
		z[st.fav], z[st.next] = 5, 3
		caller := slices.Clone(z)
		before := s.State
		allowed := maskRef(a, v, before)
		g.seen = nil
		g.budget.For(fmt.Sprintf("step %d: Sample in state %d", i+1, before), 10, pickHint)
		got := s.Sample(caller)
		if !slices.Equal(caller, z) {
			t.Fatalf("step %d: Sample changed the caller's logits to %s; it must not modify them", i+1, check.Vec(caller))
		}
		if len(g.seen) != 1 {
			t.Fatalf("step %d: Sample called the pick function %d times; want once per call", i+1, len(g.seen))
		}
		want := Constrain(z, allowed)
		if msg := check.Mismatch("the logits given to the pick function", g.seen[0], want, 0); msg != "" {
			t.Fatalf("step %d, in state %d (allowed %s):\n%s", i+1, before, ids(allowed, v), msg)
		}
		if got != st.next {
			t.Fatalf("step %d, in state %d: Sample = %d (Err %v); want %s (%s)", i+1, before, got, s.Err, token(st.next, v), st.why)
		}
		if s.Err != nil {
			t.Errorf("step %d: Sample returned a token, and left Err = %q; want nil", i+1, s.Err)
		}
		if s.State != st.state {
			t.Fatalf("step %d: after token %d in state %d, State = %d; want %d", i+1, got, before, s.State, st.state)
		}
		if ended := v.IsEnd(got); s.Ended != ended {
			t.Fatalf("step %d: after token %d, Ended = %v; want %v", i+1, got, s.Ended, ended)
		} else if !ended {
			text = append(text, v.Texts[got]...)
		}
	}
	if string(text) != `{"n":12123}` {
		t.Errorf("the tokens wrote %q; want %q", text, `{"n":12123}`)
	}
	z := make([]float32, len(v.Texts))
	g.budget.For("Sample after the end token", 10, "the output has ended: Sample returns NoToken without asking the pick function")
	if got := s.Sample(z); got != NoToken || s.Err == nil {
		t.Errorf("after the end token, Sample = %d and Err = %v; want NoToken (%d) and an error: the output has ended", got, s.Err, NoToken)
	}
}

// TestTask4_Refuses: NewSampler refuses what cannot work, and Sample
// returns NoToken with an error, leaving State alone, when it cannot give
// an allowed token; the next good call clears Err.
//
//grade:task 4 points 1
func TestTask4_Refuses(t *testing.T) {
	defer check.Recover(t)
	a, v := jsonN(t), jsonVocab()
	budget := picks(t)
	pick := func([]float32) int { budget.Spend(); return 0 }
	ab := build(t, 0, []int{2}, Edge{0, "a", 1}, Edge{1, "b", 2})
	for _, c := range []struct {
		call string
		a    *Automaton
		v    Vocab
		pick func([]float32) int
		why  string
	}{
		{"NewSampler(nil, v, pick)", nil, v, pick, "no automaton"},
		{"NewSampler(jsonN, v, nil)", a, v, nil, "no pick function"},
		{"NewSampler(jsonN, v, pick)", a, Vocab{Texts: v.Texts}, pick, "v has no end token: the output could never end"},
		{"NewSampler(jsonN, v, pick)", a, Vocab{Texts: v.Texts, End: []int{13}}, pick, "v's end token 13 is not one of its 13 tokens"},
		{"NewSampler(jsonN, v, pick)", a, Vocab{Texts: v.Texts, End: []int{10, -1}}, pick, "v's end token -1 is not a token"},
		{"NewSampler(ab, v, pick)", ab, vocab([]int{1}, "a", "<end>"), pick, `v has "a" and the end token: no token sequence writes "ab"`},
	} {
		budget.For(c.call, 10, newSamplerHint)
		if s, err := NewSampler(c.a, c.v, c.pick); err == nil {
			t.Errorf("%s = %s, no error; want an error: %s", c.call, samplerString(s), c.why)
		}
	}

	choice := 0
	budget.For("NewSampler(jsonN, v, pick)", 10, newSamplerHint)
	s, err := NewSampler(a, v, func([]float32) int { budget.Spend(); return choice })
	if err != nil || s == nil {
		t.Fatalf("NewSampler(jsonN, v, pick) = %s, %v; want a Sampler", samplerString(s), err)
	}
	z := make([]float32, len(v.Texts))
	for _, c := range []struct {
		what   string
		logits []float32
		choice int
	}{
		{"12 logits for 13 tokens", z[:12], 0},
		{"the pick function chooses token 7, \"a\", not allowed at the start", z, 7},
		{"the pick function chooses the end token before the value is complete", z, 10},
		{"the pick function chooses -1", z, -1},
		{"the pick function chooses 13, not a token", z, 13},
	} {
		choice = c.choice
		budget.For(c.what+": Sample", 10, pickHint)
		got := s.Sample(c.logits)
		if got != NoToken || s.Err == nil || s.State != a.Start() || s.Ended {
			t.Errorf("%s: Sample = %d, Err %v, State %d, Ended %v; want NoToken (%d), an error, State %d and Ended false",
				c.what, got, s.Err, s.State, s.Ended, NoToken, a.Start())
		}
	}
	choice = 12
	budget.For("then Sample with a pick function choosing 12", 10, pickHint)
	if got := s.Sample(z); got != 12 || s.Err != nil || s.State != 1 {
		t.Errorf(`then the pick function chooses 12, "{": Sample = %d, Err %v, State %d; want 12, nil and 1`, got, s.Err, s.State)
	}
	var zero Sampler
	budget.For("Sample on a zero Sampler", 10, "a zero Sampler has no pick function to call")
	if got := zero.Sample(z); got != NoToken {
		t.Errorf("Sample on a zero Sampler (not made by NewSampler) = %d; want NoToken (%d)", got, NoToken)
	}
}

// TestTask4_ComposesWithSampling: with the engine's sampler as the pick
// function (temperature 0.8, top-k 2), the mask comes first: top-k keeps
// the two best allowed tokens, and over 20,000 draws each comes up as
// often as its renormalised probability says. Greedy picks the best
// allowed token, never the favourite.
//
//grade:task 4 points 1
func TestTask4_ComposesWithSampling(t *testing.T) {
	defer check.Recover(t)
	a, v := jsonN(t), jsonVocab()
	// At the start only 0 `{"`, 6 `{"n":1` and 12 `{` are allowed.
	z := []float32{1.2, 2, 3, 0, 0, 0, 0.7, 4, 0, 0, 2.5, 0, 0.2}
	es, err := decoding.Options{Temperature: 0.8, TopK: 2, Seed: 14}.NewSampler(len(z))
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	budget := picks(t).For(fmt.Sprintf("NewSampler then Sample, %s times with the engine's sampler as the pick function,", check.Count(n)), 10*n, pickHint)
	pick := func(z []float32) int {
		budget.Spend()
		id, err := es.Sample(z)
		if err != nil {
			return NoToken
		}
		return id
	}
	// Top-2 of the allowed tokens: 0 and 6, at temperature 0.8.
	e0, e6 := math.Exp(1.2/0.8), math.Exp(0.7/0.8)
	want := make([]float64, len(z))
	want[0], want[6] = e0/(e0+e6), e6/(e0+e6)
	counts := make([]int, len(z))
	for i := range n {
		s, err := NewSampler(a, v, pick)
		if err != nil || s == nil {
			t.Fatalf("NewSampler(jsonN, v, engine sampler) = %s, %v; want a Sampler", samplerString(s), err)
		}
		id := s.Sample(z)
		if id < 0 || id >= len(z) {
			t.Fatalf("draw %d: Sample(%s) = %d (Err %v); want a token id", i, check.Vec(z), id, s.Err)
		}
		counts[id]++
	}
	if msg := binomialCheck(counts, want, n); msg != "" {
		t.Errorf("at the start of {\"n\":[0-9]+}, with the engine's sampler (temperature 0.8, top-k 2) as the pick function, %d draws: %s\nwant shares %s: the mask first, then top-k among the allowed tokens\n(a correct implementation fails this check less than once in 10⁶ runs)",
			n, msg, check.Vec(want))
	}
	greedy, err := decoding.Options{}.NewSampler(len(z))
	if err != nil {
		t.Fatal(err)
	}
	budget.For("Sample with the engine's greedy sampler as the pick function", 10, pickHint)
	s, err := NewSampler(a, v, func(z []float32) int { budget.Spend(); id, _ := greedy.Sample(z); return id })
	if err != nil || s == nil {
		t.Fatalf("NewSampler(jsonN, v, greedy) = %s, %v; want a Sampler", samplerString(s), err)
	}
	if id := s.Sample(z); id != 0 {
		t.Errorf("greedy at the start of {\"n\":[0-9]+}: Sample(%s) = %d; want 0, the best allowed token (7 is the favourite, and not allowed)", check.Vec(z), id)
	}
}

// binomialCheck compares draw counts with the probabilities they should
// follow: every count within 5.5 standard deviations of n·p, and a token of
// probability 0 never drawn. It returns "" or what is wrong.
func binomialCheck(counts []int, want []float64, n int) string {
	for i, p := range want {
		got := counts[i]
		if p == 0 {
			if got != 0 {
				return fmt.Sprintf("token %d has probability 0 but was drawn %d times", i, got)
			}
			continue
		}
		mean, sd := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
		if math.Abs(float64(got)-mean) > 5.5*sd {
			return fmt.Sprintf("token %d was drawn %d times (share %.4f); want about %.0f (probability %.4f, allowed ±%.0f)",
				i, got, float64(got)/float64(n), mean, p, 5.5*sd)
		}
	}
	return ""
}

// TestTask4_NeverStuck: on random automata and vocabularies, NewSampler
// refuses exactly the languages the vocabulary cannot write; otherwise
// every token Sample gives is allowed (by brute force), State follows the
// text, no step is a dead end, and an output that ends is in the language.
//
//grade:task 4 points 1
func TestTask4_NeverStuck(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(14, 5))
	es, err := decoding.Options{Temperature: 1, Seed: 5}.NewSampler(0)
	if err != nil {
		t.Fatal(err)
	}
	budget := picks(t)
	pick := func(z []float32) int {
		budget.Spend()
		id, err := es.Sample(z)
		if err != nil {
			return NoToken
		}
		return id
	}
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	ended := 0
	for range 300 {
		a, v := randomAutomaton(t, r), randomVocab(r)
		possible := liveRef(a, v)[a.Start()]
		budget.For("NewSampler then 25 calls of Sample on a random automaton and vocabulary", 250, pickHint)
		s, err := NewSampler(a, v, pick)
		if !possible {
			if err == nil {
				fails.Errorf("NewSampler(a, %s) gave no error; want one: no token sequence writes a text of the language\n  a: %s", describeVocab(v), describe(a))
			}
			continue
		}
		if err != nil || s == nil {
			fails.Errorf("NewSampler(a, %s) = %s, %v; want a Sampler\n  a: %s", describeVocab(v), samplerString(s), err, describe(a))
			continue
		}
		state, text := a.Start(), []byte{}
		for step := range 25 {
			z := make([]float32, len(v.Texts))
			for i := range z {
				z[i] = float32(r.NormFloat64())
			}
			allowed := maskRef(a, v, state)
			id := s.Sample(z)
			if id == NoToken || id < 0 || id >= len(z) || !allowed[id] {
				fails.Errorf("step %d, after %q: Sample = %d (Err %v); want one of the allowed tokens %s\n  v: %s\n  a: %s",
					step+1, text, id, s.Err, ids(allowed, v), describeVocab(v), describe(a))
				break
			}
			if v.IsEnd(id) {
				ended++
				if !a.Accepting(walkRef(a, a.Start(), text)) {
					fails.Errorf("the output %q ended, but it is not in the language\n  v: %s\n  a: %s", text, describeVocab(v), describe(a))
				}
				break
			}
			text = append(text, v.Texts[id]...)
			state = walkRef(a, state, v.Texts[id])
			if s.State != state {
				fails.Errorf("after %q, State = %d; want %d\n  a: %s", text, s.State, state, describe(a))
				break
			}
		}
	}
	if ended < 20 {
		t.Errorf("only %d of the random generations ended; the test expects more (is the end token ever allowed?)", ended)
	}
}

// recordingLM is the course's model, remembering the logits of every
// answer, in order: the loop asks for the logits of step i+1 before it
// yields step i.
type recordingLM struct {
	*engine.ModelLM
	answers [][]float32
}

func (m *recordingLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	rows, err := m.ModelLM.NextLogits(prefix, n)
	if err == nil {
		m.answers = append(m.answers, slices.Clone(rows[len(rows)-1]))
	}
	return rows, err
}

// TestTask4_OnTheModel: the course's model, asked to go on after
// "func answer() int {\n\treturn ", constrained to a number and the end of
// the function, [0-9]+\n}\n, with Sample as decoding.Decode's Pick and
// greedy as the rest of the chain. Every token must be the model's best
// allowed token, found by trying every one of its 2,048 tokens, and the
// output must be complete.
//
//grade:task 4 points 1
func TestTask4_OnTheModel(t *testing.T) {
	defer check.Recover(t)
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	// The vocabulary as the constraint sees it: each token's bytes (none
	// for <unk>, BOS and the end tokens), and the end tokens.
	v := Vocab{Texts: make([][]byte, tok.VocabSize())}
	for id := range v.Texts {
		v.Texts[id] = tok.TokenBytes(id)
		if tok.IsEnd(id) {
			v.End = append(v.End, id)
		}
	}
	a := build(t, 0, []int{4}, Edge{0, digits, 1}, Edge{1, digits, 1}, Edge{1, "\n", 2}, Edge{2, "}", 3}, Edge{3, "\n", 4})
	prompt, err := tok.Encode("func answer() int {\n\treturn ", true, false)
	if err != nil {
		t.Fatal(err)
	}
	budget := picks(t).For("decoding.Decode with Sample as its Pick, for 24 tokens at most,", 240, pickHint)
	s, err := NewSampler(a, v, func(z []float32) int { budget.Spend(); return decoding.Argmax(z) })
	if err != nil || s == nil {
		t.Fatalf("NewSampler([0-9]+\\n}\\n, the course's vocabulary, decoding.Argmax) = %s, %v; want a Sampler", samplerString(s), err)
	}
	lm := &recordingLM{ModelLM: engine.NewModelLM(m, 1)}
	state, text := a.Start(), []byte{}
	done, n := false, 0
	opts := decoding.Options{MaxNewTokens: 24, Decoder: decoding.Pick(s.Sample), IsEnd: tok.IsEnd}
	for step, err := range decoding.Decode(context.Background(), lm, prompt, opts) {
		if err != nil {
			t.Fatalf("after %q: decoding.Decode: %v (Sample's Err: %v)", text, err, s.Err)
		}
		if step.ID == decoding.NoToken {
			break // the final step of a generation cut by its length limit
		}
		logits := lm.answers[n]
		n++
		allowed := maskRef(a, v, state)
		best := NoToken
		for i, ok := range allowed {
			if ok && (best == NoToken || logits[i] > logits[best]) {
				best = i
			}
		}
		if step.ID != best {
			t.Fatalf("after %q: Sample chose token %s; want %s, the model's best allowed token", text, token(step.ID, v), token(best, v))
		}
		if v.IsEnd(step.ID) {
			done = true
			break
		}
		text = append(text, v.Texts[step.ID]...)
		state = walkRef(a, state, v.Texts[step.ID])
	}
	if !done || !a.Accepting(state) {
		t.Errorf("the constrained output %q did not end with a complete value in 24 tokens", text)
	}
}
