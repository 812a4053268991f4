package decoding

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/memory"
)

// BeamOptions control a beam search.
type BeamOptions struct {
	// Width is the number of partial sequences (beams) kept after each
	// step. Width 1 is greedy decoding.
	Width int
	// MaxNewTokens is the longest continuation considered (at least 1).
	MaxNewTokens int
	// LengthPenalty is α in the length normalisation of Google's neural
	// machine translation system (Wu et al., 2016), which Hugging Face's
	// beam search also uses in spirit: a finished sequence is ranked by
	//
	//	score = cumulative log-probability / ((5 + length) / 6)^α
	//
	// where length counts the generated tokens, including the end-of-text
	// token. Every token adds a negative log-probability, so without
	// normalisation (α = 0) short sequences win; α > 0 favours longer ones
	// and α < 0 shorter ones. Typical values are 0.6 to 1.
	LengthPenalty float64
	// IsEnd reports whether a token ends the text (for llama2.c models,
	// Tokenizer.IsEnd). A beam that picks such a token is finished: it is
	// set aside as a candidate answer and no longer extended. Nil means no
	// token ends the text.
	IsEnd func(id int) bool
	// Text, if set, gives the text of token id after token prev (for
	// example Tokenizer.Decode); it labels the nodes of the tree.
	Text func(prev, id int) string
}

// BeamNode is one node of the explored tree: a partial sequence, the
// token it added to its parent, and what the search did with it.
type BeamNode struct {
	Parent  int    // index of the parent node; -1 for the root (the prompt)
	Token   int    // the token this node adds; -1 for the root
	Text    string // the token's text, when BeamOptions.Text is set
	Depth   int    // generated tokens so far (0 for the root)
	LogProb float64
	// CumLogProb is the sum of LogProb from the root: the log-probability
	// of the whole continuation.
	CumLogProb float64
	// Score is CumLogProb after length normalisation (see LengthPenalty).
	Score  float64
	Status BeamStatus
}

// BeamStatus says what the search did with a node.
type BeamStatus string

const (
	// BeamKept: among the Width best at its depth; extended next step.
	BeamKept BeamStatus = "kept"
	// BeamPruned: a candidate that did not make the cut.
	BeamPruned BeamStatus = "pruned"
	// BeamFinished: ended the text (or reached the length limit) while
	// among the best, and became a candidate answer.
	BeamFinished BeamStatus = "finished"
)

// BeamHypothesis is a finished candidate answer.
type BeamHypothesis struct {
	Tokens     []int // the generated tokens, ending with the end token if Ended
	CumLogProb float64
	Score      float64
	Ended      bool // false when cut at MaxNewTokens or the context limit
	Node       int  // its last node in the tree
}

// BeamResult is what BeamSearch found and how.
type BeamResult struct {
	// Best is the highest-scoring hypothesis.
	Best BeamHypothesis
	// Hypotheses are the best Width hypotheses, best first.
	Hypotheses []BeamHypothesis
	// Tree is every node the search looked at. Tree[0] is the root;
	// parents come before their children.
	Tree []BeamNode
	// Passes is the number of model questions asked (one per live beam
	// per step).
	Passes int
}

// BeamSearch finds a high-probability continuation of prompt: it keeps the
// Width best partial sequences by total log-probability, extends each by
// every token, and keeps the Width best extensions again, step after step.
//
// Per step, each beam proposes its most likely tokens (enough that Width
// of them do not end the text); all proposals are ranked together by
// cumulative log-probability. Going down that ranking, a proposal that ends
// the text becomes a finished hypothesis if it ranks within the first
// Width, and the first Width proposals that do not end the text become the
// next beams. The search stops at MaxNewTokens (remaining beams become
// hypotheses too), or as soon as Width hypotheses are finished and no live
// beam can still beat the worst of them — which is exact, because a beam's
// log-probability only falls as it grows.
//
// It yields the tokens of the best hypothesis, each as soon as it is
// certain: a token that every live beam and the best finished hypothesis
// share can no longer change, so it is yielded while the search goes on;
// the rest follow when the search ends. The last step's Stats.Beam holds
// the whole explored tree and the best hypotheses (Best and Hypotheses are
// set once the search has ended). ctx is checked before every question to
// the model; when it ends first, the live beams become hypotheses as if
// the length limit had been reached, the best found so far is yielded,
// and the last step's Finish says why. Bad settings are the only value
// yielded; a model error ends the steps with that error.
func BeamSearch(ctx context.Context, lm LM, prompt []int, opts BeamOptions) iter.Seq2[Step, error] {
	return func(yield func(Step, error) bool) {
		if err := opts.check(ctx, lm, prompt); err != nil {
			yield(Step{}, err)
			return
		}
		d := newDecoding(ctx, prompt, lm.ContextLength(), opts.MaxNewTokens, opts.IsEnd)
		searchBeams(d, lm, opts, yield)
	}
}

