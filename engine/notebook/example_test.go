package notebook_test

import (
	"fmt"
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
