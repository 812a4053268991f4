//go:build !linux

package main

// limitMemory does nothing where the grader cannot cap a process's memory;
// the time limit still ends a runaway test.
func limitMemory(pid int, bytes int64) {}
