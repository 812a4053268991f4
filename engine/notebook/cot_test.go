package notebook

import "testing"

func TestPercents(t *testing.T) {
	if got := Percents([]float64{0.25, 0.756, 1}); got != "[25% 76% 100%]" {
		t.Errorf("Percents = %q", got)
	}
}
