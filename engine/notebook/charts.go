package notebook

import (
	"fmt"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Default size of the charts built here; it fits a JupyterLab output area.
const (
	chartWidth  = "760px"
	chartHeight = "380px"
)

// ProbabilityBars builds a bar chart with one bar per label, of height
// probs[i] (between 0 and 1), labelled with its percentage: the picture of a
// next-token distribution. The axis starts at 0 and ends just above the
// tallest bar. Bars keep the order given, so sort them first if the chart
// should read from most to least likely. labels and probs must have the same
// length.
func ProbabilityBars(title string, labels []string, probs []float64) *charts.Bar {
	if len(labels) != len(probs) {
		panic(fmt.Sprintf("notebook.ProbabilityBars: %d labels but %d probabilities", len(labels), len(probs)))
	}
	data := make([]opts.BarData, len(probs))
	for i, p := range probs {
		data[i] = opts.BarData{Value: p}
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Width: chartWidth, Height: chartHeight}),
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithXAxisOpts(opts.XAxis{
			Name:      "token",
			AxisLabel: &opts.AxisLabel{Interval: "0", Rotate: rotation(labels)},
		}),
		charts.WithYAxisOpts(opts.YAxis{Name: "probability", Min: 0}),
	)
	bar.SetXAxis(labels).AddSeries("probability", data,
		charts.WithLabelOpts(opts.Label{
			Show:      opts.Bool(true),
			Position:  "top",
			Formatter: opts.FuncOpts(`function (p) { return (100 * p.value).toFixed(1) + '%'; }`),
		}),
	)
	return bar
}

// Series is one named line of a line chart: Values[i] is its value at the
// i-th x label.
type Series struct {
	Name   string
	Values []float64
}

// Lines builds a line chart with one line per series over the x labels, with
// a legend naming the series. Every series must have one value per x label.
func Lines(title string, x []string, series ...Series) *charts.Line {
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Width: chartWidth, Height: chartHeight}),
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Right: "10%"}),
	)
	line.SetXAxis(x)
	for _, s := range series {
		if len(s.Values) != len(x) {
			panic(fmt.Sprintf("notebook.Lines: series %q has %d values for %d x labels", s.Name, len(s.Values), len(x)))
		}
		data := make([]opts.LineData, len(s.Values))
		for i, v := range s.Values {
			data[i] = opts.LineData{Value: v}
		}
		line.AddSeries(s.Name, data)
	}
	return line
}

// TokenLabel makes a token's text readable as a chart label: spaces become
// "␣", newlines "⏎" and tabs "⇥", so " the" and "the" look different, and
// the empty text (an end-of-text token) becomes "∅".
func TokenLabel(text string) string {
	if text == "" {
		return "∅"
	}
	return strings.NewReplacer(" ", "␣", "\n", "⏎", "\t", "⇥").Replace(text)
}

// rotation tilts the x labels when they are many or long, so they do not
// overlap.
func rotation(labels []string) float64 {
	total := 0
	for _, l := range labels {
		total += len([]rune(l))
	}
	if len(labels) > 12 || total > 60 {
		return 45
	}
	return 0
}
