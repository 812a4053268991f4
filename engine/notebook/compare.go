package notebook

import (
	"fmt"
	"math"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Charts that compare a few series over the same labels: lines with named
// axes (linear or logarithmic) and bars in groups.

// LinesXY builds a line chart like Lines, with the axes named xName and
// yName (the units a reader needs to read the chart).
func LinesXY(title, xName, yName string, x []string, series ...Series) *charts.Line {
	return lineChart("notebook.LinesXY", title, xName, yName, false, x, series)
}

// LogLines builds a line chart with a logarithmic y axis, for values that
// span many orders of magnitude, such as the sorted probabilities of a whole
// vocabulary, where a linear axis would show one spike and a flat line.
// Every series must have one value per x label. Zero and negative values
// have no place on a log axis: they are left out, as gaps in their line.
func LogLines(title, xName, yName string, x []string, series ...Series) *charts.Line {
	return lineChart("notebook.LogLines", title, xName, yName, true, x, series)
}

func lineChart(caller, title, xName, yName string, logY bool, x []string, series []Series) *charts.Line {
	// The name runs along the axis, clear of the tick labels: at the top it
	// would be cut off on the left when long.
	y := opts.YAxis{Name: yName, NameLocation: "middle", NameGap: 58}
	if logY {
		y.Type = "log"
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Width: chartWidth, Height: chartHeight}),
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(legend(len(series))),
		charts.WithGridOpts(opts.Grid{Left: "80", Right: gridRight(len(series)), Top: "60", Bottom: "60"}),
		charts.WithXAxisOpts(opts.XAxis{Name: xName, NameLocation: "middle", NameGap: 28}),
		charts.WithYAxisOpts(y),
	)
	line.SetXAxis(x)
	// Many points: a marker on each would hide the line.
	symbols := opts.Bool(len(x) <= 40)
	for _, s := range series {
		if len(s.Values) != len(x) {
			panic(fmt.Sprintf("%s: series %q has %d values for %d x labels", caller, s.Name, len(s.Values), len(x)))
		}
		data := make([]opts.LineData, len(s.Values))
		for i, v := range s.Values {
			if logY && !(v > 0) {
				data[i] = opts.LineData{Value: "-"} // ECharts' mark for a missing value
				continue
			}
			data[i] = opts.LineData{Value: v}
		}
		line.AddSeries(s.Name, data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: symbols}))
	}
	return line
}

// GroupedBars builds a bar chart with one group per label and, in each
// group, one bar per series, side by side, with a legend naming the series:
// for comparing a few distributions, or a few costs, over the same labels.
// Values can be anything (milliseconds, bytes, log-probabilities); small
// charts label each bar with its value. yName names the value axis. Every
// series must have one value per label.
func GroupedBars(title, yName string, labels []string, series ...Series) *charts.Bar {
	rotate, bottom := rotation(labels), "40"
	if rotate != 0 {
		bottom = "110" // room for long labels written at a slant
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Width: chartWidth, Height: chartHeight}),
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(legend(len(series))),
		charts.WithGridOpts(opts.Grid{Left: "80", Right: gridRight(len(series)), Top: "60", Bottom: bottom}),
		charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Interval: "0", Rotate: rotate}}),
		charts.WithYAxisOpts(opts.YAxis{Name: yName, NameLocation: "middle", NameGap: 50}),
	)
	bar.SetXAxis(labels)
	for _, s := range series {
		if len(s.Values) != len(labels) {
			panic(fmt.Sprintf("notebook.GroupedBars: series %q has %d values for %d labels", s.Name, len(s.Values), len(labels)))
		}
		data := make([]opts.BarData, len(s.Values))
		position := "top"
		for i, v := range s.Values {
			data[i] = opts.BarData{Value: v}
			if v < 0 {
				// "top" would pile the labels of bars that hang down
				// from 0 onto the axis.
				position = "inside"
			}
		}
		bar.AddSeries(s.Name, data, charts.WithLabelOpts(opts.Label{
			// Values on many bars would overlap; the tooltip has them.
			Show:      opts.Bool(len(labels)*len(series) <= 12),
			Position:  position,
			Formatter: opts.FuncOpts(`function (p) { return +p.value.toPrecision(3); }`),
		}))
	}
	return bar
}

// legend lists the series in a column right of the plot, where long series
// names cannot run into the title; a single series needs no legend.
func legend(series int) opts.Legend {
	return opts.Legend{Show: opts.Bool(series > 1), Orient: "vertical", Right: "10", Top: "middle"}
}

// gridRight is the room right of the plot: space for the legend when there
// is one.
func gridRight(series int) string {
	if series > 1 {
		return "180"
	}
	return "40"
}

// roundTo rounds values to a number of decimals, so that a chart's labels
// and tooltips stay short.
func roundTo(values []float64, decimals int) []float64 {
	p := math.Pow(10, float64(decimals))
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = math.Round(v*p) / p
	}
	return out
}
