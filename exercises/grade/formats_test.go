package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// halfDoneWithHidden grades a submission that passes task 1 only, with one
// hidden test that passes.
func halfDoneWithHidden(t *testing.T) (root, sub, hidden string, rep *Report) {
	root = demoTrack(t)
	hidden = t.TempDir()
	write(t, hidden, "01-demo/extra_test.go", "package demo\n\nimport \"testing\"\n\n// TestHidden_AddZero is hidden.\n//\n//grade:task 3 points 2\nfunc TestHidden_AddZero(t *testing.T) {\n\tif Add(0, 0) != 0 {\n\t\tt.Error(\"Add(0, 0) != 0\")\n\t}\n}\n")
	sub = submission(t, map[string]string{"exercises/01-demo/demo.go": strings.Replace(demoSolution, "2 * x", "x", 1)})
	return root, sub, hidden, gradeDemo(t, root, sub, hidden)
}

func TestJSONReport(t *testing.T) {
	_, _, _, rep := halfDoneWithHidden(t)
	var b bytes.Buffer
	if err := writeJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	var got jsonReport
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	if got.Score != 6 || got.MaxScore != 9 || got.Public != (jsonScore{4, 7}) || got.Hidden != (jsonScore{2, 2}) {
		t.Errorf("totals %d/%d, public %v, hidden %v; want 6/9, {4 7}, {2 2}", got.Score, got.MaxScore, got.Public, got.Hidden)
	}
	if len(got.Tests) != 5 {
		t.Fatalf("%d tests; want 5", len(got.Tests))
	}
	double := got.Tests[2]
	if double.Name != "TestTask2_Double" || double.Status != "fail" || double.Points != 0 || double.MaxPoints != 3 ||
		double.Message != "Double(21) = 21; want 42" || double.Exercise != "01-demo" || double.Task != 2 || double.Hidden {
		t.Errorf("the failing test reads %+v", double)
	}
	if h := got.Tests[3]; !h.Hidden || h.Name != "TestHidden_AddZero" || h.Status != "pass" {
		t.Errorf("the hidden test reads %+v", h)
	}
}

func TestJUnitReport(t *testing.T) {
	_, _, _, rep := halfDoneWithHidden(t)
	var b bytes.Buffer
	if err := writeJUnit(&b, rep); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name       string `xml:"name,attr"`
			Tests      int    `xml:"tests,attr"`
			Failures   int    `xml:"failures,attr"`
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	if got.Tests != 5 || got.Failures != 1 || len(got.Suites) != 2 {
		t.Fatalf("%d tests, %d failures, %d suites; want 5, 1, 2\n%s", got.Tests, got.Failures, len(got.Suites), b.String())
	}
	s := got.Suites[0]
	if s.Name != "01-demo" || s.Tests != 4 || s.Failures != 1 || s.Cases[2].Failure == nil || s.Cases[3].Name != "TestHidden_AddZero (hidden)" {
		t.Errorf("suite 01-demo reads %+v", s)
	}
	props := map[string]string{}
	for _, p := range s.Properties {
		props[p.Name] = p.Value
	}
	if props["points"] != "5" || props["max_points"] != "8" || props["points.TestTask1_Add"] != "2/2" {
		t.Errorf("properties %v; want points 5, max_points 8, points.TestTask1_Add 2/2", props)
	}
}

