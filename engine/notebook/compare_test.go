package notebook

import (
	"math"
	"strings"
	"testing"
)

func TestLogLinesOptions(t *testing.T) {
	line := LogLines("sorted probabilities", "rank", "probability", []string{"1", "2", "3"},
		Series{Name: "confident", Values: []float64{0.9, 0.09, 0}},
		Series{Name: "unsure", Values: []float64{0.4, 0.3, math.NaN()}},
	)
	option := line.RenderSnippet().Option
	for _, want := range []string{
		`"type":"line"`, `"type":"log"`, `"name":"probability"`, `"name":"rank"`,
		`"name":"confident"`, `"name":"unsure"`, `{"value":0.09}`, `{"value":"-"}`,
	} {
		if !strings.Contains(option, want) {
			t.Errorf("log line chart option lacks %s:\n%s", want, option)
		}
	}
	if strings.Contains(option, `{"value":0}`) || strings.Contains(option, "NaN") {
		t.Errorf("a value a log axis cannot show was kept:\n%s", option)
	}
}

func TestLinesXYOptions(t *testing.T) {
	line := LinesXY("repetition", "tokens", "share", []string{"10", "20"},
		Series{Name: "greedy", Values: []float64{0.1, 0}})
	option := line.RenderSnippet().Option
	for _, want := range []string{`"name":"tokens"`, `"name":"share"`, `{"value":0}`, `"name":"greedy"`} {
		if !strings.Contains(option, want) {
			t.Errorf("line chart option lacks %s:\n%s", want, option)
		}
	}
	if strings.Contains(option, `"type":"log"`) {
		t.Errorf("LinesXY has a log axis:\n%s", option)
	}
}

func TestGroupedBarsOptions(t *testing.T) {
	bars := GroupedBars("cost per part", "share", []string{"attention", "mlp", "vocab"},
		Series{Name: "FLOPs", Values: []float64{0.3, 0.5, 0.2}},
		Series{Name: "time", Values: []float64{0.35, 0.4, 0.25}},
	)
	option := bars.RenderSnippet().Option
	for _, want := range []string{
		`"type":"bar"`, `"name":"FLOPs"`, `"name":"time"`, `"data":["attention","mlp","vocab"]`,
		`{"value":0.25}`, `"name":"share","nameLocation":"middle"`,
	} {
		if !strings.Contains(option, want) {
			t.Errorf("grouped bar chart option lacks %s:\n%s", want, option)
		}
	}
}

func TestLessonChartsRejectMismatchedLengths(t *testing.T) {
	for name, build := range map[string]func(){
		"LinesXY":     func() { LinesXY("bad", "", "", []string{"1", "2"}, Series{Name: "s", Values: []float64{1}}) },
		"LogLines":    func() { LogLines("bad", "", "", []string{"1", "2"}, Series{Name: "s", Values: []float64{1}}) },
		"GroupedBars": func() { GroupedBars("bad", "", []string{"a"}, Series{Name: "s", Values: []float64{1, 2}}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic for a series of the wrong length", name)
				}
			}()
			build()
		}()
	}
}

func TestGroupedBarsLabelsNegativeBarsInside(t *testing.T) {
	option := GroupedBars("log p", "", []string{"a", "b"}, Series{Name: "s", Values: []float64{-3, -1}}).RenderSnippet().Option
	if !strings.Contains(option, `"position":"inside"`) {
		t.Errorf("labels of negative bars are not inside them:\n%s", option)
	}
	if strings.Contains(option, `"min":0`) {
		t.Errorf("the value axis is pinned at 0, hiding negative bars:\n%s", option)
	}
}
