package notebook

import (
	"strings"

	"github.com/tokenbytoken/course/engine"
)

// StepsText joins the text of steps.
func StepsText(steps []engine.Step) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(s.Text)
	}
	return b.String()
}
