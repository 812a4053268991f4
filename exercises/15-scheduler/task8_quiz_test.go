package scheduler

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: why a server's throughput grows with its users while each
// user's speed falls.
//
//grade:task 8 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "15-scheduler", 1, "Answer1", Answer1, "abcd", "9a53b74f70d9eddf63f8971a33b24906b6af18e368c68a4abf14b60424d55cda")
}

// TestQuiz2: what a prefix cache saves, and when it cannot help.
//
//grade:task 8 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "15-scheduler", 2, "Answer2", Answer2, "abcd", "3f7f5c92e72a512a206edcf3b236639c6a5eec742b0a48aaf7a3bf29a991a699")
}

// TestQuiz3: why temperature 0 can give two answers on a busy server, and
// what an engine must do about it.
//
//grade:task 8 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "15-scheduler", 3, "Answer3", Answer3, "abcd", "1412e614a322597b30711fdf7e09770921479eb9fd0652df6a4759a6e5aeccd6")
}

// TestQuiz4: why a preempted request's answer does not change.
//
//grade:task 8 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "15-scheduler", 4, "Answer4", Answer4, "abcd", "97a3899b3bb272d3de74027d18b696e9df1305a354c569d3955c1e31333a4465")
}
