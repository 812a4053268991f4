// Package kvcache is exercise 07 of the Token by Token track: attention for
// the newest token over the keys and values of everything before it, and the
// KV cache that keeps those keys and values so that no step recomputes them.
//
// You write causal attention for one query, first for a single head
// (task 1), then for many query heads sharing fewer key/value heads, as
// grouped-query attention does (task 2); a cache that stores each
// position's keys and values and attends over them, giving exactly what the
// uncached computation gives at every position (task 3); and the formulas
// for what the cache costs in memory and saves in work (task 4). The notebook
// 07-kv-cache-prefill-decode.ipynb is the lesson; README.md lists the tasks.
package kvcache

// Attend is one head of attention for one query: how the newest position
// gathers information from every position it can see. Task 1.
//
// keys[t] and values[t] are the key and value of position t of the context
// (the query's own position included, as the last one). Compute
//
//  1. a score per position, the scaled dot product s_t = (q · keys[t]) / √d,
//     where d = len(q) is the head size;
//  2. the attention weights w = softmax(s), computed stably: subtract the
//     largest score before exponentiating, so that scores of ±1000 work;
//  3. the output, the weighted sum Σ_t w_t · values[t].
//
// The result has as many numbers as one value. Return nil when q is empty,
// there are no keys, keys and values differ in number, a key's length is
// not len(q), or the values differ in length. Do not modify the inputs.
//
// Example: q = [1], keys = [[0] [ln 3]], values = [[4] [8]]: the scores are
// 0 and ln 3, the weights 1/4 and 3/4, and the output is [1 + 6] = [7].
func Attend(q []float32, keys, values [][]float32) []float32 {
	return nil
}

// AttendHeads is multi-head attention for one query position, with
// grouped-query attention: nHeads query heads share nKVHeads key/value
// heads. Task 2.
//
// The head size is hs = len(q) / nHeads. q holds the nHeads query heads
// side by side: head h is q[h*hs : (h+1)*hs]. Every keys[t] and values[t]
// holds nKVHeads heads of hs numbers the same way. Query head h attends
// (as Attend does) with key/value head h / (nHeads / nKVHeads): with 8
// query heads and 2 key/value heads, heads 0–3 use key/value head 0 and
// heads 4–7 use head 1. With nKVHeads = nHeads every query head has its
// own keys and values (plain multi-head attention); with nKVHeads = 1 all
// share one (multi-query attention).
//
// The result holds the nHeads outputs side by side, len(q) numbers: head
// h's output is result[h*hs : (h+1)*hs].
//
// Return nil when nHeads or nKVHeads is not positive, nKVHeads does not
// divide nHeads, q is empty or nHeads does not divide len(q), there are no
// keys, keys and values differ in number, or a key or value does not hold
// nKVHeads × hs numbers.
func AttendHeads(q []float32, keys, values [][]float32, nHeads, nKVHeads int) []float32 {
	return nil
}
