package parallel_test

import (
	"fmt"

	"github.com/tokenbytoken/course/engine/internal/parallel"
)

// Each worker adds its ranges into its own partial sum, so no two
// goroutines write to one place; the partial sums are added once For
// returns. 0² + 1² + … + 999² is 999·1000·1999/6.
func ExampleFor() {
	partial := make([]int, parallel.Workers())
	parallel.For(1000, true, func(worker, start, end int) {
		for i := start; i < end; i++ {
			partial[worker] += i * i
		}
	})
	sum := 0
	for _, p := range partial {
		sum += p
	}
	fmt.Println(sum, 999*1000*1999/6)
	// Output: 332833500 332833500
}
