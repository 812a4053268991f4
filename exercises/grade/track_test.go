package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The course's own track: every exercise is complete, its solution passes
// every test, and its untouched stubs fail every test.

func courseTrack(t *testing.T) (string, []*Exercise) {
	t.Helper()
	root, err := findRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	track, err := loadTrack(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return root, track
}

func TestTrackIsComplete(t *testing.T) {
	root, track := courseTrack(t)
	overview, err := os.ReadFile(filepath.Join(root, "exercises", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	notebooks, _ := filepath.Glob(filepath.Join(root, "notebooks", "*.ipynb"))
	plainAnswer := regexp.MustCompile(`Answer\d+\s*=\s*"[a-dA-D]"`)
	for _, ex := range track {
		t.Run(ex.Name, func(t *testing.T) {
			if !strings.Contains(string(overview), "("+ex.Name+"/)") {
				t.Errorf("exercises/README.md does not list %s", ex.Name)
			}
			readme, err := os.ReadFile(filepath.Join(ex.Dir, "README.md"))
			if err != nil {
				t.Fatalf("no README.md: %v", err)
			}
			points := map[int]int{}
			selfCheck := map[int]bool{}
			quiz := false
			for _, test := range ex.Tests {
				points[test.Task] += test.Points
				selfCheck[test.Task] = test.SelfCheck
				quiz = quiz || strings.HasPrefix(test.Name, "TestQuiz")
				// Anyone can work a public quiz's answers out from its
				// fingerprints: it may give feedback, never points.
				if strings.HasPrefix(test.Name, "TestQuiz") && !test.SelfCheck {
					t.Errorf("%s is worth %d points; a public quiz must be a self-check (//grade:task %d selfcheck)", test.Name, test.Points, test.Task)
				}
			}
			for task := 1; task <= len(points); task++ {
				want := fmt.Sprintf("(%d points)", points[task])
				head := regexp.MustCompile(fmt.Sprintf(`(?m)^### Task %d\b.*\(%d points?\)`, task, points[task]))
				if selfCheck[task] {
					want = "(self-check)"
					head = regexp.MustCompile(fmt.Sprintf(`(?m)^### Task %d\b.*\(self-check\)`, task))
				}
				if !head.Match(readme) {
					t.Errorf("README.md has no heading \"### Task %d: … %s\"", task, want)
				}
			}
			if !quiz || !slices.Contains(ex.Stubs, "quiz.go") {
				t.Error("no checkpoint quiz (quiz.go and TestQuiz tests)")
			}
			if !strings.Contains(string(readme), "<details>") {
				t.Error("README.md has no hints (a <details> fold per task)")
			}
			// The exercise and its notebook link to each other.
			num := ex.Name[:2]
			i := slices.IndexFunc(notebooks, func(p string) bool { return strings.HasPrefix(filepath.Base(p), num+"-") })
			if i < 0 {
				t.Fatalf("no notebook numbered %s", num)
			}
			nb := filepath.Base(notebooks[i])
			if !strings.Contains(string(readme), "notebooks/"+nb) {
				t.Errorf("README.md does not link to its notebook, notebooks/%s", nb)
			}
			if data, _ := os.ReadFile(notebooks[i]); !strings.Contains(string(data), "exercises/"+ex.Name) {
				t.Errorf("notebooks/%s does not link to exercises/%s", nb, ex.Name)
			}
			// The solution has the same files as the stubs, and no tests.
			sol := filepath.Join(root, "solutions", ex.Name)
			entries, err := os.ReadDir(sol)
			if err != nil {
				t.Fatalf("no solution: %v", err)
			}
			var files []string
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), "_test.go") {
					t.Errorf("solutions/%s/%s: tests live only in exercises/", ex.Name, e.Name())
				}
				if strings.HasSuffix(e.Name(), ".go") {
					files = append(files, e.Name())
				}
			}
			if !slices.Equal(files, ex.Stubs) {
				t.Errorf("solutions/%s has %v; want the stubs' files %v", ex.Name, files, ex.Stubs)
			}
			if data, err := os.ReadFile(filepath.Join(sol, "quiz.go")); err == nil && plainAnswer.Match(data) {
				t.Errorf("solutions/%s/quiz.go states an answer in plain text: %s", ex.Name, plainAnswer.Find(data))
			}
		})
	}
}

// gradeCourse grades a submission against the course's track, with a time
// limit per test generous enough for a loaded machine.
func gradeCourse(t *testing.T, root, sub string) *Report {
	t.Helper()
	cfg := demoConfig(t, root, sub, "")
	cfg.Jobs = runtime.NumCPU()
	cfg.Limits = Limits{Timeout: 60 * time.Second, Memory: 4 << 30}
	cfg.Budget = 20 * time.Minute
	cfg.Race = raceSupported()
	rep, err := Grade(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Grade: %v", err)
	}
	return rep
}

