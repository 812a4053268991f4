package notebook

import (
	"testing"
)

func TestTable(t *testing.T) {
	got := Table("n", IntLabels(25, 50), Series{Name: "greedy", Values: []float64{0.33, 0.5}}, Series{Name: "p", Values: []float64{0.004, 1}})
	want := "n   greedy       p\n25    0.33    0.00\n50    0.50    1.00\n"
	if got != want {
		t.Errorf("Table =\n%s\nwant\n%s", got, want)
	}
}
