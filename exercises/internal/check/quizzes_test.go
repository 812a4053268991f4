package check

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The checkpoint quizzes as a whole: every exercise's quiz.go, the right
// answers in its solution, and the fingerprints its tests compare with. The
// tests of one exercise can only say whether a learner's letter is right;
// these check that the quizzes themselves are sound: that every fingerprint
// belongs to the solution's answer, and that the right choice cannot be told
// by its length alone, the way a learner who skips the notebook would try.

// quizQuestion is one question of a quiz.go, as its doc comment states it.
type quizQuestion struct {
	num     int
	stem    string
	letters string   // the choices' letters, in order: "abcd"
	choices []string // each choice's text, wrapped lines joined by one space
	answer  string   // the value of the question's AnswerN constant
}

// quizCall is one check.Quiz call of an exercise's tests.
type quizCall struct {
	pos                                  string
	exercise, name, choices, fingerprint string
}

var (
	questionHead = regexp.MustCompile(`^Question (\d+)\.\s*`)
	choiceHead   = regexp.MustCompile(`^\s*([a-z])\)\s+(\S.*)$`)
	answerName   = regexp.MustCompile(`^Answer(\d+)$`)
)

func TestQuizzes(t *testing.T) {
	root := repoRoot(t)
	paths, err := filepath.Glob(filepath.Join(root, "exercises", "[0-9][0-9]-*", "quiz.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no exercises/NN-*/quiz.go under %s", root)
	}
	for _, path := range paths {
		dir := filepath.Dir(path)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			checkQuiz(t, root, name)
		})
	}
}