func TestMarkdownAndClassroomReports(t *testing.T) {
	_, _, _, rep := halfDoneWithHidden(t)
	var md bytes.Buffer
	if err := writeMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if first := firstLine(md.String()); first != "## Exercises: 6/9 points" {
		t.Errorf("Markdown starts %q; want the totals first", first)
	}
	for _, want := range []string{"public tests: 4/7; with hidden tests: 6/9", "| 01-demo | 2/3 | 5/8 |", "TestTask2&#95;Double"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	var cl bytes.Buffer
	if err := writeClassroom(&cl, rep); err != nil {
		t.Fatal(err)
	}
	var got classroomReport
	if err := json.Unmarshal(cl.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, test := range got.Tests {
		sum += test.Score
	}
	if got.Version != 1 || got.Status != "fail" || got.MaxScore != 9 || sum != 6 || len(got.Tests) != 5 {
		t.Errorf("classroom report: version %d, status %s, max %d, scores adding to %d over %d tests; want 1, fail, 9, 6, 5", got.Version, got.Status, got.MaxScore, sum, len(got.Tests))
	}
}

func TestEventsRecord(t *testing.T) {
	_, _, _, rep := halfDoneWithHidden(t)
	var b bytes.Buffer
	if err := writeEvents(&b, rep); err != nil {
		t.Fatal(err)
	}
	final := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var ev struct{ Action, Package, Test, Output string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not a test2json event: %q: %v", line, err)
		}
		if ev.Test != "" && (ev.Action == "pass" || ev.Action == "fail") {
			final[ev.Package+"/"+ev.Test] = ev.Action
		}
	}
	want := map[string]string{"01-demo/TestTask1_Add": "pass", "01-demo/TestTask2_Double": "fail", "01-demo/TestHidden_AddZero": "pass", "02-other/TestTask1_Hello": "pass"}
	for k, v := range want {
		if final[k] != v {
			t.Errorf("events record %s as %q; want %q\n%s", k, final[k], v, b.String())
		}
	}
}

func TestCommandLine(t *testing.T) {
	root, sub, hidden, _ := halfDoneWithHidden(t)
	t.Chdir(root)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"-submission", sub, "-hidden", hidden, "-timeout", "5s",
		"-json", filepath.Join(out, "r.json"), "-junit", filepath.Join(out, "r.xml"),
		"-markdown", filepath.Join(out, "r.md"), "-classroom", filepath.Join(out, "c.json")}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d; want 0 (a low score is not an error)\n%s", code, stderr.String())
	}
	for _, f := range []string{"r.json", "r.xml", "r.md", "c.json"} {
		if info, err := os.Stat(filepath.Join(out, f)); err != nil || info.Size() == 0 {
			t.Errorf("report %s not written: %v", f, err)
		}
	}
	if !strings.Contains(stdout.String(), "public tests: 4/7; with hidden tests: 6/9") {
		t.Errorf("table does not end with the totals:\n%s", stdout.String())
	}
	if code := run([]string{"-submission", sub, "-min-score", "7"}, &stdout, &stderr); code != 1 {
		t.Errorf("-min-score 7 with 4 points: exit %d; want 1", code)
	}
	for _, args := range [][]string{{"-j", "0"}, {"-timeout", "-5s"}, {"-memory", "1"}, {"99-nothing"}, {"-nosuchflag"}} {
		stderr.Reset()
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("grade %v: exit %d; want 2, a usage error (%s)", args, code, stderr.String())
		}
	}
	if code := run([]string{"-submission", filepath.Join(root, "nowhere")}, &stdout, &stderr); code != 3 {
		t.Errorf("a missing submission: exit %d; want 3", code)
	}
}

func TestClass(t *testing.T) {
	root := demoTrack(t)
	t.Chdir(root)
	class := t.TempDir()
	for name, files := range map[string]map[string]string{
		"ada":   nil,
		"brian": {"exercises/01-demo/demo.go": demoStub},
		"carol": {"exercises/02-other/other.go": "package other\n\nfunc Hello() string { for {} }\n"},
	} {
		sub := submission(t, files)
		if err := os.Rename(sub, filepath.Join(class, name)); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "grades")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-submissions", class, "-out", out, "-timeout", "2s"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	f, err := os.Open(filepath.Join(out, "class.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"learner", "01-demo", "02-other", "score", "max_score", "matches", "note"},
		{"ada", "6", "1", "7", "7", "", ""},
		{"brian", "0", "1", "1", "7", "", ""},
		{"carol", "6", "0", "6", "7", "", ""},
	}
	if len(rows) != len(want) {
		t.Fatalf("class.csv has %d rows: %v; want %v", len(rows), rows, want)
	}
	for i := range want {
		if strings.Join(rows[i], ",") != strings.Join(want[i], ",") {
			t.Errorf("class.csv row %d = %v; want %v", i, rows[i], want[i])
		}
	}
	if _, err := os.Stat(filepath.Join(out, "similarity.csv")); err != nil {
		t.Errorf("similarity.csv: %v", err)
	}
	for _, f := range []string{"report.txt", "report.json", "junit.xml", "summary.md", "classroom.json", "events.json"} {
		if _, err := os.Stat(filepath.Join(out, learnersDir, "carol", f)); err != nil {
			t.Errorf("carol's %s: %v", f, err)
		}
	}
}
