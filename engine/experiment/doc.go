// Package experiment runs the experiments of the course's notebooks: it
// generates with the engine and measures what happens (times, FLOPs and
// bytes, memory bandwidth, acceptance rates of speculative decoding,
// repetition, where samples part), and computes the statistics the
// notebooks report (means, shares, distances between distributions). Each
// function is one step of a notebook, tested against references outside
// the notebook.
//
// The results are shown with package engine/notebook; a function here that
// returns a chart or HTML draws the result of one of this package's
// experiments.
package experiment
