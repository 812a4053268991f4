package experiment

import (
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine/cot"
	"github.com/tokenbytoken/course/engine/train"
)

func TestFormatsBySize(t *testing.T) {
	direct := []cot.Score{{Problems: 100, Correct: 88, Tokens: 250}, {Problems: 100, Correct: 14, Tokens: 360}, {Problems: 100, Correct: 0, Tokens: 460}}
	steps := []cot.Score{{Problems: 100, Correct: 89, Tokens: 1450}, {Problems: 100, Correct: 100, Tokens: 2460}, {Problems: 100, Correct: 94, Tokens: 3450}}
	got, err := FormatsBySize(direct, steps)
	if err != nil {
		t.Fatal(err)
	}
	// 3450/460 = 7.5 times as many tokens.
	want := "from 2 to 3 digits: the steps model is right on 94% to 100% of the problems, the direct model on 0% to 14%\n" +
		"at 1 digit neither is perfect: the steps model is right on 89 of 100, the direct model on 88 of 100\n" +
		"a 3-digit answer costs 34.5 tokens with steps and 4.6 without: 7.5 times as many"
	if got != want {
		t.Errorf("FormatsBySize =\n%s\nwant\n%s", got, want)
	}

	// One model perfect at one digit; equal accuracies from two digits on.
	steps[0].Correct, steps[2].Correct = 100, 100
	got, err = FormatsBySize(direct, steps)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "right on 100% of the problems") || !strings.Contains(got, "at 1 digit: the steps model is right on 100 of 100") {
		t.Errorf("FormatsBySize with a perfect steps model =\n%s", got)
	}
}

func TestFormatsBySizeErrors(t *testing.T) {
	s := cot.Score{Problems: 10, Correct: 5, Tokens: 20}
	for _, c := range []struct {
		direct, steps []cot.Score
		want          string
	}{
		{[]cot.Score{s, s}, []cot.Score{s}, "2 sizes of direct answers but 1"},
		{[]cot.Score{s}, []cot.Score{s}, "1 sizes"},
		{[]cot.Score{s, {}}, []cot.Score{s, s}, "no problems scored at 2 digits"},
	} {
		if _, err := FormatsBySize(c.direct, c.steps); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FormatsBySize(%v, %v): error %v, want one saying %q", c.direct, c.steps, err, c.want)
		}
	}
}

func TestVoteSummary(t *testing.T) {
	ns := []int{1, 3, 9}
	votes := []cot.Score{{Problems: 60, Correct: 51}, {Problems: 60, Correct: 55}, {Problems: 60, Correct: 57}}
	greedy := cot.Score{Problems: 60, Correct: 56}
	got, err := VoteSummary("steps", ns, votes, greedy)
	if err != nil {
		t.Fatal(err)
	}
	// 51/60 = 85%, 55/60 = 91.7%, 57/60 = 95%, 56/60 = 93.3%.
	want := "steps, right on 60 problems: 85% with one sample, 92% with 3 samples, 95% with 9 samples; 93% greedy\n" +
		"  one sample is 5 problems below greedy decoding; the best vote, of 9 samples, is 1 problem above greedy decoding"
	if got != want {
		t.Errorf("VoteSummary =\n%s\nwant\n%s", got, want)
	}

	// The first of two equal best votes is named; a vote as good as greedy.
	votes = []cot.Score{{Problems: 60, Correct: 49}, {Problems: 60, Correct: 53}, {Problems: 60, Correct: 53}}
	greedy.Correct = 53
	got, err = VoteSummary("direct", ns, votes, greedy)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got, "4 problems below greedy decoding; the best vote, of 3 samples, is as good as greedy decoding") {
		t.Errorf("VoteSummary with a tie =\n%s", got)
	}

	// Without a vote of one sample, no sentence about it.
	got, err = VoteSummary("x", []int{3}, votes[1:2], greedy)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "one sample") {
		t.Errorf("VoteSummary without N = 1 =\n%s", got)
	}
}

func TestVoteSummaryErrors(t *testing.T) {
	g := cot.Score{Problems: 60, Correct: 50}
	if _, err := VoteSummary("x", []int{1, 3}, []cot.Score{g}, g); err == nil || !strings.Contains(err.Error(), "2 vote sizes but 1 scores") {
		t.Errorf("mismatched lengths: error %v", err)
	}
	if _, err := VoteSummary("x", nil, nil, g); err == nil {
		t.Error("no votes: no error")
	}
	if _, err := VoteSummary("x", []int{3}, []cot.Score{{Problems: 59}}, g); err == nil || !strings.Contains(err.Error(), "the vote of 3 scored 59 problems, greedy decoding 60") {
		t.Errorf("different problem counts: error %v", err)
	}
}