// check reports settings that make a beam search impossible.
func (opts BeamOptions) check(ctx context.Context, lm LM, prompt []int) error {
	if ctx == nil {
		return errors.New("nil context: pass context.Background() for no deadline")
	}
	if err := checkLM(lm); err != nil {
		return err
	}
	if err := checkBeam(opts.Width, opts.LengthPenalty); err != nil {
		return err
	}
	if opts.MaxNewTokens < 1 {
		return fmt.Errorf("beam search max new tokens = %d: must be at least 1", opts.MaxNewTokens)
	}
	if len(prompt) == 0 {
		return fmt.Errorf("empty prompt: beam search needs at least one token (BOS)")
	}
	return checkPrompt(prompt, lm.ContextLength())
}

// checkBeam reports a width or length penalty beam search cannot use.
func checkBeam(width int, lengthPenalty float64) error {
	if width < 1 || width > MaxBeamWidth {
		return fmt.Errorf("beam width = %d: must be between 1 and %d", width, MaxBeamWidth)
	}
	if math.IsNaN(lengthPenalty) || math.IsInf(lengthPenalty, 0) {
		return fmt.Errorf("length penalty = %v: must be a finite number", lengthPenalty)
	}
	return nil
}

// searchBeams runs the search after d's prompt and streams the best
// hypothesis through d.
func searchBeams(d *decoding, lm LM, opts BeamOptions, yield func(Step, error) bool) {
	prompt := d.seq[:d.prompt:d.prompt]
	isEnd := d.isEnd
	maxNew := min(opts.MaxNewTokens, lm.ContextLength()-len(prompt))
	// Every step adds up to width × 2·width nodes to the tree (each beam
	// proposes width tokens, and as many more as end the text).
	nodes := 1 + int64(maxNew)*int64(opts.Width)*int64(2*opts.Width)
	what := fmt.Sprintf("a beam search of width %d over %d tokens (a tree of up to %d nodes of %d bytes)", opts.Width, maxNew, nodes, beamNodeBytes)
	if err := memory.Check(what, nodes*beamNodeBytes); err != nil {
		yield(Step{}, err)
		return
	}
	// The search decides when the context ends it: the tokens it streams
	// while it runs are those of the best answer either way.
	d.searching = true
	lp := func(length int) float64 { return math.Pow((5+float64(length))/6, opts.LengthPenalty) }

	res := &BeamResult{Tree: []BeamNode{{Parent: -1, Token: -1, Status: BeamKept}}}
	d.stats.Beam = res
	live := []int{0}
	var finished []BeamHypothesis
	tokensOf := func(node int) []int {
		ts := make([]int, res.Tree[node].Depth)
		for n := node; n > 0; n = res.Tree[n].Parent {
			ts[res.Tree[n].Depth-1] = res.Tree[n].Token
		}
		return ts
	}
	finish := func(node int, ended bool) {
		n := &res.Tree[node]
		n.Status = BeamFinished
		finished = append(finished, BeamHypothesis{Tokens: tokensOf(node), CumLogProb: n.CumLogProb, Score: n.Score, Ended: ended, Node: node})
	}
	// stream yields the tokens of node's path from the first not yet
	// yielded; last says that node ends the search (for reason, when the
	// search itself has one). It reports whether to go on.
	stream := func(node int, last bool, reason FinishReason) bool {
		path := tokensOf(node)
		for _, id := range path[d.generated():] {
			depth := d.generated() + 1
			at := node
			for res.Tree[at].Depth > depth {
				at = res.Tree[at].Parent
			}
			own := FinishReason("")
			if last && depth == len(path) {
				d.searching = false
				own = reason
			}
			if !d.emit(yield, d.step(Step{ID: id, LogProb: res.Tree[at].LogProb}, own)) {
				return false
			}
		}
		return true
	}

	var stopped error
	for depth := 1; depth <= maxNew && len(live) > 0; depth++ {
		if err := d.ctx.Err(); err != nil {
			if depth == 1 {
				d.stats.Beam = nil // nothing was searched
				d.emit(yield, d.last(finishFor(err)))
				return
			}
			for _, b := range live {
				finish(b, false)
			}
			stopped = err
			break
		}
		// Expand every live beam into its candidates.
		var cands []int
		for i, b := range live {
			if err := d.ctx.Err(); err != nil && i > 0 {
				// Give up the step half-way: the beams of the step
				// before are the best found.
				res.Tree = res.Tree[:len(res.Tree)-len(cands)]
				cands = nil
				for _, b := range live {
					finish(b, false)
				}
				stopped = err
				break
			}
			parent := res.Tree[b]
			seq := append(slices.Clip(prompt), tokensOf(b)...)
			rows, err := lm.NextLogits(seq, 1)
			if err == nil {
				err = checkRows(rows, 1, lm.VocabSize())
			}
			if err != nil {
				yield(Step{}, err)
				return
			}
			res.Passes++
			logp := LogSoftmax(rows[0])
			prev := prompt[len(prompt)-1]
			if parent.Token >= 0 {
				prev = parent.Token
			}
			for _, id := range beamProposals(logp, opts.Width, isEnd) {
				node := BeamNode{Parent: b, Token: id, Depth: depth, LogProb: logp[id], CumLogProb: parent.CumLogProb + logp[id], Status: BeamPruned}
				node.Score = node.CumLogProb / lp(depth)
				if opts.Text != nil {
					node.Text = opts.Text(prev, id)
				}
				res.Tree = append(res.Tree, node)
				cands = append(cands, len(res.Tree)-1)
			}
		}
		if stopped != nil {
			break
		}
		// Rank them all together and keep the best.
		sort.SliceStable(cands, func(i, j int) bool { return res.Tree[cands[i]].CumLogProb > res.Tree[cands[j]].CumLogProb })
		live = live[:0]
		for rank, c := range cands {
			switch {
			case isEnd(res.Tree[c].Token):
				if rank < opts.Width {
					finish(c, true)
				}
			case len(live) < opts.Width:
				res.Tree[c].Status = BeamKept
				live = append(live, c)
			}
		}
		if depth == maxNew {
			for _, b := range live {
				finish(b, false)
			}
			break
		}
		// Stop when no live beam can beat the worst of Width finished ones.
		if len(finished) >= opts.Width {
			sortHypotheses(finished)
			worst := finished[opts.Width-1].Score
			canBeat := false
			for _, b := range live {
				// The sum only falls from here; the score is best with the
				// largest normaliser it can still get.
				bound := res.Tree[b].CumLogProb / max(lp(depth), lp(maxNew))
				canBeat = canBeat || bound > worst
			}
			if !canBeat {
				break
			}
		}
		// Yield what can no longer change.
		if len(live) > 0 {
			if shared := sharedAncestor(res.Tree, live, bestFinished(finished)); res.Tree[shared].Depth > d.generated() && !stream(shared, false, "") {
				return
			}
		}
	}
	sortHypotheses(finished)
	res.Hypotheses = finished[:min(len(finished), opts.Width)]
	res.Best = res.Hypotheses[0]
	reason := FinishReason("")
	if stopped != nil {
		reason = finishFor(stopped)
	}
	if reason == "" {
		reason = FinishLength // not reached: the limits of d end the best hypothesis
	}
	stream(res.Best.Node, true, reason)
}