// checkQuiz checks the quiz of exercises/name against its solution and its
// tests.
func checkQuiz(t *testing.T, root, name string) {
	exPath := filepath.Join("exercises", name, "quiz.go")
	solPath := filepath.Join("solutions", name, "quiz.go")
	questions, err := parseQuiz(root, exPath)
	if err != nil {
		t.Fatal(err)
	}
	solution, err := parseQuiz(root, solPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(questions) == 0 {
		t.Fatalf("%s: no questions (a doc comment \"Question N. …\" above each const AnswerN)", exPath)
	}
	for i, q := range questions {
		if q.num != i+1 {
			t.Fatalf("%s: question %d comes where question %d should; number them 1, 2, 3, …", exPath, q.num, i+1)
		}
	}

	// The solution asks the same questions, word for word, and answers each.
	answers := map[int]string{}
	for _, s := range solution {
		i := slices.IndexFunc(questions, func(q quizQuestion) bool { return q.num == s.num })
		switch {
		case i < 0:
			t.Errorf("%s: question %d is not in %s", solPath, s.num, exPath)
			continue
		case s.stem != questions[i].stem:
			t.Errorf("question %d: the stem differs between %s (%q) and %s (%q)", s.num, exPath, questions[i].stem, solPath, s.stem)
		case !slices.Equal(s.choices, questions[i].choices) || s.letters != questions[i].letters:
			t.Errorf("question %d: the choices differ between %s and %s", s.num, exPath, solPath)
		}
		a := Normalize(s.answer)
		if len(a) != 1 || !strings.Contains(questions[i].letters, a) {
			t.Errorf("%s: question %d: Answer%d = %q is not one of the choices %q", solPath, s.num, s.num, s.answer, questions[i].letters)
			continue
		}
		answers[s.num] = a
	}
	for _, q := range questions {
		if !slices.ContainsFunc(solution, func(s quizQuestion) bool { return s.num == q.num }) {
			t.Errorf("%s: question %d has no Answer%d", solPath, q.num, q.num)
		}
	}

	checkLengths(t, exPath, questions, answers)
	checkLetters(t, exPath, questions, answers)
	checkFingerprints(t, root, name, questions, answers)
}

// checkLengths fails if the right choice is the longest, or the shortest, of
// its question in more than a third of the quiz's questions: a learner who
// always picks the longest (or shortest) choice must not pass.
func checkLengths(t *testing.T, exPath string, questions []quizQuestion, answers map[int]string) {
	t.Helper()
	var longest, shortest []string
	for _, q := range questions {
		a, ok := answers[q.num]
		if !ok {
			continue
		}
		right := utf8.RuneCountInString(q.choices[strings.Index(q.letters, a)])
		lengths := make([]string, len(q.choices))
		maxLen, minLen := right, right
		for i, c := range q.choices {
			n := utf8.RuneCountInString(c)
			maxLen, minLen = max(maxLen, n), min(minLen, n)
			lengths[i] = fmt.Sprintf("%c %d", q.letters[i], n)
		}
		desc := fmt.Sprintf("question %d (right: %s, %d runes; choices: %s)", q.num, a, right, strings.Join(lengths, ", "))
		if right == maxLen {
			longest = append(longest, desc)
		}
		if right == minLen {
			shortest = append(shortest, desc)
		}
	}
	limit := len(questions) / 3
	t.Logf("%d questions; the right choice is the longest in %d, the shortest in %d", len(questions), len(longest), len(shortest))
	if len(longest) > limit {
		t.Errorf("%s: the right choice is the longest (ties included) in %d of %d questions, more than %d:\n\t%s",
			exPath, len(longest), len(questions), limit, strings.Join(longest, "\n\t"))
	}
	if len(shortest) > limit {
		t.Errorf("%s: the right choice is the shortest (ties included) in %d of %d questions, more than %d:\n\t%s",
			exPath, len(shortest), len(questions), limit, strings.Join(shortest, "\n\t"))
	}
}

// checkLetters fails if one letter is right more often than an even spread
// over the quiz allows: a quarter of the questions, rounded up.
func checkLetters(t *testing.T, exPath string, questions []quizQuestion, answers map[int]string) {
	t.Helper()
	count := map[string][]int{}
	for _, q := range questions {
		if a, ok := answers[q.num]; ok {
			count[a] = append(count[a], q.num)
		}
	}
	var spread []string
	limit := (len(questions) + 3) / 4
	for _, letter := range "abcd" {
		nums := count[string(letter)]
		spread = append(spread, fmt.Sprintf("%c %d", letter, len(nums)))
		if len(nums) > limit {
			t.Errorf("%s: %q is the right answer of questions %v, more than %d of %d; spread the right letters over a–d",
				exPath, letter, nums, limit, len(questions))
		}
	}
	t.Logf("right letters: %s", strings.Join(spread, ", "))
}

// checkFingerprints checks every check.Quiz call of the exercise's tests
// against the quiz: one call per question, with the question's letters and
// the fingerprint of the solution's answer.
func checkFingerprints(t *testing.T, root, name string, questions []quizQuestion, answers map[int]string) {
	t.Helper()
	calls, err := quizCalls(root, filepath.Join("exercises", name))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range questions {
		call, ok := calls[q.num]
		if !ok {
			t.Errorf("exercises/%s: no test calls check.Quiz for question %d", name, q.num)
			continue
		}
		delete(calls, q.num)
		if call.exercise != name {
			t.Errorf("%s: question %d: check.Quiz names the exercise %q, not %q", call.pos, q.num, call.exercise, name)
		}
		if want := fmt.Sprintf("Answer%d", q.num); call.name != want {
			t.Errorf("%s: question %d: check.Quiz names the constant %q, not %q", call.pos, q.num, call.name, want)
		}
		if call.choices != q.letters {
			t.Errorf("%s: question %d: check.Quiz offers the letters %q; quiz.go's choices are %q", call.pos, q.num, call.choices, q.letters)
		}
		a, ok := answers[q.num]
		if !ok {
			continue
		}
		if want := Hash(name, q.num, a); call.fingerprint != want {
			t.Errorf("%s: question %d: fingerprint %s is not that of the solution's answer %q (%s)", call.pos, q.num, call.fingerprint, a, want)
		}
	}
	for num, call := range calls {
		t.Errorf("%s: check.Quiz for question %d, which quiz.go does not ask", call.pos, num)
	}
}

// parseQuiz reads the questions of a quiz.go, path relative to root: each
// const AnswerN and the doc comment above it, "Question N. stem", then the
// choices "a) …", "b) …", each of which may wrap onto further lines.
func parseQuiz(root, path string) ([]quizQuestion, error) {
	src, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var questions []quizQuestion
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, ident := range vs.Names {
				m := answerName.FindStringSubmatch(ident.Name)
				if m == nil {
					continue
				}
				where := fmt.Sprintf("%s: %s", fset.Position(ident.Pos()), ident.Name)
				num, _ := strconv.Atoi(m[1])
				if len(vs.Values) != len(vs.Names) {
					return nil, fmt.Errorf("%s has no value", where)
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return nil, fmt.Errorf("%s is not a string literal", where)
				}
				answer, err := strconv.Unquote(lit.Value)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", where, err)
				}
				doc := vs.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				if doc == nil {
					return nil, fmt.Errorf("%s has no doc comment with its question", where)
				}
				q, err := parseQuestion(doc.Text())
				if err != nil {
					return nil, fmt.Errorf("%s: %v", where, err)
				}
				if q.num != num {
					return nil, fmt.Errorf("%s: its comment is question %d", where, q.num)
				}
				q.answer = answer
				questions = append(questions, q)
			}
		}
	}
	return questions, nil
}

