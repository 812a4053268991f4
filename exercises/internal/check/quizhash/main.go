// Command quizhash prints the fingerprint a quiz test stores for an answer,
// for writing new quiz questions (an instructor's hidden tests, say):
//
//	go run ./exercises/internal/check/quizhash 02-softmax 1 b
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: quizhash EXERCISE QUESTION ANSWER   (for example: quizhash 02-softmax 1 b)")
		os.Exit(2)
	}
	q, err := strconv.Atoi(os.Args[2])
	if err != nil || q < 1 {
		fmt.Fprintf(os.Stderr, "quizhash: QUESTION must be a whole number from 1, not %q\n", os.Args[2])
		os.Exit(2)
	}
	fmt.Println(check.Hash(os.Args[1], q, os.Args[3]))
}
