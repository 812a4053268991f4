package decoding

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
)

// bigramModel builds a real Model whose next-token logits depend only on
// the current token: logits for "next after t" = table[t]. Every layer's
// weights are zero, so the residual stream stays the token's one-hot
// embedding; the final RMSNorm scales it to √dim (up to epsilon), and a
// separate classifier holding table/√dim turns it back into table[t].
func bigramModel(table [][]float32, seqLen int) *engine.Model {
	v := len(table)
	dim := 4 * ((v + 3) / 4) // ≥ v, and two heads of even size
	c := engine.Config{Dim: dim, HiddenDim: 4, NLayers: 1, NHeads: 2, NKVHeads: 2, VocabSize: v, SeqLen: seqLen}
	w := mustWeights(c)
	for t := range v {
		w.TokenEmbedding[t*dim+t] = 1
	}
	for i := range w.RMSFinal {
		w.RMSFinal[i] = 1
	}
	scale := float32(math.Sqrt(1.0/float64(dim) + rmsEps))
	for t, row := range table {
		for next, z := range row {
			w.Classifier[next*dim+t] = z * scale
		}
	}
	return mustModel(c, w, "bigram")
}

// storyPieces is the vocabulary of chainModel. Ids 7..11 are byte-fallback
// tokens for "é" (C3 A9) and "€" (E2 82 AC).
var storyPieces = []string{
	"<unk>", "<s>", "</s>", " Hello", " world", "!", "\n",
	"<0xC3>", "<0xA9>", "<0xE2>", "<0x82>", "<0xAC>",
	"Us", "er", ":", " x",
}

// storyChain is the greedy path of chainModel: each token's favourite
// successor. The text is "Hello world!\nUser: xé€", then EOS.
var storyChain = map[int]int{1: 3, 3: 4, 4: 5, 5: 6, 6: 12, 12: 13, 13: 14, 14: 15, 15: 7, 7: 8, 8: 9, 9: 10, 10: 11, 11: 2}

const storyText = "Hello world!\nUser: xé€"

// chainModel returns a bigram model and tokenizer that, greedily, write
// storyText. The favourite successor has logit 4, every other token 0.
func chainModel(t testing.TB, seqLen int) (*engine.Model, *engine.Tokenizer) {
	t.Helper()
	table := make([][]float32, len(storyPieces))
	for tok := range table {
		table[tok] = make([]float32, len(storyPieces))
		if next, ok := storyChain[tok]; ok {
			table[tok][next] = 4
		}
	}
	tok, err := engine.NewTokenizer(storyPieces, make([]float32, len(storyPieces)), 0)
	if err != nil {
		t.Fatal(err)
	}
	return bigramModel(table, seqLen), tok
}

// runGenerate runs Generate and returns every step; it fails on an error.
func runGenerate(t *testing.T, ctx context.Context, m *engine.Model, tok *engine.Tokenizer, prompt string, o Options) []Step {
	t.Helper()
	var steps []Step
	for st, err := range Generate(ctx, m, tok, prompt, o) {
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, st)
	}
	if len(steps) == 0 || steps[len(steps)-1].Finish == "" || steps[len(steps)-1].Stats == nil {
		t.Fatalf("generation did not end with a finish reason and stats: %+v", steps)
	}
	return steps
}

func streamedText(steps []Step) string {
	var sb strings.Builder
	for _, s := range steps {
		sb.WriteString(s.Text)
	}
	return sb.String()
}

func TestGenerateStreamsWholeCharacters(t *testing.T) {
	m, tok := chainModel(t, 32)
	steps := runGenerate(t, context.Background(), m, tok, "", Options{})
	if got := streamedText(steps); got != storyText {
		t.Fatalf("text %q, want %q", got, storyText)
	}
	last := steps[len(steps)-1]
	if last.Finish != FinishEOS || last.ID != tok.EOS() || last.Piece != "" {
		t.Fatalf("last step %+v, want the EOS token with finish %q", last, FinishEOS)
	}
	if last.Stats.GeneratedTokens != len(steps) || last.Stats.PromptTokens != 1 {
		t.Fatalf("stats %+v for %d steps and a BOS-only prompt", *last.Stats, len(steps))
	}
	// The byte tokens of é and € hold their text until the character is
	// complete, and every Text is valid UTF-8.
	var texts []string
	for _, s := range steps {
		if !utf8.ValidString(s.Text) {
			t.Errorf("step %d (%q) released invalid UTF-8 %q", s.Pos, s.Piece, s.Text)
		}
		if s.ID >= 7 && s.ID <= 11 {
			texts = append(texts, s.Text)
		}
	}
	if want := []string{"", "é", "", "", "€"}; strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("byte-token texts %q, want %q", texts, want)
	}
}