// parseQuestion reads the text of one question's doc comment.
func parseQuestion(text string) (quizQuestion, error) {
	var q quizQuestion
	lines := strings.Split(strings.TrimSpace(text), "\n")
	m := questionHead.FindStringSubmatch(lines[0])
	if m == nil {
		return q, fmt.Errorf("the comment does not start with \"Question N.\": %q", lines[0])
	}
	q.num, _ = strconv.Atoi(m[1])
	lines[0] = lines[0][len(m[0]):]
	var stem []string
	var choice []string // the lines of the choice being read
	ended := false      // a blank line after the choices
	flush := func() {
		if choice != nil {
			q.choices = append(q.choices, strings.Join(strings.Fields(strings.Join(choice, " ")), " "))
			choice = nil
		}
	}
	for _, line := range lines {
		next := byte('a' + len(q.letters))
		switch c := choiceHead.FindStringSubmatch(line); {
		case strings.TrimSpace(line) == "":
			if q.letters != "" {
				flush()
				ended = true
			}
		case ended:
			return q, fmt.Errorf("question %d: text after its choices: %q", q.num, strings.TrimSpace(line))
		case c != nil && c[1][0] == next:
			flush()
			q.letters += c[1]
			choice = []string{c[2]}
		case c != nil && q.letters != "":
			return q, fmt.Errorf("question %d: choice %s) comes where %c) should", q.num, c[1], next)
		case choice != nil:
			choice = append(choice, line)
		default:
			stem = append(stem, line)
		}
	}
	flush()
	q.stem = strings.Join(strings.Fields(strings.Join(stem, " ")), " ")
	if len(q.letters) < 2 {
		return q, fmt.Errorf("question %d has %d choices; want \"a) …\", \"b) …\" and more, one per line", q.num, len(q.letters))
	}
	return q, nil
}

// quizCalls finds the check.Quiz calls in the tests of an exercise folder,
// dir relative to root, by question number.
func quizCalls(root, dir string) (map[int]quizCall, error) {
	paths, err := filepath.Glob(filepath.Join(root, dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	calls := map[int]quizCall{}
	var errs []error
	fset := token.NewFileSet()
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, filepath.Base(path)), src, 0)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Quiz" {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "check" {
				return true
			}
			pos := fset.Position(call.Pos()).String()
			if len(call.Args) != 7 {
				errs = append(errs, fmt.Errorf("%s: check.Quiz has %d arguments, want 7", pos, len(call.Args)))
				return true
			}
			lits := map[int]string{}
			for _, i := range []int{1, 2, 3, 5, 6} {
				lit, ok := call.Args[i].(*ast.BasicLit)
				if !ok {
					errs = append(errs, fmt.Errorf("%s: argument %d of check.Quiz is not a literal", pos, i+1))
					return true
				}
				v := lit.Value
				if lit.Kind == token.STRING {
					v, _ = strconv.Unquote(v)
				}
				lits[i] = v
			}
			num, err := strconv.Atoi(lits[2])
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: question number %q is not a whole number", pos, lits[2]))
				return true
			}
			if prev, dup := calls[num]; dup {
				errs = append(errs, fmt.Errorf("%s: a second check.Quiz for question %d (the first is at %s)", pos, num, prev.pos))
				return true
			}
			calls[num] = quizCall{pos: pos, exercise: lits[1], name: lits[3], choices: lits[5], fingerprint: lits[6]}
			return true
		})
	}
	return calls, errors.Join(errs...)
}

// repoRoot is the folder above the test's working directory that holds
// go.mod: the root of the course's repository.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod in the working directory or any folder above it")
		}
		dir = parent
	}
}
