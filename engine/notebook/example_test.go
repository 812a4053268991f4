package notebook_test

import (
	"fmt"
	"math"
	"strings"

	"github.com/tokenbytoken/course/engine/notebook"
)

// A notebook cell shows the model's next-token distribution as bars. In a
// GoNB cell Show draws the chart under the cell; in a program or a test it
// does nothing, and HTML gives the fragment that Show would send.
func Example() {
	tokens := []string{" the", " a", " Lily", "\n"}
	probs := []float64{0.46, 0.31, 0.15, 0.08}

	labels := make([]string, len(tokens))
	for i, tok := range tokens {
		labels[i] = notebook.TokenLabel(tok)
	}
	chart := notebook.ProbabilityBars("What comes after “Once upon a time,”?", labels, probs)
	notebook.Show(chart)

	html := notebook.HTML(chart)
	fmt.Println(labels)
	fmt.Println("loads ECharts", notebook.EChartsVersion, "from the Jupyter server first:",
		strings.Contains(html, notebook.LocalEChartsPath))
	// Output:
	// [␣the ␣a ␣Lily ⏎]
	// loads ECharts 5.4.3 from the Jupyter server first: true
}

// A cell with a knob: the view is redrawn for every temperature the
// learner picks with the slider. Outside a notebook (here) Interact draws
// nothing and returns the starting values; in a headless run it draws the
// first view only.
func ExampleInteract() {
	logits := []float64{3, 2, 1, 0.5}
	view := func(v []float64) string {
		t := v[0]
		probs := make([]float64, len(logits))
		sum := 0.0
		for i, l := range logits {
			probs[i] = math.Exp(l / t)
			sum += probs[i]
		}
		for i := range probs {
			probs[i] /= sum
		}
		title := fmt.Sprintf("temperature %.1f", t)
		return notebook.HTML(notebook.ProbabilityBars(title, []string{"A", "B", "C", "D"}, probs))
	}
	values, err := notebook.Interact(view, notebook.Knob{Label: "temperature", Min: 0.1, Max: 2, Step: 0.1, Value: 0.8})
	fmt.Println(values, err)
	// Output:
	// [0.8] <nil>
}
