package decoding

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/memory"
)

// BeamNode is one node of the explored tree: a partial sequence, the
// token it added to its parent, and what the search did with it.
type BeamNode struct {
	Parent  int    // index of the parent node; -1 for the root (the prompt)
	Token   int    // the token this node adds; -1 for the root
	Text    string // the token's text, when Beam.Text is set
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

// BeamResult is what a beam search found and how: the Report of Beam.
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

// Decoder is "beam": a BeamResult is the Report of Beam.
func (*BeamResult) Decoder() string { return "beam" }

// searchBeams runs the search after d's prompt and streams the best
// hypothesis through d.
func searchBeams(d *decoding, lm LM, opts Beam, yield func(Step, error) bool) {
	prompt := d.seq[:d.prompt:d.prompt]
	isEnd := d.isEnd
	maxNew := d.positions() - d.prompt
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
	d.stats.Report = res
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
				d.stats.Report = nil // nothing was searched
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

// Beam decodes by beam search: it keeps the Width best partial sequences
// by total log-probability, extends each by every token, and keeps the
// Width best extensions again, step after step.
//
// Per step, each beam proposes its most likely tokens (enough that Width
// of them do not end the text); all proposals are ranked together by
// cumulative log-probability. Going down that ranking, a proposal that
// ends the text becomes a finished hypothesis if it ranks within the
// first Width, and the first Width proposals that do not end the text
// become the next beams. The search stops at Options.MaxNewTokens (0:
// when the context is full; remaining beams become hypotheses too), or
// as soon as Width hypotheses are finished and no live beam can still
// beat the worst of them — which is exact, because a beam's
// log-probability only falls as it grows.
//
// The text is the best hypothesis, each token yielded as soon as it is
// certain: a token that every live beam and the best finished hypothesis
// share can no longer change, so it is yielded while the search goes on;
// the rest follow when the search ends. The last step's Stats.Report is
// a *BeamResult: the whole explored tree and the best hypotheses. ctx is
// checked before every question to the model; when it ends first, the
// live beams become hypotheses as if the length limit had been reached,
// the best found so far is yielded, and the last step's Finish says why.
//
// The search scores the model's own log-probabilities, so it samples
// nothing: the sampling settings and penalties of Options must be off.
// In Generate each beam keeps a KV cache of its own.
type Beam struct {
	// Width is the number of partial sequences (beams) kept after each
	// step, 1 to MaxBeamWidth. Width 1 is greedy decoding.
	Width int
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
	// Text, if set, gives the text of token id after token prev (for
	// example Tokenizer.Decode); it labels the nodes of the tree.
	Text func(prev, id int) string
}

func (b Beam) check(o Options) error {
	if err := unconstrained(o, "beam search"); err != nil {
		return err
	}
	if b.Width < 1 || b.Width > MaxBeamWidth {
		return &SettingError{"Decoder.Width", b.Width, fmt.Sprintf("beam width must be between 1 and %d", MaxBeamWidth)}
	}
	if math.IsNaN(b.LengthPenalty) || math.IsInf(b.LengthPenalty, 0) {
		return &SettingError{"Decoder.LengthPenalty", b.LengthPenalty, "must be a finite number"}
	}
	return checkUnsampled(o, false, "beam search keeps the likeliest continuations by the model's own log-probabilities")
}

func (b Beam) generate(d *decoding, m *engine.Model, _ Options, yield func(Step, error) bool) {
	d.mark = time.Now()
	searchBeams(d, engine.NewModelLM(m, 2*b.Width), b, yield)
}

func (b Beam) decode(d *decoding, lm LM, _ Options, yield func(Step, error) bool) {
	searchBeams(d, lm, b, yield)
}

// unconstrained refuses Options.Constraint for the decoder named name,
// which does not mask the logits before it chooses (Pick), or weighs
// tokens by the model's own distribution, which a mask would change under
// it (beam search, speculative decoding).
func unconstrained(o Options, name string) error {
	if o.Constraint != nil {
		return &SettingError{"Constraint", o.Constraint, name + " does not apply a constraint (only the default decoder, NoCache and Shared do)"}
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
