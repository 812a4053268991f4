package notebook

import (
	"fmt"
	"html"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/dom"
	"github.com/janpfeifer/gonb/gonbui/widgets"
)

// Knob is one setting a learner turns with a slider: it runs from Min to
// Max in steps of Step and starts at Value. Format prints a value for its
// label (a fmt verb such as "%.2f"; "" prints it as %g).
type Knob struct {
	Label                 string
	Min, Max, Step, Value float64
	Format                string
}

// positions returns how many slider positions the knob has.
func (k Knob) positions() int {
	return int(math.Round((k.Max-k.Min)/k.Step)) + 1
}

// at returns the value at slider position pos (0 is Min), rounded to the
// step so that 0.1+0.1+0.1 shows as 0.3.
func (k Knob) at(pos int) float64 {
	pos = max(0, min(pos, k.positions()-1))
	v := k.Min + float64(pos)*k.Step
	if v > k.Max {
		v = k.Max
	}
	// Round to the step's decimals (at most 12): a value that is a whole
	// number of steps should read as one.
	decimals := 0
	for s := k.Step; decimals < 12 && math.Abs(s-math.Round(s)) > 1e-9*math.Max(1, math.Abs(s)); s *= 10 {
		decimals++
	}
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

// position returns the slider position nearest to v.
func (k Knob) position(v float64) int {
	return max(0, min(int(math.Round((v-k.Min)/k.Step)), k.positions()-1))
}

// text prints v as the knob's label shows it.
func (k Knob) text(v float64) string {
	if k.Format == "" {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprintf(k.Format, v)
}

// maxPositions bounds a knob's slider: a learner cannot tell more positions
// apart, and every position is a value the view must be able to draw.
const maxPositions = 10_000

// check reports what is wrong with the knob, if anything.
func (k Knob) check() error {
	switch {
	case k.Label == "":
		return fmt.Errorf("a knob needs a label")
	case math.IsNaN(k.Min) || math.IsInf(k.Min, 0) || math.IsNaN(k.Max) || math.IsInf(k.Max, 0) ||
		math.IsNaN(k.Value) || math.IsInf(k.Value, 0) || math.IsNaN(k.Step) || math.IsInf(k.Step, 0):
		return fmt.Errorf("knob %q: Min %v, Max %v, Step %v and Value %v must be finite numbers", k.Label, k.Min, k.Max, k.Step, k.Value)
	case k.Step <= 0:
		return fmt.Errorf("knob %q: Step is %v; it must be positive", k.Label, k.Step)
	case k.Max < k.Min:
		return fmt.Errorf("knob %q: Max %v is below Min %v", k.Label, k.Max, k.Min)
	case (k.Max-k.Min)/k.Step >= maxPositions:
		return fmt.Errorf("knob %q: %v to %v in steps of %v is more than %d positions", k.Label, k.Min, k.Max, k.Step, maxPositions)
	case k.Value < k.Min || k.Value > k.Max:
		return fmt.Errorf("knob %q: Value %v is outside [%v, %v]", k.Label, k.Value, k.Min, k.Max)
	}
	return nil
}

// KnobsIdle is how long the knobs of an Interact cell stay live after the
// last move. While they are live the cell is still running, so the cells
// after it wait; the Done button under the knobs ends it at once.
var KnobsIdle = 2 * time.Minute

// KnobsConnect is how long Interact waits for the browser to answer when it
// puts up the knobs. A notebook run without a browser (a headless run)
// never answers: after this long the cell keeps its first view and ends.
var KnobsConnect = 10 * time.Second

// NoKnobsEnv is the environment variable that, set to anything but "" or
// "0", makes Interact draw only the first view, without knobs and without
// waiting for a browser. The course's headless notebook runs and its
// static site set it.
const NoKnobsEnv = "TOKENBYTOKEN_NO_KNOBS"

// Interact shows view's HTML for the knobs' starting values (see HTML to
// turn a chart into HTML). In JupyterLab it also puts a slider under it for
// each knob, with the knob's label and value: moving one redraws the view
// with the new values, in place. The knobs stay live until the learner
// presses Done or leaves them alone for KnobsIdle; then they go away and the
// last view stays in the cell's output.
//
// Where no browser runs the notebook (a headless run, where GoNB's widgets
// do nothing, or NoKnobsEnv set), the first view is all there is and
// Interact returns at once (after KnobsConnect, if it had to find out).
// Outside a notebook it draws nothing. It returns the values the knobs
// were left at, or an error if a knob is impossible (a value outside its
// range, a step that is not positive...).
func Interact(view func(values []float64) string, knobs ...Knob) ([]float64, error) {
	if len(knobs) == 0 {
		return nil, fmt.Errorf("notebook.Interact: no knobs")
	}
	for _, k := range knobs {
		if err := k.check(); err != nil {
			return nil, fmt.Errorf("notebook.Interact: %w", err)
		}
	}
	var ui knobsUI = noUI{}
	if gonbui.IsNotebook {
		ui = &gonbUI{id: randomID(), live: !knobsOff()}
	}
	return interact(ui, view, knobs, KnobsConnect, KnobsIdle), nil
}

// knobsOff reports whether NoKnobsEnv asks for no knobs.
func knobsOff() bool {
	v := os.Getenv(NoKnobsEnv)
	return v != "" && v != "0"
}

// knobMove is a slider moved to a position.
type knobMove struct{ knob, pos int }

// knobsUI is where Interact draws: a GoNB cell in a browser, or nothing.
type knobsUI interface {
	// view replaces the view's HTML.
	view(html string)
	// knobs puts up the sliders and the Done button and returns their
	// events once the browser has answered. ok is false if it did not
	// answer within connect (or there is no browser); the knobs are then
	// taken down again.
	knobs(knobs []Knob, values []float64, connect time.Duration) (moves <-chan knobMove, done <-chan struct{}, ok bool)
	// label shows knob i's value.
	label(i int, text string)
	// close takes the knobs down, saying why.
	close(why string)
}

// interact runs the knobs on ui: view for the start values, then a redraw
// for every move until done or idle. It returns the last values.
func interact(ui knobsUI, view func([]float64) string, knobs []Knob, connect, idle time.Duration) []float64 {
	values := make([]float64, len(knobs))
	for i, k := range knobs {
		values[i] = k.at(k.position(k.Value))
	}
	ui.view(view(values))
	moves, done, ok := ui.knobs(knobs, values, connect)
	if !ok {
		return values
	}
	timer := time.NewTimer(idle)
	defer timer.Stop()
	for {
		select {
		case m := <-moves:
			if m.knob < 0 || m.knob >= len(knobs) {
				continue
			}
			v := knobs[m.knob].at(m.pos)
			if v == values[m.knob] {
				continue
			}
			values[m.knob] = v
			ui.label(m.knob, knobs[m.knob].text(v))
			ui.view(view(values))
			timer.Reset(idle)
		case <-done:
			ui.close("Done pressed")
			return values
		case <-timer.C:
			ui.close(fmt.Sprintf("no knob moved for %v", idle))
			return values
		}
	}
}

// noUI draws nothing: Interact outside a notebook.
type noUI struct{}

func (noUI) view(string) {}
func (noUI) knobs([]Knob, []float64, time.Duration) (<-chan knobMove, <-chan struct{}, bool) {
	return nil, nil, false
}
func (noUI) label(int, string) {}
func (noUI) close(string)      {}

// gonbUI draws in a GoNB cell, with GoNB's widgets for the knobs.
type gonbUI struct {
	id    string // base of the display and element ids
	live  bool   // whether to put up knobs at all
	shown bool   // whether the view was drawn once
}

func (u *gonbUI) viewID() string     { return "tokenbytoken-view-" + u.id }
func (u *gonbUI) controlsID() string { return "tokenbytoken-knobs-" + u.id }
func (u *gonbUI) labelID(i int) string {
	return fmt.Sprintf("tokenbytoken-knob-%s-%d", u.id, i)
}

func (u *gonbUI) view(h string) {
	// A data attribute that changes with every redraw lets a browser test
	// see that the view was redrawn.
	gonbui.UpdateHTML(u.viewID(), fmt.Sprintf(`<div class="tokenbytoken-view" data-view=%q>%s</div>`, randomID(), h))
	gonbui.Sync()
	u.shown = true
}

func (u *gonbUI) knobs(knobs []Knob, values []float64, connect time.Duration) (<-chan knobMove, <-chan struct{}, bool) {
	if !u.live {
		return nil, nil, false
	}
	// The controls live in a display of their own, so that they can be
	// taken down while the view stays.
	var b strings.Builder
	fmt.Fprintf(&b, `<div id="%s" class="tokenbytoken-knobs" style="font-family: monospace; margin: 0.5em 0">`, u.controlsID())
	for i, k := range knobs {
		fmt.Fprintf(&b, `<div id="%s-row" style="display: flex; gap: 1em; align-items: center">`+
			`<span style="min-width: 12em">%s</span><span id="%s" style="min-width: 5em">%s</span></div>`,
			u.labelID(i), html.EscapeString(k.Label), u.labelID(i), html.EscapeString(k.text(values[i])))
	}
	b.WriteString(`</div>`)
	gonbui.UpdateHTML(u.controlsID()+"-display", b.String())
	gonbui.Sync()

	// Building a widget waits for the browser's first answer; without a
	// browser it never comes, so the widgets are built aside.
	type built struct {
		sliders []*widgets.SliderBuilder
		button  *widgets.ButtonBuilder
	}
	ready := make(chan built, 1)
	go func() {
		var w built
		for i, k := range knobs {
			s := widgets.Slider(0, k.positions()-1, k.position(values[i])).AppendTo(u.labelID(i) + "-row").Done()
			w.sliders = append(w.sliders, s)
		}
		w.button = widgets.Button("Done").AppendTo(u.controlsID()).Done()
		ready <- w
	}()
	var w built
	select {
	case w = <-ready:
	case <-time.After(connect):
		u.close("")
		return nil, nil, false
	}

	moves := make(chan knobMove, len(knobs))
	for i, s := range w.sliders {
		ch := s.Listen().LatestOnly()
		go func() {
			for pos := range ch.C {
				moves <- knobMove{knob: i, pos: pos}
			}
		}()
	}
	done := make(chan struct{})
	clicks := w.button.Listen()
	go func() {
		<-clicks.C
		close(done)
	}()
	return moves, done, true
}

func (u *gonbUI) label(i int, text string) {
	dom.SetInnerText(u.labelID(i), text)
}

func (u *gonbUI) close(why string) {
	msg := ""
	if why != "" {
		msg = fmt.Sprintf(`<div style="font-family: monospace; color: #777">The knobs are closed (%s); run the cell again to turn them.</div>`, html.EscapeString(why))
	}
	gonbui.UpdateHTML(u.controlsID()+"-display", msg)
	gonbui.Sync()
}
