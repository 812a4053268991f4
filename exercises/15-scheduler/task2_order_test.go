package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// seqsOf lists the sequence numbers of reqs, in their order.
func seqsOf(reqs []Request) []int {
	seqs := []int{}
	for _, r := range reqs {
		seqs = append(seqs, r.Seq)
	}
	return seqs
}

// describeRequests writes requests on indented lines.
func describeRequests(reqs []Request, maxWait int) string {
	s := ""
	for _, r := range reqs {
		s += "\n    " + describeRequest(r, maxWait)
	}
	if s == "" {
		s = "\n    (none)"
	}
	return s
}

// TestTask2_Order: the requests that waited too long first, then the
// decoding steps, then the prompts, each group in the order it arrived;
// sequence numbers say nothing about the order.
//
//grade:task 2 points 2
func TestTask2_Order(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 4)
	defer fails.Close()
	for _, c := range []struct {
		reqs    []Request
		maxWait int
		want    []int
		why     string
	}{
		{[]Request{
			withWaited(promptReq(7, 1, 0, 0, 4, 10), 1),
			decodingReq(3, 2, 9, 3),
			withWaited(promptReq(12, 3, 0, 0, 4, 4), 4),
			decodingReq(5, 4, 5, 2),
			withWaited(decodingReq(9, 5, 7, 2), 6),
			promptReq(1, 6, 0, 0, 1, 1),
		}, 4, []int{12, 9, 3, 5, 7, 1}, "waited MaxWait (4) steps or more, then decoding, then the rest; a one-token prompt is not a decoding step: nothing is cached"},
		{[]Request{
			promptReq(4, 10, 0, 0, 4, 9), promptReq(2, 11, 8, 2, 4, 5), promptReq(9, 12, 0, 0, 1, 12),
		}, 16, []int{4, 2, 9}, "prompts only: the order they arrived"},
		{[]Request{
			decodingReq(8, 3, 4, 1), promptReq(6, 5, 0, 0, 4, 4), decodingReq(5, 7, 12, 3), decodingReq(1, 9, 2, 1),
		}, 16, []int{8, 5, 1, 6}, "the decoding steps before the prompt, each in the order they arrived"},
		{[]Request{
			decodingReq(8, 3, 4, 1), withWaited(promptReq(6, 5, 0, 0, 4, 4), 3), withWaited(promptReq(2, 6, 4, 1, 4, 8), 2),
		}, 3, []int{6, 8, 2}, "a prompt that waited MaxWait steps goes before the decoding steps"},
		{[]Request{
			withWaited(promptReq(3, 1, 0, 0, 2, 30), 8), promptReq(4, 2, 0, 0, 1, 30), withWaited(decodingReq(5, 4, 20, 5), 9),
		}, 8, []int{3, 5, 4}, "two that waited too long, in the order they arrived"},
		{[]Request{}, 5, []int{}, "no requests, no order"},
	} {
		in := slices.Clone(c.reqs)
		got := Order(in, c.maxWait)
		if g := seqsOf(got); !slices.Equal(g, c.want) {
			fails.Errorf("Order(requests, maxWait %d) gives the sequences %v; want %v (%s); the requests:%s",
				c.maxWait, g, c.want, c.why, describeRequests(c.reqs, c.maxWait))
		}
	}
}

// TestTask2_OrderRandom: on random requests, Order returns the same
// requests in a new slice, the groups in order and each group in the order
// it arrived, and leaves its argument as it was.
//
//grade:task 2 points 1
func TestTask2_OrderRandom(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(15, 2))
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for range 1000 {
		s := randomStep(r, 3, 1)
		maxWait := s.Budget.MaxWait
		in := slices.Clone(s.Requests)
		got := Order(in, maxWait)
		call := fmt.Sprintf("Order(requests, maxWait %d)", maxWait)
		want := orderRef(s.Requests, maxWait)
		switch {
		case !slices.Equal(in, s.Requests):
			fails.Errorf("%s changed its argument: it holds the sequences %v; want %v, as they arrived; return a new slice%s",
				call, seqsOf(in), seqsOf(s.Requests), describeRequests(s.Requests, maxWait))
		case !slices.Equal(got, want):
			fails.Errorf("%s gives the sequences %v; want %v (waited MaxWait steps or more, then decoding steps, then the rest, each in the order they arrived, every field as it was)%s",
				call, seqsOf(got), seqsOf(want), describeRequests(s.Requests, maxWait))
		case len(got) > 0 && &got[0] == &in[0]:
			fails.Errorf("%s returned its argument's own array; want a new slice, leaving the argument as it is", call)
		}
	}
}
