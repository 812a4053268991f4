package kvcache

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: why keys and values can be kept.
//
//grade:task 5 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "07-kv-cache", 1, "Answer1", Answer1, "abcd", "489c60400c98e54f1e04f7883adde074e85ae9b943c959051ed523fcdc86c566")
}

// TestQuiz2: positions run with and without a cache.
//
//grade:task 5 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "07-kv-cache", 2, "Answer2", Answer2, "abcd", "35f2b99f4309c1eeb4c589ef1a90627ecefe9528ce91895f33bbc487755c2288")
}

// TestQuiz3: the cache of a large model, with and without GQA.
//
//grade:task 5 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "07-kv-cache", 3, "Answer3", Answer3, "abcd", "2d06d1426841f0e9236a0364cabefa22f287c2ac6132d5789d19d2855fb02833")
}

// TestQuiz4: why prefill is faster per token than decode.
//
//grade:task 5 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "07-kv-cache", 4, "Answer4", Answer4, "abcd", "1fce250ca77b8964af6267b95153ae8febe6b7ecba8a677d5dea1fb3ea4141d0")
}

// TestQuiz5: what streaming does and does not change.
//
//grade:task 5 selfcheck
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "07-kv-cache", 5, "Answer5", Answer5, "abcd", "94fdf87210009048262fa99fc300d77bc4760e933a1d69716996717060d835ec")
}