func TestGenerateFlushesAnIncompleteCharacter(t *testing.T) {
	m, tok := chainModel(t, 32)
	// 12 tokens end after E2 82, two thirds of "€".
	steps := runGenerate(t, context.Background(), m, tok, "", Options{MaxNewTokens: 12})
	last := steps[len(steps)-1]
	if last.Finish != FinishLength || len(steps) != 12 {
		t.Fatalf("%d steps, finish %q; want 12 and %q", len(steps), last.Finish, FinishLength)
	}
	if got, want := streamedText(steps), "Hello world!\nUser: xé\uFFFD"; got != want {
		t.Fatalf("text %q, want %q", got, want)
	}
}

func TestGenerateStopSequenceAcrossTokens(t *testing.T) {
	m, tok := chainModel(t, 32)
	// "\nUser:" spans four tokens: "\n", "Us", "er", ":".
	steps := runGenerate(t, context.Background(), m, tok, "", Options{Stop: []string{"\nUser:"}})
	last := steps[len(steps)-1]
	if last.Finish != FinishStop || last.Stats.StopSequence != "\nUser:" || last.Piece != ":" {
		t.Fatalf("last step %+v, stats %+v; want finish %q on token \":\"", last, *last.Stats, FinishStop)
	}
	if got := streamedText(steps); got != "Hello world!" {
		t.Fatalf("text %q, want %q", got, "Hello world!")
	}
	for _, s := range steps {
		if strings.ContainsAny(s.Text, "\nU") {
			t.Errorf("step %q released %q, part of the stop sequence", s.Piece, s.Text)
		}
	}

	steps = runGenerate(t, context.Background(), m, tok, "", Options{Stop: []string{"\nUser:"}, IncludeStop: true})
	if got := streamedText(steps); got != "Hello world!\nUser:" {
		t.Fatalf("with IncludeStop: text %q", got)
	}

	// A partial match that fails is held, then released whole.
	steps = runGenerate(t, context.Background(), m, tok, "", Options{Stop: []string{"\nUsa"}})
	var held []string
	for _, s := range steps[3:6] {
		held = append(held, s.Text)
	}
	if want := []string{"", "", "\nUser"}; strings.Join(held, "|") != strings.Join(want, "|") {
		t.Errorf("texts of \"\\n\", \"Us\", \"er\": %q, want %q", held, want)
	}
	if got := streamedText(steps); got != storyText {
		t.Errorf("text %q, want %q", got, storyText)
	}
}

func TestGenerateStopsAtFullContext(t *testing.T) {
	m, tok := chainModel(t, 8)
	steps := runGenerate(t, context.Background(), m, tok, "", Options{})
	last := steps[len(steps)-1]
	if last.Finish != FinishContext || len(steps) != 8 || last.Pos != 8 {
		t.Fatalf("%d steps, last %+v; want 8 steps ending at position 8 with %q", len(steps), last, FinishContext)
	}
}

func TestGeneratePredicate(t *testing.T) {
	m, tok := chainModel(t, 32)
	var seenIDs []int
	stopWhen := func(text string, ids []int) bool {
		seenIDs = ids
		return strings.HasSuffix(text, "!")
	}
	steps := runGenerate(t, context.Background(), m, tok, "", Options{StopWhen: stopWhen})
	last := steps[len(steps)-1]
	if last.Finish != FinishPredicate || streamedText(steps) != "Hello world!" {
		t.Fatalf("finish %q, text %q; want %q and %q", last.Finish, streamedText(steps), FinishPredicate, "Hello world!")
	}
	if len(seenIDs) != 3 || seenIDs[2] != 5 {
		t.Fatalf("predicate saw ids %v, want the 3 generated ids ending with 5", seenIDs)
	}
}

