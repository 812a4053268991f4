package notebook

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestKnobPositions(t *testing.T) {
	k := Knob{Label: "temperature", Min: 0.1, Max: 2, Step: 0.1, Value: 0.8}
	if err := k.check(); err != nil {
		t.Fatal(err)
	}
	if got := k.positions(); got != 20 {
		t.Errorf("positions() = %d; want 20 (0.1, 0.2, ..., 2)", got)
	}
	for pos, want := range map[int]float64{0: 0.1, 2: 0.3, 7: 0.8, 19: 2, 25: 2, -3: 0.1} {
		if got := k.at(pos); got != want {
			t.Errorf("at(%d) = %v; want %v", pos, got, want)
		}
	}
	if got := k.position(0.8); got != 7 {
		t.Errorf("position(0.8) = %d; want 7", got)
	}
	topk := Knob{Label: "top-k", Min: 1, Max: 50, Step: 1, Value: 40}
	if got := topk.at(topk.position(40)); got != 40 {
		t.Errorf("top-k at(position(40)) = %v; want 40", got)
	}
	if got := (Knob{Min: 0, Max: 1, Step: 0.05, Format: "%.2f"}).text(0.25); got != "0.25" {
		t.Errorf("text(0.25) with %%.2f = %q; want 0.25", got)
	}
	if got := topk.text(40); got != "40" {
		t.Errorf("text(40) = %q; want 40", got)
	}
}

func TestKnobCheck(t *testing.T) {
	nan := func() float64 { var z float64; return z / z }()
	for _, k := range []Knob{
		{Min: 0, Max: 1, Step: 0.1},                         // no label
		{Label: "x", Min: 0, Max: 1, Step: 0},               // no step
		{Label: "x", Min: 0, Max: 1, Step: -1},              // negative step
		{Label: "x", Min: 1, Max: 0, Step: 0.1, Value: 1},   // empty range
		{Label: "x", Min: 0, Max: 1, Step: 0.1, Value: 2},   // value outside
		{Label: "x", Min: 0, Max: 1, Step: nan},             // not a number
		{Label: "x", Min: 0, Max: 1e9, Step: 1, Value: 0},   // too many positions
		{Label: "x", Min: 0, Max: 1, Step: 0.1, Value: nan}, // not a number
	} {
		if err := k.check(); err == nil {
			t.Errorf("check() of %+v = nil; want an error", k)
		}
		if _, err := Interact(func([]float64) string { return "" }, k); err == nil {
			t.Errorf("Interact with %+v: no error", k)
		}
	}
	if _, err := Interact(func([]float64) string { return "" }); err == nil {
		t.Error("Interact with no knobs: no error")
	}
}

// fakeUI records what interact draws and plays a browser's moves.
type fakeUI struct {
	views   []string
	labels  []string
	closed  string
	connect bool
	moves   chan knobMove
	done    chan struct{}
}

func (f *fakeUI) view(h string) { f.views = append(f.views, h) }
func (f *fakeUI) knobs([]Knob, []float64, time.Duration) (<-chan knobMove, <-chan struct{}, bool) {
	return f.moves, f.done, f.connect
}
func (f *fakeUI) label(i int, text string) {
	f.labels = append(f.labels, fmt.Sprintf("%d=%s", i, text))
}
func (f *fakeUI) close(why string) { f.closed = why }

func sumView(values []float64) string { return fmt.Sprint(values) }

func TestInteractWithoutBrowserDrawsTheFirstView(t *testing.T) {
	ui := &fakeUI{}
	knobs := []Knob{{Label: "a", Min: 0, Max: 1, Step: 0.1, Value: 0.3}, {Label: "k", Min: 1, Max: 10, Step: 1, Value: 4}}
	got := interact(ui, sumView, knobs, time.Second, time.Minute)
	if fmt.Sprint(got) != "[0.3 4]" || len(ui.views) != 1 || ui.views[0] != "[0.3 4]" {
		t.Errorf("interact without a browser returned %v and drew %q; want [0.3 4] drawn once", got, ui.views)
	}
}

func TestInteractRedrawsOnEveryMoveUntilDone(t *testing.T) {
	ui := &fakeUI{connect: true, moves: make(chan knobMove, 8), done: make(chan struct{})}
	knobs := []Knob{{Label: "temperature", Min: 0.1, Max: 2, Step: 0.1, Value: 0.8}, {Label: "top-k", Min: 1, Max: 50, Step: 1, Value: 40}}
	ui.moves <- knobMove{knob: 0, pos: 14} // 1.5
	ui.moves <- knobMove{knob: 1, pos: 9}  // 10
	ui.moves <- knobMove{knob: 1, pos: 9}  // the same again: no redraw
	ui.moves <- knobMove{knob: 5, pos: 1}  // no such knob: ignored
	go func() {
		for len(ui.moves) > 0 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		close(ui.done)
	}()
	got := interact(ui, sumView, knobs, time.Second, time.Minute)
	want := []string{"[0.8 40]", "[1.5 40]", "[1.5 10]"}
	if fmt.Sprint(got) != "[1.5 10]" || strings.Join(ui.views, " ") != strings.Join(want, " ") {
		t.Errorf("interact returned %v and drew %q; want [1.5 10] after drawing %q", got, ui.views, want)
	}
	if strings.Join(ui.labels, " ") != "0=1.5 1=10" {
		t.Errorf("labels shown: %q; want [0=1.5 1=10]", ui.labels)
	}
	if ui.closed != "Done pressed" {
		t.Errorf("closed because %q; want \"Done pressed\"", ui.closed)
	}
}

func TestInteractClosesWhenIdle(t *testing.T) {
	ui := &fakeUI{connect: true, moves: make(chan knobMove), done: make(chan struct{})}
	knobs := []Knob{{Label: "gamma", Min: 1, Max: 8, Step: 1, Value: 4}}
	got := interact(ui, sumView, knobs, time.Second, 20*time.Millisecond)
	if fmt.Sprint(got) != "[4]" || !strings.Contains(ui.closed, "no knob moved") {
		t.Errorf("idle interact returned %v, closed because %q; want [4], closed for no move", got, ui.closed)
	}
}

func TestInteractOutsideANotebookReturnsTheStartValues(t *testing.T) {
	calls := 0
	got, err := Interact(func(v []float64) string { calls++; return "" },
		Knob{Label: "seed", Min: 0, Max: 99, Step: 1, Value: 7})
	if err != nil || fmt.Sprint(got) != "[7]" || calls != 1 {
		t.Errorf("Interact outside a notebook = %v, %v after %d views; want [7], nil after 1", got, err, calls)
	}
}
