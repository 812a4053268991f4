package notebook

import (
	"fmt"
	"math"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/tokenbytoken/course/engine/experiment"
)

// Serving many users at once (notebook 15): the speed of a scheduler's
// users against their number, and the timeline of a run's requests.

// UsersChart draws, against the number of users served at once, the tokens
// all of them got a second (UsersRun.Throughput) and the speed of one of
// them (UsersRun.PerUser).
func UsersChart(title string, runs []experiment.UsersRun) *charts.Line {
	x := make([]string, len(runs))
	all, each := make([]float64, len(runs)), make([]float64, len(runs))
	for i, r := range runs {
		x[i] = fmt.Sprint(r.Users)
		all[i], each[i] = r.Throughput(), r.PerUser()
	}
	return LinesXY(title, "users at once", "tokens a second", x,
		Series{Name: "all users together", Values: roundTo(all, 1)},
		Series{Name: "each user", Values: roundTo(each, 1)})
}

// UsersTable prints the runs a row each: the tokens a second of all users
// and of each, the tokens generated for each batched pass, the mean time
// of a pass, and the megabytes of weights (weightBytes, the model's
// WeightBytes) read for each token generated.
func UsersTable(runs []experiment.UsersRun, weightBytes int64) string {
	labels := make([]string, len(runs))
	cols := make([][]float64, 5)
	for i, r := range runs {
		labels[i] = fmt.Sprint(r.Users)
		for c, v := range []float64{r.Throughput(), r.PerUser(), r.TokensPerStep(), experiment.Milliseconds(r.StepTime()), r.WeightBytesPerToken(weightBytes) / 1e6} {
			cols[c] = append(cols[c], v)
		}
	}
	return Table("users", labels,
		Series{Name: "tok/s all", Values: cols[0]},
		Series{Name: "tok/s each", Values: cols[1]},
		Series{Name: "tokens a pass", Values: cols[2]},
		Series{Name: "ms a pass", Values: cols[3]},
		Series{Name: "MB of weights a token", Values: cols[4]})
}

// Timeline draws each request of a run as a bar along the time since the
// run started: waiting to be handed to the engine (Timed.Arrived to
// Started), its prompt (Started to First: the time to its first token
// once it runs) and its answer (First to End). The first request is at
// the top; times are in milliseconds.
func Timeline(title string, gens []experiment.Timed) *charts.Bar {
	return TimelineTo(title, gens, 0)
}

// TimelineTo is Timeline with the time axis running to end, rounded up to
// a hundred milliseconds (when end is positive), so that the timelines of
// two runs drawn to the same end compare at a glance.
func TimelineTo(title string, gens []experiment.Timed, end time.Duration) *charts.Bar {
	names := make([]string, len(gens))
	offset := make([]opts.BarData, len(gens))
	spans := [3][]opts.BarData{}
	ms := experiment.Milliseconds
	for i, g := range gens {
		names[i] = fmt.Sprintf("request %d", i+1)
		offset[i] = opts.BarData{Value: ms(g.Arrived)}
		for s, v := range []float64{ms(g.Started) - ms(g.Arrived), ms(g.First) - ms(g.Started), ms(g.End) - ms(g.First)} {
			spans[s] = append(spans[s], opts.BarData{Value: max(v, 0)})
		}
	}
	labels := []string{"waiting for a place", "prompt, to the first token", "answer"}
	xAxis := opts.XAxis{Type: "value", Name: "ms since the first request", NameLocation: "middle", NameGap: 28}
	if end > 0 {
		xAxis.Max = math.Ceil(ms(end)/100) * 100 // a round number of milliseconds
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Width: chartWidth, Height: chartHeight}),
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis",
			// Every span of the request, not the invisible one before it.
			Formatter: opts.FuncOpts(`function (ps) { var s = ps[0].name; ps.forEach(function (p) { if (p.seriesName !== 'arrived') s += '<br/>' + p.marker + p.seriesName + ': ' + p.value.toFixed(0) + ' ms'; }); return s; }`)}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Data: labels, Top: "28"}),
		charts.WithGridOpts(opts.Grid{Left: "90", Right: "40", Top: "70", Bottom: "50"}),
		charts.WithXAxisOpts(xAxis),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Inverse: opts.Bool(true)}),
	)
	bar.SetXAxis(names).XYReversal()
	stack := charts.WithBarChartOpts(opts.BarChart{Stack: "request"})
	bar.AddSeries("arrived", offset, stack, charts.WithItemStyleOpts(opts.ItemStyle{Color: "transparent"}))
	for s, name := range labels {
		bar.AddSeries(name, spans[s], stack)
	}
	return bar
}