func TestGenerateDeadlineIsAFinishReason(t *testing.T) {
	m, tok := chainModel(t, 32)
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	steps := runGenerate(t, ctx, m, tok, "", Options{})
	if len(steps) != 1 || steps[0].ID != NoToken || steps[0].Finish != FinishDeadline || steps[0].Stats.GeneratedTokens != 0 {
		t.Fatalf("expired deadline: steps %+v, want one token-less step with finish %q", steps, FinishDeadline)
	}

	// Cancelling while streaming ends after the token being made.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	var got []Step
	for st, err := range Generate(ctx2, m, tok, "", Options{Stop: []string{"\nUsa"}}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, st)
		if len(got) == 5 { // "Us": "\nUs" is held back as a possible stop
			cancel2()
		}
	}
	last := got[len(got)-1]
	if len(got) != 6 || last.Finish != FinishCancelled {
		t.Fatalf("cancelled after 5 steps: got %d steps ending %q, want 6 ending %q", len(got), last.Finish, FinishCancelled)
	}
	if text := streamedText(got); text != "Hello world!\nUser" {
		t.Fatalf("held-back text was not released at cancellation: %q", text)
	}
}

func TestGenerateLogProbsAndTrace(t *testing.T) {
	m, tok := chainModel(t, 32)
	steps := runGenerate(t, context.Background(), m, tok, "", Options{Temperature: 0.5, TopK: 3, Seed: 1, TopLogProbs: 3, Trace: true, MaxNewTokens: 4})
	for _, s := range steps {
		if len(s.TopLogProbs) != 3 {
			t.Fatalf("step %d: %d top logprobs, want 3", s.Pos, len(s.TopLogProbs))
		}
		// The favourite has logit 4, the 15 others 0: log p = 4 - log(e^4 + 15).
		want := 4 - math.Log(math.Exp(4)+15)
		if top := s.TopLogProbs[0]; math.Abs(top.LogProb-want) > 1e-4 || top.Text == "" {
			t.Errorf("step %d: top alternative %+v, want log-probability %.4f and its text", s.Pos, top, want)
		}
		if s.TopLogProbs[1].LogProb > s.TopLogProbs[0].LogProb {
			t.Errorf("step %d: alternatives not sorted: %+v", s.Pos, s.TopLogProbs)
		}
		if s.ID == s.TopLogProbs[0].ID && math.Abs(s.LogProb-want) > 1e-4 {
			t.Errorf("step %d: chosen log-probability %v, want %v", s.Pos, s.LogProb, want)
		}
		if names := stageNames(s.Stages); strings.Join(names, ",") != "model,temperature,top-k" {
			t.Errorf("step %d: stages %v", s.Pos, names)
		}
	}
}

func TestGenerateRejectsBadSettingsBeforeWork(t *testing.T) {
	m, tok := chainModel(t, 32)
	n := 0
	for st, err := range Generate(context.Background(), m, tok, "", Options{TopP: 1.5}) {
		n++
		if err == nil || !strings.Contains(err.Error(), "TopP = 1.5") {
			t.Fatalf("got step %+v, error %v; want an error naming TopP = 1.5", st, err)
		}
	}
	if n != 1 {
		t.Fatalf("yielded %d values, want only the error", n)
	}
}

func TestReferenceStopSequence(t *testing.T) {
	m, tok := loadReference(t)
	steps := runGenerate(t, context.Background(), m, tok, "", Options{Stop: []string{"Lily"}, MaxNewTokens: 64})
	want := publishedGreedy[:strings.Index(publishedGreedy, "Lily")]
	if got := streamedText(steps); got != want || steps[len(steps)-1].Finish != FinishStop {
		t.Fatalf("text %q, finish %q; want %q and %q", got, steps[len(steps)-1].Finish, want, FinishStop)
	}
}

func TestReferenceSameSeedSameText(t *testing.T) {
	m, tok := loadReference(t)
	o := Options{Temperature: 0.8, TopP: 0.9, Seed: 42, MaxNewTokens: 48}
	a := streamedText(runGenerate(t, context.Background(), m, tok, "Once upon a time", o))
	b := streamedText(runGenerate(t, context.Background(), m, tok, "Once upon a time", o))
	o.Seed = 43
	c := streamedText(runGenerate(t, context.Background(), m, tok, "Once upon a time", o))
	if a != b {
		t.Fatalf("same seed, different text:\n%q\n%q", a, b)
	}
	if a == c {
		t.Fatalf("seeds 42 and 43 wrote the same 48 tokens: %q", a)
	}
}