func TestTrainingExposure(t *testing.T) {
	tok, err := cot.NewTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range cot.Formats {
		p := cot.Presets["tiny"][f]
		texts := cot.Examples(f, p.Examples, p.ExamplesSeed)
		// The stream the trainer reads, as cot.Data builds it.
		stream, err := train.NewEncoder(tok).EncodeDocuments(texts)
		if err != nil {
			t.Fatal(err)
		}
		read := float64(p.Train.Steps*p.Train.BatchSize*p.Train.Model.SeqLen) / float64(len(stream))
		total := 0
		for d := 1; d <= cot.MaxDigits; d++ {
			e, err := TrainingExposure(p, f, d)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, s := range texts {
				a, _, _ := strings.Cut(s, "+")
				if len(a) == d {
					want++
				}
			}
			if e.Examples != want {
				t.Errorf("%s, %d digits: %d examples, counted %d", f, d, e.Examples, want)
			}
			if e.Read != read {
				t.Errorf("%s, %d digits: read the stream %v times, want %v", f, d, e.Read, read)
			}
			total += e.Examples
		}
		if total != p.Examples {
			t.Errorf("%s: examples of every size add up to %d, the run has %d", f, total, p.Examples)
		}
	}
	e := Exposure{Examples: 30, Distinct: 100, Read: 0.5}
	if got := e.PerProblem(); got != 0.15 {
		t.Errorf("PerProblem of 30 examples over 100 problems read half = %v, want 0.15", got)
	}
	for d, want := range map[int]int{1: 100, 2: 8100, 3: 810000} {
		if got := distinctProblems(d); got != want {
			t.Errorf("distinctProblems(%d) = %d, want %d", d, got, want)
		}
	}
}

func TestTrainingExposureErrors(t *testing.T) {
	p := cot.Presets["tiny"][cot.Direct]
	for _, d := range []int{0, cot.MaxDigits + 1} {
		if _, err := TrainingExposure(p, cot.Direct, d); err == nil || !strings.Contains(err.Error(), "problems of") {
			t.Errorf("%d digits: error %v", d, err)
		}
	}
	p.Examples = 0
	if _, err := TrainingExposure(p, cot.Direct, 1); err == nil || !strings.Contains(err.Error(), "0 training examples") {
		t.Errorf("no examples: error %v", err)
	}
}

func TestCommonestLastDigitAndOffBy(t *testing.T) {
	attempt := func(a, b, answer int, answered bool) cot.Attempt {
		p := lateProblem(t, a, b, 2)
		return cot.Attempt{Problem: p, Answer: answer, Answered: answered, Correct: answered && answer == p.Sum()}
	}
	attempts := []cot.Attempt{
		attempt(25, 40, 66, true),  // sum 65: off by one
		attempt(58, 36, 96, true),  // sum 94: off by two
		attempt(79, 96, 176, true), // sum 175: off by one
		attempt(10, 11, 21, true),  // right
		attempt(30, 16, 46, true),  // right, and the sum ends in 6
		attempt(88, 12, 0, false),  // sum 100: no answer
	}
	// Answers end in 6 four times (66, 96, 176, 46); of the sums
	// 65, 94, 175, 21, 46, 100 one ends in 6.
	if d, n, s := CommonestLastDigit(attempts); d != 6 || n != 4 || s != 1 {
		t.Errorf("CommonestLastDigit = %d, %d answers, %d sums; want 6, 4, 1", d, n, s)
	}
	if near, wrong := OffBy(attempts, 1); near != 2 || wrong != 4 {
		t.Errorf("OffBy(1) = %d of %d wrong; want 2 of 4", near, wrong)
	}
	if near, wrong := OffBy(attempts, 2); near != 3 || wrong != 4 {
		t.Errorf("OffBy(2) = %d of %d wrong; want 3 of 4", near, wrong)
	}
	// A tie goes to the smaller digit; nothing answered gives digit 0.
	tie := []cot.Attempt{attempt(10, 11, 23, true), attempt(10, 12, 21, true)}
	if d, n, s := CommonestLastDigit(tie); d != 1 || n != 1 || s != 1 {
		t.Errorf("CommonestLastDigit on a tie = %d, %d, %d; want 1, 1, 1", d, n, s)
	}
	if d, n, s := CommonestLastDigit(attempts[5:]); d != 0 || n != 0 || s != 1 {
		t.Errorf("CommonestLastDigit without answers = %d, %d, %d; want 0, 0, 1", d, n, s)
	}
}
