package notebook

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/janpfeifer/gonb/gonbui"
)

// DefaultLiveEvery is how often a LiveLines chart is redrawn at most while
// points keep arriving.
const DefaultLiveEvery = 250 * time.Millisecond

// LiveLines is a line chart that grows while a cell runs, such as a loss
// curve during training: every Add appends one x label and one value per
// series, and the chart in the cell's output is redrawn in place (through a
// GoNB display id) instead of printing a new chart each time. Redraws are
// throttled to one per Every; call Done at the end to draw the last points.
//
// A value may be NaN for "not measured here" (a validation loss taken only
// every few steps): that series has a gap at that x, and its measured points
// are still joined by a line.
//
// Outside a GoNB notebook LiveLines only collects the points; HTML and Chart
// still work. A LiveLines is safe for use by several goroutines.
type LiveLines struct {
	// Every is the shortest time between two redraws; NewLiveLines sets it
	// to DefaultLiveEvery.
	Every time.Duration

	mu           sync.Mutex
	title        string
	xName, yName string
	names        []string
	x            []string
	values       [][]float64 // values[s][i]: series s at x[i]
	displayID    string
	lastDraw     time.Time
	drawn        int // len(x) at the last redraw
}

// NewLiveLines starts an empty live chart with the given title, axis names
// and one line per series name.
func NewLiveLines(title, xName, yName string, series ...string) *LiveLines {
	return &LiveLines{
		Every:     DefaultLiveEvery,
		title:     title,
		xName:     xName,
		yName:     yName,
		names:     append([]string(nil), series...),
		values:    make([][]float64, len(series)),
		displayID: "tokenbytoken-live-" + randomID(),
	}
}

// Add appends the point at x label x: one value per series, in the order
// the series were named (NaN for none). In a notebook it redraws the chart
// if the last redraw is at least Every old.
func (l *LiveLines) Add(x string, values ...float64) {
	if len(values) != len(l.names) {
		panic(fmt.Sprintf("notebook.LiveLines.Add: %d values for %d series", len(values), len(l.names)))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.x = append(l.x, x)
	for s, v := range values {
		l.values[s] = append(l.values[s], v)
	}
	if gonbui.IsNotebook && time.Since(l.lastDraw) >= l.Every {
		l.drawLocked()
	}
}

// Len returns the number of points added so far.
func (l *LiveLines) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.x)
}

// Done draws the chart with every point added, if the last redraw missed
// some, and returns once GoNB has received it, so the cell's output ends
// with the complete chart. Outside a notebook it does nothing.
func (l *LiveLines) Done() {
	if !gonbui.IsNotebook {
		return
	}
	l.mu.Lock()
	if l.drawn != len(l.x) || l.lastDraw.IsZero() {
		l.drawLocked()
	}
	l.mu.Unlock()
	gonbui.Sync()
}

// drawLocked replaces the chart in the cell's output; l.mu is held.
func (l *LiveLines) drawLocked() {
	gonbui.UpdateHTML(l.displayID, HTML(l.chartLocked()))
	l.lastDraw = time.Now()
	l.drawn = len(l.x)
}

// HTML returns the HTML fragment of the chart as it is now (see the
// package function HTML).
func (l *LiveLines) HTML() string {
	return HTML(l.Chart())
}

// Chart returns the chart as it is now, built like Lines' charts, with the
// axes named and NaN values left out.
func (l *LiveLines) Chart() *charts.Line {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.chartLocked()
}

func (l *LiveLines) chartLocked() *charts.Line {
	line := Lines(l.title, append([]string(nil), l.x...))
	line.SetGlobalOptions(
		charts.WithXAxisOpts(opts.XAxis{Name: l.xName}),
		charts.WithYAxisOpts(opts.YAxis{Name: l.yName, Scale: opts.Bool(true)}),
		// Redraws replace the whole chart: animating each would only flicker.
		charts.WithAnimation(false),
	)
	for s, name := range l.names {
		data := make([]opts.LineData, len(l.x))
		sparse := false // a series measured now and then gets a dot per point
		for i, v := range l.values[s] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				data[i] = opts.LineData{Value: "-"} // ECharts' "no value"
				sparse = true
			} else {
				data[i] = opts.LineData{Value: v}
			}
		}
		line.AddSeries(name, data,
			charts.WithLineChartOpts(opts.LineChart{ConnectNulls: opts.Bool(true), ShowSymbol: opts.Bool(sparse)}),
		)
	}
	return line
}
