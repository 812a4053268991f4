package notebook

import (
	"fmt"
	"math"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/tokenbytoken/course/engine/decoding"
)

// Colours of the beam tree's nodes, by what the search did with them.
const (
	beamKeptColor     = "#3b7dd8" // blue: one of the Width best at its depth
	beamPrunedColor   = "#b8b8b8" // grey: looked at, then dropped
	beamFinishedColor = "#2e9e44" // green: became a candidate answer
	beamBestColor     = "#d62728" // red: the path of the best answer
)

// BeamTree draws the tree a beam search explored (decoding.BeamResult.Tree),
// left to right from the prompt: every node is a candidate token, labelled
// with its text and the probability of the whole continuation up to it.
// Kept nodes are blue, pruned ones grey, finished ones green; the path to
// node best (for example BeamResult.Best.Node, or -1 for none) is drawn in
// red. Hovering a node shows its token's own probability and the
// continuation's log-probability and score.
//
// nodes must be in the order a beam search gives them: nodes[0] the root, and
// every parent before its children.
func BeamTree(title string, nodes []decoding.BeamNode, best int) *charts.Tree {
	if len(nodes) == 0 {
		panic("notebook.BeamTree: no nodes")
	}
	onBest := make([]bool, len(nodes))
	for n := best; n >= 0 && n < len(nodes); n = nodes[n].Parent {
		onBest[n] = true
	}
	items := make([]*opts.TreeData, len(nodes))
	leaves := 0
	for i, n := range nodes {
		if i > 0 && (n.Parent < 0 || n.Parent >= i) {
			panic(fmt.Sprintf("notebook.BeamTree: node %d has parent %d; parents must come before their children", i, n.Parent))
		}
		items[i] = beamItem(n, onBest[i])
		if i > 0 {
			parent := items[n.Parent]
			parent.Children = append(parent.Children, items[i])
		}
	}
	for _, it := range items {
		if len(it.Children) == 0 {
			leaves++
		}
	}
	height := max(260, 26*leaves+60)
	tree := charts.NewTree()
	tree.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Width: chartWidth, Height: fmt.Sprintf("%dpx", height)}),
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item", TriggerOn: "mousemove"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
	)
	tree.AddSeries("beam search", []opts.TreeData{*items[0]},
		charts.WithTreeOpts(opts.TreeChart{
			Layout:            "orthogonal",
			Orient:            "LR",
			InitialTreeDepth:  -1,
			ExpandAndCollapse: opts.Bool(false),
			Top:               "56",
			Bottom:            "12",
			Left:              "70",
			Right:             "150",
			// Above the node, clear of the edges that enter and leave it.
			Label:  &opts.Label{Show: opts.Bool(true), Position: "top", FontSize: 12},
			Leaves: &opts.TreeLeaves{Label: &opts.Label{Show: opts.Bool(true), Position: "right", FontSize: 12}},
		}),
	)
	return tree
}

// BeamResultTree is BeamTree for a whole result, with its best answer's
// path highlighted.
func BeamResultTree(title string, res *decoding.BeamResult) *charts.Tree {
	return BeamTree(title, res.Tree, res.Best.Node)
}

// beamItem is one node of the tree chart.
func beamItem(n decoding.BeamNode, best bool) *opts.TreeData {
	name := "prompt"
	if n.Token >= 0 {
		text := n.Text
		if text == "" {
			text = fmt.Sprintf("#%d", n.Token)
		}
		name = fmt.Sprintf("%s  %s", TokenLabel(text), percent(math.Exp(n.CumLogProb)))
	}
	color := beamPrunedColor
	switch n.Status {
	case decoding.BeamKept:
		color = beamKeptColor
	case decoding.BeamFinished:
		color = beamFinishedColor
	}
	edge := &opts.LineStyle{Color: "#c8c8c8", Width: 1}
	if best {
		edge = &opts.LineStyle{Color: beamBestColor, Width: 3}
		if n.Status != decoding.BeamFinished {
			color = beamBestColor
		}
	}
	return &opts.TreeData{
		Name: name,
		// The tooltip shows name: value.
		Value: fmt.Sprintf("%s · token p=%s · log p(sequence)=%.2f · score=%.2f",
			n.Status, percent(math.Exp(n.LogProb)), n.CumLogProb, n.Score),
		SymbolSize: 9,
		ItemStyle:  &opts.ItemStyle{Color: color},
		LineStyle:  edge,
	}
}

// percent formats a probability for a label: three significant digits
// down to 0.001%, "<0.001%" below.
func percent(p float64) string {
	switch {
	case p >= 0.1:
		return fmt.Sprintf("%.0f%%", 100*p)
	case p >= 0.01:
		return fmt.Sprintf("%.1f%%", 100*p)
	case p >= 0.00001:
		return fmt.Sprintf("%.3g%%", 100*p)
	default:
		return "<0.001%"
	}
}
