package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestTask7_Scripts: users arriving at a server, step after step, with
// Schedule choosing every step's batch: every plan keeps the rules, and
// every user has its answer at the step the rules give.
//
//grade:task 7 points 3
func TestTask7_Scripts(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for _, c := range []struct {
		sc        script
		done      []int // the step each user's last token runs in
		preempted int
		why       string
	}{
		{script{name: "readers and a newcomer", budget: Budget{Tokens: 4, Chunk: 4, BlockSize: 4, MaxWait: 5}, pool: 60,
			users: []user{{31, 0, 4, 30}, {17, 0, 4, 30}, {52, 0, 4, 30}, {8, 0, 4, 30}, {40, 6, 8, 3}}},
			[]int{35, 39, 39, 42, 18}, 0,
			"four users read long answers, filling every step's 4 tokens; the prompts wait for MaxWait steps, then run first, and so does the newcomer's"},
		{script{name: "a small pool", budget: Budget{Tokens: 8, Chunk: 4, BlockSize: 4, MaxWait: 6}, pool: 8,
			users: []user{{5, 0, 6, 10}, {2, 1, 6, 10}, {9, 2, 6, 10}}},
			[]int{11, 23, 14}, 2,
			"three users need 4 blocks each, and the pool has 8: the newest are preempted, and computed again later"},
		{script{name: "a long prompt in pieces", budget: Budget{Tokens: 6, Chunk: 4, BlockSize: 4, MaxWait: 8}, pool: 40,
			users: []user{{3, 0, 3, 12}, {4, 0, 2, 12}, {6, 3, 22, 2}}},
			[]int{12, 12, 10}, 0,
			"two users read while a prompt of 22 tokens runs in pieces of 4 beside them: they get a token every step"},
	} {
		o := simulate(c.sc, 500)
		switch {
		case o.failure != "":
			fails.Errorf("%s", o.failure)
		case !slices.Equal(o.done, c.done) || o.preempted != c.preempted:
			fails.Errorf("script %q: the users got their last tokens at steps %v, with %d preemptions; want %v, with %d (%s)\n  %s",
				c.sc.name, o.done, o.preempted, c.done, c.preempted, c.why, c.sc.describe())
		}
	}
}

// TestTask7_RandomScripts: random users arriving at random servers: every
// plan keeps the rules, and every user has its answer.
//
//grade:task 7 points 3
func TestTask7_RandomScripts(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(15, 7))
	fails := check.NewLimit(t, 2)
	defer fails.Close()
	for i := range 400 {
		sc := randomScript(r, fmt.Sprintf("random %d", i+1))
		work := 0
		for _, u := range sc.users {
			work += u.prompt + u.answer
		}
		if o := simulate(sc, 20*work+50); o.failure != "" {
			fails.Errorf("%s", o.failure)
		}
	}
}
