package notebook

import (
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/experiment"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestRankAndTopLabels(t *testing.T) {
	if got := RankLabels(3); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("RankLabels(3) = %v", got)
	}
	top := []decoding.TokenLogProb{{ID: 2}, {ID: 0}}
	names := []string{" a", "b", "c\n"}
	if got := TopLabels(top, func(id int) string { return names[id] }); !slices.Equal(got, []string{"c⏎", "␣a"}) {
		t.Errorf("TopLabels = %v", got)
	}
}

func TestStageLineAndView(t *testing.T) {
	line := StageLine([]experiment.StageCount{{Stage: "model", Left: 4}, {Stage: "top-k", Left: 3}, {Stage: "min-p", Left: 1}})
	want := `<p style="font-family: monospace">model: 4 tokens → top-k: 3 → min-p: 1<br>the token is drawn from 1 token</p>`
	if line != want {
		t.Errorf("StageLine = %s\nwant        %s", line, want)
	}
	var z []float32 // logits whose softmax is 0.5, 0.25, 0.125, 0.125
	for _, p := range []float64{0.5, 0.25, 0.125, 0.125} {
		z = append(z, float32(math.Log(p)))
	}
	names := []string{"a", " b", "c", "d"}
	view, err := SamplerView("t", z, func(id int) string { return names[id] }, decoding.Options{Temperature: 1, TopP: 0.7}, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"model: 4 tokens → top-p: 2", "drawn from 2 tokens", "␣b", "sampled from", "tokenbytoken-chart"} {
		if !strings.Contains(view, s) {
			t.Errorf("SamplerView lacks %q", s)
		}
	}
	if strings.Contains(view, `"d"`) {
		t.Error("SamplerView shows token d, which is not among the 3 most likely (ties by lower id)")
	}
	if _, err := SamplerView("t", z, func(id int) string { return names[id] }, decoding.Options{TopP: 2}, 3); err == nil {
		t.Error("top-p 2 was accepted")
	}
}
