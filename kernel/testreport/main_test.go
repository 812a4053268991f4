package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// stream is go test -json output for three packages: one that passes with
// two skipped tests, one whose test fails, and a solutions package without
// tests. (Recorded from go test -json, trimmed.)
const stream = `{"Action":"start","Package":"m/engine"}
{"Action":"run","Package":"m/engine","Test":"TestRef"}
{"Action":"output","Package":"m/engine","Test":"TestRef","Output":"=== RUN   TestRef\n"}
{"Action":"output","Package":"m/engine","Test":"TestRef","Output":"    reference_test.go:23: reference model not present: stat ../shared/models/x.bin: no such file or directory\n"}
{"Action":"output","Package":"m/engine","Test":"TestRef","Output":"--- SKIP: TestRef (0.00s)\n"}
{"Action":"skip","Package":"m/engine","Test":"TestRef","Elapsed":0}
{"Action":"run","Package":"m/engine","Test":"TestRef2"}
{"Action":"output","Package":"m/engine","Test":"TestRef2","Output":"=== RUN   TestRef2\n"}
{"Action":"output","Package":"m/engine","Test":"TestRef2","Output":"    reference_test.go:23: reference model not present: stat ../shared/models/x.bin: no such file or directory\n"}
{"Action":"output","Package":"m/engine","Test":"TestRef2","Output":"--- SKIP: TestRef2 (0.00s)\n"}
{"Action":"skip","Package":"m/engine","Test":"TestRef2","Elapsed":0}
{"Action":"run","Package":"m/engine","Test":"TestOK"}
{"Action":"output","Package":"m/engine","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"m/engine","Test":"TestOK","Output":"--- PASS: TestOK (0.01s)\n"}
{"Action":"pass","Package":"m/engine","Test":"TestOK","Elapsed":0.01}
{"Action":"output","Package":"m/engine","Output":"PASS\n"}
{"Action":"output","Package":"m/engine","Output":"ok  \tm/engine\t0.123s\n"}
{"Action":"pass","Package":"m/engine","Elapsed":0.123}
{"Action":"start","Package":"m/kernel"}
{"Action":"run","Package":"m/kernel","Test":"TestBad"}
{"Action":"output","Package":"m/kernel","Test":"TestBad","Output":"=== RUN   TestBad\n"}
{"Action":"output","Package":"m/kernel","Test":"TestBad","Output":"    kernel_test.go:9: got 1, want 2\n"}
{"Action":"output","Package":"m/kernel","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"m/kernel","Test":"TestBad","Elapsed":0}
{"Action":"output","Package":"m/kernel","Output":"FAIL\n"}
{"Action":"output","Package":"m/kernel","Output":"FAIL\tm/kernel\t0.010s\n"}
{"Action":"fail","Package":"m/kernel","Elapsed":0.01}
{"Action":"start","Package":"m/solutions/01"}
{"Action":"output","Package":"m/solutions/01","Output":"?   \tm/solutions/01\t[no test files]\n"}
{"Action":"skip","Package":"m/solutions/01","Elapsed":0}
`

func TestReport(t *testing.T) {
	var out, log bytes.Buffer
	r := newReport(&out, &log, regexp.MustCompile(`/solutions/`))
	r.module = "m"
	if err := r.read(strings.NewReader(stream)); err != nil {
		t.Fatal(err)
	}
	r.finish()
	want := "ok  \tm/engine\t0.123s\n" +
		"=== RUN   TestBad\n    kernel_test.go:9: got 1, want 2\n--- FAIL: TestBad (0.00s)\n" +
		"FAIL\tm/kernel\t0.010s\n" +
		"FAIL\n"
	if out.String() != want {
		t.Errorf("stdout\n%s\nwant\n%s", out.String(), want)
	}
	if !r.failed {
		t.Error("a failing test must fail the report")
	}
	for _, s := range []string{"--- PASS: TestOK", "--- SKIP: TestRef", "?   \tm/solutions/01\t[no test files]"} {
		if !strings.Contains(log.String(), s) {
			t.Errorf("the log lacks %q:\n%s", s, log.String())
		}
	}
	wantSkipped := "skipped: 2 tests\n" +
		"  engine: reference model not present: stat ../shared/models/x.bin: no such file or directory\n" +
		"      TestRef, TestRef2\n"
	if got := r.skippedText(); got != wantSkipped {
		t.Errorf("skipped\n%s\nwant\n%s", got, wantSkipped)
	}
}

func TestReportPassing(t *testing.T) {
	var out bytes.Buffer
	r := newReport(&out, &bytes.Buffer{}, nil)
	passing := strings.Join(strings.SplitAfter(stream, "\n")[:18], "")
	if err := r.read(strings.NewReader(passing)); err != nil {
		t.Fatal(err)
	}
	r.finish()
	if r.failed || out.String() != "ok  \tm/engine\t0.123s\n" {
		t.Errorf("failed %v, stdout %q", r.failed, out.String())
	}
}

func TestReportBuildFailure(t *testing.T) {
	const build = `{"ImportPath":"m/engine [m/engine.test]","Action":"build-output","Output":"# m/engine [m/engine.test]\n"}
{"ImportPath":"m/engine [m/engine.test]","Action":"build-output","Output":"engine/x_test.go:3:2: undefined: y\n"}
{"ImportPath":"m/engine [m/engine.test]","Action":"build-fail"}
{"Action":"start","Package":"m/engine"}
{"Action":"output","Package":"m/engine","Output":"FAIL\tm/engine [build failed]\n"}
{"Action":"fail","Package":"m/engine","Elapsed":0}
`
	var out bytes.Buffer
	r := newReport(&out, &bytes.Buffer{}, nil)
	if err := r.read(strings.NewReader(build)); err != nil {
		t.Fatal(err)
	}
	r.finish()
	want := "# m/engine [m/engine.test]\nengine/x_test.go:3:2: undefined: y\nFAIL\tm/engine [build failed]\nFAIL\n"
	if !r.failed || out.String() != want {
		t.Errorf("failed %v, stdout\n%s\nwant\n%s", r.failed, out.String(), want)
	}
}
