package notebook

import (
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/experiment"
	"strings"
	"testing"
	"time"
)

// TestSpeedUpChart: one point per γ for the speed-up (the ratio of the
// median times, 31/15), the tokens per target pass and the break-even line.
func TestSpeedUpChart(t *testing.T) {
	tr := experiment.SpeedTrial{
		Gammas: []int{2},
		Tokens: []int{1, 2, 3},
		Plain:  []time.Duration{30 * time.Millisecond, 31 * time.Millisecond, 900 * time.Millisecond},
		Spec:   [][]time.Duration{{10 * time.Millisecond, 500 * time.Millisecond, 15 * time.Millisecond}},
		Stats:  []decoding.SpeculativeStats{{Tokens: []int{1, 2, 3}, TargetPasses: 2, Accepted: 2, Rejected: 0}},
	}
	option := SpeedUpChart("speed-up", tr).RenderSnippet().Option
	for _, want := range []string{`"data":["2"]`, `{"value":2.067}`, `{"value":1.5}`, `{"value":1}`, `"name":"break-even"`} {
		if !strings.Contains(option, want) {
			t.Errorf("the chart's option lacks %s:\n%s", want, option)
		}
	}
}
