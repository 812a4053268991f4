package notebook

import (
	"slices"
	"testing"
)

func TestCountAndIntLabels(t *testing.T) {
	if got := IntLabels([]int{0, 32}...); !slices.Equal(got, []string{"0", "32"}) {
		t.Errorf("IntLabels = %v", got)
	}
	if got := CountLabels(3); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("CountLabels(3) = %v", got)
	}
}