func TestReferencePenaltiesBreakTheLoop(t *testing.T) {
	// Greedy stories260K repeats "didn't know what to do" (see
	// publishedGreedy); a no-repeat 3-gram rule makes that impossible.
	m, tok := loadReference(t)
	steps := runGenerate(t, context.Background(), m, tok, "", Options{NoRepeatNGram: 3, MaxNewTokens: 200})
	var ids []int
	for _, s := range steps {
		ids = append(ids, s.ID)
	}
	seen := map[[3]int]bool{}
	for i := 0; i+3 <= len(ids); i++ {
		k := [3]int{ids[i], ids[i+1], ids[i+2]}
		if seen[k] {
			t.Fatalf("3-gram %v repeats at %d despite NoRepeatNGram 3", k, i)
		}
		seen[k] = true
	}
	if text := streamedText(steps); strings.Count(text, "didn't know what to do") > 1 {
		t.Fatalf("the loop is still there: %q", text)
	}
}

// TestEmptyPromptWithoutBOS: a model that adds no BOS token has nothing to
// start from after an empty prompt, and Generate says so before any work.
func TestEmptyPromptWithoutBOS(t *testing.T) {
	m, tok, err := loadGGUFWithTokenizer(testmodel.Path(t, testmodel.SmolLM2))
	if err != nil {
		t.Fatal(err)
	}
	for step, err := range Generate(context.Background(), m, tok, "", Options{MaxNewTokens: 3}) {
		if err == nil {
			t.Fatalf(`Generate(SmolLM2, "") gave the step %+v; want an error`, step)
		}
		if !strings.Contains(err.Error(), "prompt is empty") || !strings.Contains(err.Error(), "no BOS") {
			t.Errorf(`Generate(SmolLM2, "") failed with %q; want it to say the prompt is empty and no BOS is added`, err)
		}
		break
	}
}

// TestGenerateNoLogProbs: NoLogProbs changes no token and no text, only
// leaves the log-probabilities it names NaN; TopLogProbs and beam search's
// own log-probabilities are still there.
func TestGenerateNoLogProbs(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	draft, _, err := courseDraft()
	if err != nil {
		t.Fatal(err)
	}
	constraint := constraintFor(t, tok, `[a-z]+( [a-z]+)*\.`)
	for _, c := range []struct {
		name string
		opts Options
		kept bool // the decoder fills LogProb anyway
	}{
		{"greedy", Options{}, false},
		{"sampled", Options{Temperature: 0.8, TopK: 20, Seed: 3, TopLogProbs: 2}, false},
		{"constrained", Options{Constraint: constraint, Temperature: 0.9, Seed: 5}, false},
		{"no cache", Options{Decoder: NoCache{}}, false},
		{"speculative", Options{Temperature: 0.7, Seed: 9, Decoder: Speculation{Drafter: DraftLM{engine.NewModelLM(draft, 1)}, Gamma: 3}}, false},
		{"beam", Options{Decoder: Beam{Width: 2}}, true},
	} {
		c.opts.MaxNewTokens = 24
		with := steps(t, context.Background(), m, tok, "// ", c.opts)
		c.opts.NoLogProbs = true
		without := steps(t, context.Background(), m, tok, "// ", c.opts)
		if len(with) != len(without) {
			t.Fatalf("%s: %d steps with NoLogProbs, %d without", c.name, len(without), len(with))
		}
		for i, s := range without {
			w := with[i]
			if s.ID != w.ID || s.Text != w.Text || s.Finish != w.Finish {
				t.Fatalf("%s, step %d: token %d %q (%s) with NoLogProbs, %d %q (%s) without", c.name, i, s.ID, s.Text, s.Finish, w.ID, w.Text, w.Finish)
			}
			if s.ID == NoToken {
				continue
			}
			if c.kept && s.LogProb != w.LogProb || !c.kept && !math.IsNaN(s.LogProb) {
				t.Errorf("%s, step %d: LogProb %v with NoLogProbs (%v without); want %s", c.name, i, s.LogProb, w.LogProb, map[bool]string{true: "the same", false: "NaN"}[c.kept])
			}
			if math.IsNaN(w.LogProb) || w.LogProb > 0 {
				t.Errorf("%s, step %d: LogProb %v without NoLogProbs, want a log-probability", c.name, i, w.LogProb)
			}
			if c.opts.Constraint != nil && !math.IsNaN(s.ConstrainedLogProb) {
				t.Errorf("%s, step %d: ConstrainedLogProb %v with NoLogProbs, want NaN", c.name, i, s.ConstrainedLogProb)
			}
			if len(s.TopLogProbs) != len(w.TopLogProbs) || len(s.TopLogProbs) > 0 && s.TopLogProbs[0] != w.TopLogProbs[0] {
				t.Errorf("%s, step %d: TopLogProbs %v with NoLogProbs, %v without", c.name, i, s.TopLogProbs, w.TopLogProbs)
			}
		}
	}
}
