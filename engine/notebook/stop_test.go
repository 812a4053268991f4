package notebook

import (
	"slices"
	"testing"
)

func TestNumberedLabels(t *testing.T) {
	if got := NumberedLabels([]string{"a", " b"}); !slices.Equal(got, []string{"1 a", "2 ␣b"}) {
		t.Errorf("NumberedLabels = %q", got)
	}
}
