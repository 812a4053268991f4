package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// holders writes requests as their sequence numbers and blocks, in the
// order they arrived: [4 (3 blocks), 8 (0 blocks), …].
func holders(reqs []Request) string {
	s := "["
	for i, r := range reqs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%d (%s)", r.Seq, blocksText(r.Blocks))
	}
	return s + "]"
}

// victimsCase is one call of Victims and what it should give.
type victimsCase struct {
	reqs       []Request
	keep       []int
	free, need int
	want       []int
	ok         bool
	why        string
}

func (c victimsCase) check(fails *check.Limit) {
	reqs, keep := slices.Clone(c.reqs), slices.Clone(c.keep)
	got, ok := Victims(reqs, keep, c.free, c.need)
	if ok != c.ok || !slices.Equal(orEmpty(got), orEmpty(c.want)) {
		fails.Errorf("Victims(requests %s, keep %v, free %d, need %d) = %v, %v; want %v, %v (%s)",
			holders(c.reqs), orEmpty(c.keep), c.free, c.need, orEmpty(got), ok, orEmpty(c.want), c.ok, c.why)
	}
}

// TestTask3_Victims: the newest requests that hold blocks and are not
// kept, as few as free enough; nobody when enough is free already, and
// nobody when all of them would not free enough.
//
//grade:task 3 points 2
func TestTask3_Victims(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 4)
	defer fails.Close()
	reqs := []Request{
		promptReq(4, 1, 12, 3, 4, 8), decodingReq(8, 2, 0, 0), promptReq(2, 3, 8, 2, 4, 4), decodingReq(6, 4, 3, 1), decodingReq(9, 5, 7, 2),
	}
	reqs[1] = promptReq(8, 2, 0, 0, 4, 4) // a new prompt: no blocks
	for _, c := range []victimsCase{
		{reqs, []int{4}, 0, 1, []int{9}, true, "the newest, 9, holds 2 blocks"},
		{reqs, []int{4}, 0, 3, []int{9, 6}, true, "9 and 6 give 3 blocks back, newest first"},
		{reqs, []int{4, 9}, 1, 3, []int{6, 2}, true, "9 is kept; 1 free, and 6 and 2 give 3 more"},
		{reqs, []int{2}, 0, 6, []int{9, 6, 4}, true, "2 is kept, and 8 holds no blocks"},
		{reqs, []int{2}, 0, 7, nil, false, "9, 6 and 4 hold 6 blocks, short of 7: preempt nobody"},
		{reqs, []int{9}, 0, 8, nil, false, "all but 9 hold 6 blocks"},
		{reqs, nil, 2, 2, nil, true, "2 blocks are free already"},
		{reqs, nil, 5, 1, nil, true, "enough is free already"},
		{reqs, []int{9, 6, 2, 4}, 0, 1, nil, false, "only 8 may go, and it holds nothing"},
		{reqs, nil, 0, 11, nil, false, "every block of every request is 8, short of 11"},
		{reqs, nil, 3, 11, []int{9, 6, 2, 4}, true, "3 free and every block there is: 11"},
		{reqs[:2], []int{8}, 0, 2, []int{4}, true, "only 4 may go"},
		{nil, nil, 0, 1, nil, false, "no requests at all"},
	} {
		c.check(fails)
	}
}

// TestTask3_VictimsRandom: on random requests, Victims preempts only
// requests that may go, the newest first, passing none over, and as few as
// free enough; or nobody, when enough is free already or when all that
// may go would not free enough.
//
//grade:task 3 points 2
func TestTask3_VictimsRandom(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(15, 3))
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for range 2000 {
		s := randomStep(r, 0, 1)
		reqs := s.Requests
		var keep []int
		for _, q := range reqs {
			if r.IntN(3) == 0 {
				keep = append(keep, q.Seq)
			}
		}
		r.Shuffle(len(keep), func(i, j int) { keep[i], keep[j] = keep[j], keep[i] })
		free, need := r.IntN(4), 1+r.IntN(10)
		got, ok := Victims(slices.Clone(reqs), slices.Clone(keep), free, need)
		call := fmt.Sprintf("Victims(requests %s, keep %v, free %d, need %d) = %v, %v", holders(reqs), orEmpty(keep), free, need, orEmpty(got), ok)
		if why := victimsProblem(reqs, keep, free, need, got, ok); why != "" {
			fails.Errorf("%s: %s", call, why)
		}
	}
}

// victimsProblem says what is wrong with an answer of Victims, or "".
func victimsProblem(reqs []Request, keep []int, free, need int, got []int, ok bool) string {
	// Those that may go, the newest first, and all they hold.
	var may []Request
	all := 0
	for i := len(reqs) - 1; i >= 0; i-- {
		if q := reqs[i]; q.Blocks > 0 && !slices.Contains(keep, q.Seq) {
			may = append(may, q)
			all += q.Blocks
		}
	}
	switch {
	case free >= need && (!ok || len(got) > 0):
		return fmt.Sprintf("%d blocks are free and %d are needed: want nobody preempted, and true", free, need)
	case free+all < need && (ok || len(got) > 0):
		return fmt.Sprintf("all that may go hold %d blocks, and %d are free: short of %d, so want nobody preempted, and false", all, free, need)
	case free >= need || free+all < need:
		return ""
	case !ok:
		return fmt.Sprintf("preempting frees enough (those that may go hold %d blocks, and %d are free, for %d): want true", all, free, need)
	}
	freed := free
	for i, seq := range got {
		if i >= len(may) || may[i].Seq != seq {
			j := slices.IndexFunc(may, func(q Request) bool { return q.Seq == seq })
			switch {
			case j < 0:
				return fmt.Sprintf("sequence %d may not go: it is kept, holds no blocks, is not a request, or was named already", seq)
			default:
				return fmt.Sprintf("the victim number %d is sequence %d; want %d, the newest that may go and is not preempted yet: the newest first", i+1, seq, may[i].Seq)
			}
		}
		if freed >= need {
			return fmt.Sprintf("%d blocks are free once %v are preempted: %d more are preempted for nothing", freed, got[:i], len(got)-i)
		}
		freed += may[i].Blocks
	}
	if freed < need {
		return fmt.Sprintf("they give back %d blocks, and %d were free: short of %d; want the next newest too", freed-free, free, need)
	}
	return ""
}
