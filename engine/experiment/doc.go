// Package experiment runs the experiments of the course's notebooks: it
// generates with the engine and measures what happens (times, FLOPs and
// bytes, memory bandwidth, acceptance rates of speculative decoding,
// repetition, where samples part), and computes the statistics the
// notebooks report (means, shares, distances between distributions). Each
// function is one step of a notebook, tested against references outside
// the notebook.
//
// This package returns data (and, at most, a plain-text table of it);
// package engine/notebook draws the data as charts and HTML. Notebook
// imports experiment and not the other way round, so the experiments run
// and are tested without anything to draw on.
package experiment
