package penalties

import (
	"fmt"
	"math"
)

func BanRepeatedNGrams(logits []float32, history []int, n int) {
	if n < 1 {
		return
	}
	if n-1 > len(history) {
		return
	}
	key := func(ids []int) string { return fmt.Sprint(ids) }
	// followers maps every (n-1)-gram to the tokens seen right after it.
	followers := map[string][]int{}
	for end := n - 1; end < len(history); end++ {
		k := key(history[end-(n-1) : end])
		followers[k] = append(followers[k], history[end])
	}
	negInf := float32(math.Inf(-1))
	for _, tok := range followers[key(history[len(history)-(n-1):])] {
		logits[tok] = negInf
	}
}
