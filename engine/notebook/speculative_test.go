package notebook

import (
	"encoding/json"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/experiment"
	"slices"
	"strings"
	"testing"
)

func TestSpeculativeRunHTML(t *testing.T) {
	r := experiment.SpeculativeRun{Gamma: 2, Yields: []int{3, 1},
		Stats: decoding.SpeculativeStats{Tokens: make([]int, 4), TargetPasses: 2, DraftPasses: 4, Drafted: 4, Accepted: 2, Rejected: 1}}
	h := SpeculativeRunHTML(r)
	for _, want := range []string{"γ = 2: tokens added per round (2 rounds)", "α = 0.67", "4 tokens from 2 target passes = 2.00 tokens per pass", "(formula (1 − α^(γ+1)) / (1 − α): 2.11)"} {
		if !strings.Contains(h, want) {
			t.Errorf("the view lacks %q", want)
		}
	}
}

// TestSpeculativeGammaChart: one point per run, measured beside the
// formula fed the run's α.
func TestSpeculativeGammaChart(t *testing.T) {
	runs := []experiment.SpeculativeRun{
		{Gamma: 1, Stats: decoding.SpeculativeStats{Tokens: make([]int, 3), TargetPasses: 2, Accepted: 1, Rejected: 1}},
		{Gamma: 2, Stats: decoding.SpeculativeStats{Tokens: make([]int, 6), TargetPasses: 3, Accepted: 4, Rejected: 0}},
	}
	option := SpeculativeGammaChart(runs).RenderSnippet().Option
	// γ = 1, α = 0.5: 1.5 measured, (1 − 0.25)/(1 − 0.5) = 1.5 by the
	// formula; γ = 2, α = 1: 2 measured, 3 by the formula.
	for _, want := range []string{`"data":["1","2"]`, `{"value":1.5}`, `{"value":2}`, `{"value":3}`, `{"value":0.5}`} {
		if !strings.Contains(option, want) {
			t.Errorf("the chart's option lacks %s:\n%s", want, option)
		}
	}
}

func TestTopTokenBars(t *testing.T) {
	names := []string{"a", "b", "c"}
	chart := TopTokenBars("t", []float64{0.1, 0.6, 0.3}, 1, func(id int) string { return names[id] },
		Series{Name: "p", Values: []float64{0.1, 0.6, 0.3}},
		Series{Name: "q", Values: []float64{0.5, 0.2, 0.3}})
	chart.Validate()
	raw, err := json.Marshal(chart.JSON())
	if err != nil {
		t.Fatal(err)
	}
	var opt struct {
		XAxis []struct {
			Data []string `json:"data"`
		} `json:"xAxis"`
		Series []struct {
			Data []struct {
				Value float64 `json:"value"`
			} `json:"data"`
		} `json:"series"`
	}
	if err := json.Unmarshal(raw, &opt); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(opt.XAxis[0].Data, []string{"b", "other"}) {
		t.Errorf("labels %v, want [b other]: the top token of the ranking, then the rest", opt.XAxis[0].Data)
	}
	var got [][]float64
	for _, s := range opt.Series {
		var v []float64
		for _, d := range s.Data {
			v = append(v, d.Value)
		}
		got = append(got, v)
	}
	if len(got) != 2 || !slices.Equal(got[0], []float64{0.6, 0.4}) || !slices.Equal(got[1], []float64{0.2, 0.8}) {
		t.Errorf("bars %v, want [[0.6 0.4] [0.2 0.8]]", got)
	}
}
