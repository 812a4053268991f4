package notebook

import (
	"strings"
	"testing"
	"time"

	"github.com/tokenbytoken/course/engine/experiment"
	"github.com/tokenbytoken/course/engine/schedule"
)

// runs are two hand-made runs: one user at 10 tokens a second, two at 8
// each and 11 together.
func runs() []experiment.UsersRun {
	ms := time.Millisecond
	return []experiment.UsersRun{
		{Users: 1, Elapsed: time.Second, Gens: []experiment.Timed{{End: time.Second, IDs: make([]int, 11)}},
			Stats: schedule.Stats{Steps: 11, Busy: 55 * ms}},
		{Users: 2, Elapsed: 2 * time.Second, Gens: []experiment.Timed{{End: 2500 * ms, IDs: make([]int, 11)}, {End: 1250 * ms, IDs: make([]int, 11)}},
			Stats: schedule.Stats{Steps: 11, Busy: 110 * ms}},
	}
}

// TestUsersChart: a point per run, for all users and for each.
func TestUsersChart(t *testing.T) {
	option := UsersChart("users", runs()).RenderSnippet().Option
	for _, want := range []string{`"data":["1","2"]`, `"name":"all users together"`, `{"value":11}`, `"name":"each user"`, `{"value":10}`, `{"value":6}`, `"name":"users at once"`} {
		if !strings.Contains(option, want) {
			t.Errorf("the chart's option lacks %s:\n%s", want, option)
		}
	}
}

// TestUsersTable: a row per run, the weights read a token falling as the
// tokens of a pass grow.
func TestUsersTable(t *testing.T) {
	got := UsersTable(runs(), 4e6)
	want := "users  tok/s all  tok/s each  tokens a pass  ms a pass  MB of weights a token\n" +
		"1          11.00       10.00           1.00       5.00                   4.00\n" +
		"2          11.00        6.00           2.00      10.00                   2.00\n"
	if got != want {
		t.Errorf("UsersTable =\n%s\nwant\n%s", got, want)
	}
}

// TestTimeline: a bar per request, top to bottom, stacked from its
// arrival (an invisible span) through its wait, prompt and answer.
func TestTimeline(t *testing.T) {
	ms := time.Millisecond
	gens := []experiment.Timed{
		{Arrived: 0, Started: 0, First: 40 * ms, End: 100 * ms},
		{Arrived: 5 * ms, Started: 100 * ms, First: 130 * ms, End: 250 * ms},
	}
	option := Timeline("static", gens).RenderSnippet().Option
	for _, want := range []string{
		`"data":["request 1","request 2"]`, `"inverse":true`, `"stack":"request"`, `"color":"transparent"`,
		`"name":"arrived","type":"bar","stack":"request","data":[{"value":0},{"value":5}]`,
		`"name":"waiting for a place","type":"bar","stack":"request","data":[{"value":0},{"value":95}]`,
		`"name":"prompt, to the first token","type":"bar","stack":"request","data":[{"value":40},{"value":30}]`,
		`"name":"answer","type":"bar","stack":"request","data":[{"value":60},{"value":120}]`,
		`"data":["waiting for a place","prompt, to the first token","answer"]`,
	} {
		if !strings.Contains(option, want) {
			t.Errorf("the chart's option lacks %s:\n%s", want, option)
		}
	}
}

// TestTimelineTo: the time axis ends where it is told to, rounded up to
// 100 ms, or where ECharts likes without an end.
func TestTimelineTo(t *testing.T) {
	gens := []experiment.Timed{{First: 40 * time.Millisecond, End: 100 * time.Millisecond}}
	if option := TimelineTo("to 250 ms", gens, 250*time.Millisecond).RenderSnippet().Option; !strings.Contains(option, `"max":300`) {
		t.Errorf("the chart's option lacks the axis's end at 300:\n%s", option)
	}
	if option := Timeline("no end", gens).RenderSnippet().Option; strings.Contains(option, `"max"`) {
		t.Errorf("a timeline without an end sets one:\n%s", option)
	}
}