// bestFinished is the tree node of the best finished hypothesis so far
// (the first of the best score, as sortHypotheses would order them), or
// -1 when there is none.
func bestFinished(finished []BeamHypothesis) int {
	best := -1
	for i, h := range finished {
		if best < 0 || h.Score > finished[best].Score {
			best = i
		}
	}
	if best < 0 {
		return -1
	}
	return finished[best].Node
}

// sharedAncestor is the deepest node on the path of every live beam and of
// node also (when it is not -1).
func sharedAncestor(tree []BeamNode, live []int, also int) int {
	nodes := live
	if also >= 0 {
		nodes = append(slices.Clip(live), also)
	}
	a := nodes[0]
	for _, b := range nodes[1:] {
		for tree[b].Depth > tree[a].Depth {
			b = tree[b].Parent
		}
		for tree[a].Depth > tree[b].Depth {
			a = tree[a].Parent
		}
		for a != b {
			a, b = tree[a].Parent, tree[b].Parent
		}
	}
	return a
}

// Beam decodes by beam search (see BeamSearch) in Generate: the text is
// the best hypothesis, streamed as it becomes certain. The search scores
// the model's own log-probabilities, so it samples nothing: the sampling
// settings and penalties of Options must be off, and Options.MaxNewTokens
// (0: until the context is full) is its length limit.
type Beam struct {
	Width         int     // beams kept (1 is greedy decoding)
	LengthPenalty float64 // α of BeamOptions.LengthPenalty
}