func TestTrackSolutionsPassEveryTest(t *testing.T) {
	root, track := courseTrack(t)
	rep := gradeCourse(t, root, filepath.Join(root, "solutions"))
	for _, er := range rep.Exercises {
		if er.Compile != "" {
			t.Errorf("solutions/%s does not build:\n%s", er.Name, er.Compile)
			continue
		}
		for _, r := range er.Results {
			if r.Status != StatusPass {
				t.Errorf("solutions/%s: %s (task %d) %s: %s", er.Name, r.Name, r.Task, r.Status, r.Message)
			}
		}
	}
	// go vet on each exercise with its solution in place of the stubs.
	for _, ex := range track {
		replace := map[string]string{}
		for _, stub := range ex.Stubs {
			replace[filepath.Join(ex.Dir, stub)] = filepath.Join(root, "solutions", ex.Name, stub)
		}
		overlay, _ := json.Marshal(map[string]any{"Replace": replace})
		path := filepath.Join(t.TempDir(), "overlay.json")
		if err := os.WriteFile(path, overlay, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "vet", "-overlay", path, "./exercises/"+ex.Name)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go vet on exercises/%s with its solution: %v\n%s", ex.Name, err, out)
		}
	}
}

// TestTrackStubsFailEveryTest grades the stubs as the course ships them: a
// test that passes on a stub checks nothing. The stubs are read from git, at
// the last commit that changed the exercise's tests or solution, so that a
// learner's own work in the exercise folders does not count as a stub; without
// git, the files on disk are the stubs.
func TestTrackStubsFailEveryTest(t *testing.T) {
	root, track := courseTrack(t)
	sub := t.TempDir()
	for _, ex := range track {
		dir := filepath.Join(sub, "exercises", ex.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, stub := range ex.Stubs {
			data, err := committedStub(root, ex, stub)
			if err != nil {
				t.Fatalf("%s/%s: %v", ex.Name, stub, err)
			}
			if err := os.WriteFile(filepath.Join(dir, stub), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	rep := gradeCourse(t, root, sub)
	for _, er := range rep.Exercises {
		if er.Compile != "" {
			t.Errorf("exercises/%s's stubs do not build:\n%s", er.Name, er.Compile)
			continue
		}
		for _, r := range er.Results {
			if r.Status != StatusFail {
				t.Errorf("exercises/%s: %s (task %d) is %q on the untouched stubs; want fail", er.Name, r.Name, r.Task, r.Status)
			}
		}
	}
}

// committedStub returns a stub as committed with its exercise's tests.
func committedStub(root string, ex *Exercise, stub string) ([]byte, error) {
	rel := "exercises/" + ex.Name
	git := func(args ...string) ([]byte, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		return cmd.Output()
	}
	rev, err := git("log", "-1", "--format=%H", "--", rel+"/*_test.go", "solutions/"+ex.Name)
	if err != nil || len(strings.TrimSpace(string(rev))) == 0 {
		return os.ReadFile(filepath.Join(ex.Dir, stub)) // not a git checkout, or not committed yet
	}
	data, err := git("show", strings.TrimSpace(string(rev))+":"+rel+"/"+stub)
	if err != nil {
		return os.ReadFile(filepath.Join(ex.Dir, stub))
	}
	return data, nil
}

// TestClassCopiesAreListed: in a class, code copied from the reference
// solution or from another learner is listed, renamed and reformatted or
// not; the untouched stubs match nothing.
func TestClassCopiesAreListed(t *testing.T) {
	root, track := courseTrack(t)
	var ex *Exercise
	for _, e := range track {
		if e.Name == "04-sampling" {
			ex = e
		}
	}
	if ex == nil {
		t.Fatal("no 04-sampling exercise")
	}
	class := t.TempDir()
	copyExercise := func(learner, from string, edit func(string) string) {
		entries, err := os.ReadDir(from)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(from, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			write(t, class, filepath.Join(learner, "exercises", ex.Name, e.Name()), edit(string(data)))
		}
	}
	same := func(s string) string { return s }
	// Local names changed, comments dropped, lines joined with semicolons.
	disguise := func(s string) string {
		var out []string
		for _, line := range strings.Split(s, "\n") {
			if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "//") {
				continue
			}
			out = append(out, line)
		}
		return strings.NewReplacer("probs", "p", "total", "acc", "sum", "s2", "keep", "kept").Replace(strings.Join(out, "\n"))
	}
	copyExercise("copier", filepath.Join(root, "solutions", ex.Name), disguise)
	copyExercise("friend", filepath.Join(class, "copier", "exercises", ex.Name), same)
	copyExercise("starter", ex.Dir, same)
	pairs := copies(root, class, []string{"copier", "friend", "starter"}, []*Exercise{ex})
	found := map[string]bool{}
	for _, p := range pairs {
		found[p.A+"~"+p.B] = true
		if p.A == "starter" || p.B == "starter" {
			t.Errorf("the untouched stubs match %s (%.2f)", p.B, p.Match.Score)
		}
	}
	for _, want := range []string{"copier~solution", "friend~solution", "copier~friend"} {
		if !found[want] {
			t.Errorf("no match %s; matches: %v", want, pairs)
		}
	}
}
