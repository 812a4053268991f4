package notebook

import (
	"encoding/json"
	"github.com/tokenbytoken/course/engine/decoding"
	"math"
	"strings"
	"testing"
)

// pairLM is a hand-built model over four tokens where greedy decoding and a
// beam of two disagree: token 1 is the best first token, but token 2 is
// followed by a far more likely second one.
type pairLM map[int][]float64

func (m pairLM) VocabSize() int     { return 4 }
func (m pairLM) ContextLength() int { return 16 }
func (m pairLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	rows := make([][]float32, n)
	for i := range rows {
		p := m[prefix[len(prefix)-n+i]]
		rows[i] = make([]float32, len(p))
		for j, v := range p {
			rows[i][j] = float32(math.Log(v))
		}
	}
	return rows, nil
}

func beamResult(t *testing.T) *decoding.BeamResult {
	t.Helper()
	lm := pairLM{
		0: {0, 0.5, 0.4, 0.1},
		1: {0, 0.4, 0.3, 0.3},
		2: {0, 0.9, 0.05, 0.05},
		3: {0, 0.4, 0.3, 0.3},
	}
	words := []string{"<s>", " a", " b", " c"}
	res, err := BeamSearch(lm, []int{0}, decoding.Options{MaxNewTokens: 2, Decoder: decoding.Beam{Width: 2, Text: func(_, id int) string { return words[id] }}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// treeOption decodes the tree series' data from a chart's option JSON.
type treeNode struct {
	Name      string      `json:"name"`
	Value     string      `json:"value"`
	Children  []*treeNode `json:"children"`
	ItemStyle struct {
		Color string `json:"color"`
	} `json:"itemStyle"`
	LineStyle struct {
		Color string  `json:"color"`
		Width float64 `json:"width"`
	} `json:"lineStyle"`
}

func treeOf(t *testing.T, option string) *treeNode {
	t.Helper()
	var o struct {
		Series []struct {
			Type   string      `json:"type"`
			Orient string      `json:"orient"`
			Data   []*treeNode `json:"data"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(option), &o); err != nil {
		t.Fatalf("option is not JSON: %v\n%s", err, option)
	}
	if len(o.Series) != 1 || o.Series[0].Type != "tree" || len(o.Series[0].Data) != 1 {
		t.Fatalf("want one tree series with one root:\n%s", option)
	}
	if o.Series[0].Orient != "LR" {
		t.Errorf("orient = %q, want LR", o.Series[0].Orient)
	}
	return o.Series[0].Data[0]
}

func TestBeamTreeMirrorsTheSearch(t *testing.T) {
	res := beamResult(t)
	if got := res.Best.Tokens; len(got) != 2 || got[0] != 2 || got[1] != 1 {
		t.Fatalf("beam of 2 should find [2 1], got %v", got)
	}
	root := treeOf(t, BeamResultTree("beam", res).RenderSnippet().Option)
	if root.Name != "prompt" {
		t.Errorf("root name = %q, want prompt", root.Name)
	}
	// Count nodes: the chart must hold every node of the search tree.
	var count func(n *treeNode) int
	count = func(n *treeNode) int {
		c := 1
		for _, ch := range n.Children {
			c += count(ch)
		}
		return c
	}
	if got := count(root); got != len(res.Tree) {
		t.Errorf("chart has %d nodes, search tree %d", got, len(res.Tree))
	}
	// First level: each beam proposes its two best tokens, so " a" 50% is
	// kept and " b" 40% is on the best path; " c" is never looked at.
	want := map[string]string{"␣a  50%": beamKeptColor, "␣b  40%": beamBestColor}
	if len(root.Children) != len(want) {
		t.Fatalf("root has %d children, want %d", len(root.Children), len(want))
	}
	var a, b *treeNode
	for _, ch := range root.Children {
		color, ok := want[ch.Name]
		if !ok {
			t.Errorf("unexpected first-level node %q", ch.Name)
			continue
		}
		if ch.ItemStyle.Color != color {
			t.Errorf("node %q colour %s, want %s", ch.Name, ch.ItemStyle.Color, color)
		}
		switch ch.Name {
		case "␣a  50%":
			a = ch
		case "␣b  40%":
			b = ch
		}
	}
	if a == nil || b == nil {
		t.Fatal("no node for a or b")
	}
	// Under a, " b" (0.5 × 0.3 = 15%) did not make the cut.
	for _, ch := range a.Children {
		if ch.Name == "␣b  15%" && ch.ItemStyle.Color != beamPrunedColor {
			t.Errorf("pruned node ␣b 15%% has colour %s", ch.ItemStyle.Color)
		}
	}
	if b.LineStyle.Color != beamBestColor || b.LineStyle.Width != 3 {
		t.Errorf("edge to the best path's first node not highlighted: %+v", b.LineStyle)
	}
	// The best answer, b then a (0.4 × 0.9 = 36%), is finished and on the path.
	var found bool
	for _, ch := range b.Children {
		if ch.Name == "␣a  36%" {
			found = true
			if ch.ItemStyle.Color != beamFinishedColor || ch.LineStyle.Color != beamBestColor {
				t.Errorf("best leaf styled %+v / %+v", ch.ItemStyle, ch.LineStyle)
			}
			if !strings.HasPrefix(ch.Value, "finished · token p=90%") {
				t.Errorf("best leaf tooltip = %q", ch.Value)
			}
		}
	}
	if !found {
		t.Errorf("best leaf ␣a 36%% not under ␣b")
	}
	if html := HTML(BeamResultTree("beam", res)); !strings.Contains(html, `"type":"tree"`) {
		t.Errorf("HTML lacks the tree series")
	}
}

func TestBeamTreeLabelsTokensWithoutText(t *testing.T) {
	nodes := []decoding.BeamNode{
		{Parent: -1, Token: -1, Status: decoding.BeamKept},
		{Parent: 0, Token: 7, Depth: 1, LogProb: math.Log(0.25), CumLogProb: math.Log(0.25), Status: decoding.BeamFinished},
	}
	root := treeOf(t, BeamTree("t", nodes, -1).RenderSnippet().Option)
	if len(root.Children) != 1 || root.Children[0].Name != "#7  25%" {
		t.Fatalf("want one child named \"#7  25%%\", got %+v", root.Children)
	}
	if root.Children[0].LineStyle.Color == beamBestColor {
		t.Errorf("no best path asked for, but an edge is highlighted")
	}
}

func TestBeamTreeRejectsChildrenBeforeParents(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a node whose parent comes after it")
		}
	}()
	BeamTree("bad", []decoding.BeamNode{{Parent: -1, Token: -1}, {Parent: 2, Token: 1}, {Parent: 0, Token: 2}}, -1)
}

func TestPercent(t *testing.T) {
	for p, want := range map[float64]string{0.5: "50%", 0.036: "3.6%", 0.001234: "0.123%", 1e-9: "<0.001%"} {
		if got := percent(p); got != want {
			t.Errorf("percent(%v) = %q, want %q", p, got, want)
		}
	}
}