func (b Beam) check(o Options) error {
	if err := unconstrained(o, b); err != nil {
		return err
	}
	if err := checkBeam(b.Width, b.LengthPenalty); err != nil {
		return &SettingError{"Decoder", b, err.Error()}
	}
	return checkUnsampled(o, false, "beam search keeps the likeliest continuations by the model's own log-probabilities")
}

func (b Beam) generate(d *decoding, m *engine.Model, opts Options, yield func(Step, error) bool) {
	o := BeamOptions{Width: b.Width, LengthPenalty: b.LengthPenalty, MaxNewTokens: d.positions() - d.prompt, IsEnd: d.isEnd}
	d.mark = time.Now()
	searchBeams(d, engine.NewModelLM(m, 2*b.Width), o, yield)
}

// unconstrained refuses Options.Constraint for decoder d, which weighs
// tokens by the model's own distribution: a mask would change it under
// it (beam search, speculative decoding).
func unconstrained(o Options, d Decoder) error {
	if o.Constraint != nil {
		return &SettingError{"Decoder", d, "does not apply Options.Constraint (only the default decoder, NoCache and Shared do)"}
	}
	return nil
}

// checkUnsampled reports the first sampling setting of o that is on, for a
// decoder that does not use the sampler's stages: why says what it does
// instead. temperature allows Temperature (and Seed, which is always
// allowed).
func checkUnsampled(o Options, temperature bool, why string) error {
	for _, s := range []struct {
		name  string
		value any
		on    bool
	}{
		{"Temperature", o.Temperature, o.Temperature != 0 && !temperature},
		{"TopK", o.TopK, o.TopK != 0},
		{"TopP", o.TopP, o.TopP != 0 && o.TopP != 1},
		{"MinP", o.MinP, o.MinP != 0},
		{"RepetitionPenalty", o.RepetitionPenalty, o.RepetitionPenalty != 0 && o.RepetitionPenalty != 1},
		{"PresencePenalty", o.PresencePenalty, o.PresencePenalty != 0},
		{"FrequencyPenalty", o.FrequencyPenalty, o.FrequencyPenalty != 0},
		{"NoRepeatNGram", o.NoRepeatNGram, o.NoRepeatNGram != 0},
		{"LogitBias", o.LogitBias, len(o.LogitBias) > 0},
		{"TopLogProbs", o.TopLogProbs, o.TopLogProbs != 0},
		{"Trace", o.Trace, o.Trace},
	} {
		if s.on {
			return &SettingError{s.name, s.value, why + ": it must be off"}
		}
	}
	return nil
}

// MaxBeamWidth is the widest beam search allowed. Each step asks the model
// about every beam and keeps a tree growing with the square of the width;
// beyond a hundred beams the search costs far more than it finds.
const MaxBeamWidth = 100

// beamNodeBytes is the memory of one node of the tree, with a short text.
const beamNodeBytes = 128

// beamProposals returns a beam's candidate tokens, most likely first: the
// width most likely tokens, extended until width of them do not end the
// text. No other token can be among the width best continuations.
func beamProposals(logp []float64, width int, isEnd func(int) bool) []int {
	order := make([]int, len(logp))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return logp[order[a]] > logp[order[b]] })
	var out []int
	nonEnd := 0
	for _, id := range order {
		if len(out) >= width && nonEnd >= width {
			break
		}
		out = append(out, id)
		if !isEnd(id) {
			nonEnd++
		}
	}
	return out
}

// sortHypotheses orders hypotheses best score first.
func sortHypotheses(h []BeamHypothesis) {
	sort.SliceStable(h, func(i, j int) bool { return h[i].Score > h[j].Score })
}
