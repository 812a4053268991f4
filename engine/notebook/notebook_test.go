package notebook

import (
	"regexp"
	"strings"
	"testing"
)

func sampleBars() Chart {
	return ProbabilityBars("Next token", []string{"␣the", "␣a", "␣Lily"}, []float64{0.5, 0.3, 0.2})
}

func TestHTMLWaitsForEChartsBeforeDrawing(t *testing.T) {
	html := HTML(sampleBars())
	call := strings.Index(html, "tokenbytokenDrawChart(\"tokenbytoken-chart-")
	if call < 0 {
		t.Fatalf("no call to the loader in:\n%s", html)
	}
	if def := strings.Index(html, "function tokenbytokenDrawChart("); def < 0 || def > call {
		t.Fatalf("the loader must be defined before it is called:\n%s", html)
	}
	// echarts.init may only run inside the callback the loader calls once
	// ECharts is there, where `echarts` is the callback's parameter.
	callback := strings.Index(html[call:], "function (echarts) {")
	init := strings.Index(html, "echarts.init(")
	if callback < 0 || init < call+callback {
		t.Fatalf("echarts.init runs outside the draw callback:\n%s", html)
	}
	for _, want := range []string{
		`s.onload = function`,                  // script element path waits for load
		`req([name], resolve, reject)`,         // RequireJS path
		`"jupyter-config-data"`,                // finds the Jupyter base URL
		`w.tokenbytokenECharts = p`,            // one load per page
		`This chart needs the ECharts library`, // explains a failed load
	} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

func TestHTMLPrefersTheLocalCopy(t *testing.T) {
	html := HTML(sampleBars())
	local := strings.Index(html, `"`+LocalEChartsPath+`"`)
	cdn := strings.Index(html, `"`+CDNEChartsURL+`"`)
	if local < 0 || cdn < 0 || local > cdn {
		t.Fatalf("want the local path %q passed before the CDN %q:\n%s", LocalEChartsPath, CDNEChartsURL, html)
	}
	// No <script src=...>: a tag like that would draw nothing offline, and
	// its load would race with the drawing code.
	if regexp.MustCompile(`(?i)<script[^>]*\bsrc=`).MatchString(html) {
		t.Errorf("HTML loads a script by tag:\n%s", html)
	}
	if strings.Contains(html, "go-echarts.github.io") || strings.Contains(html, "go-echarts-assets") {
		t.Errorf("HTML refers to go-echarts' online assets:\n%s", html)
	}
}

func TestHTMLGivesEveryRenderingFreshIDs(t *testing.T) {
	chart := sampleBars()
	ids := func(html string) (host, item string) {
		h := regexp.MustCompile(`<div id="(tokenbytoken-chart-[0-9a-f]{16})"`).FindStringSubmatch(html)
		i := regexp.MustCompile(`<div class="item" id="([A-Za-z0-9]+)"`).FindStringSubmatch(html)
		if h == nil || i == nil {
			t.Fatalf("ids not found in:\n%s", html)
		}
		return h[1], i[1]
	}
	first, second := HTML(chart), HTML(chart)
	h1, i1 := ids(first)
	h2, i2 := ids(second)
	if h1 == h2 || i1 == i2 {
		t.Errorf("the same chart shown twice reuses ids: %s/%s and %s/%s", h1, i1, h2, i2)
	}
	// The drawing code must look up the element of its own rendering.
	if !strings.Contains(first, "getElementById('"+i1+"')") || !strings.Contains(second, "getElementById('"+i2+"')") {
		t.Errorf("drawing code does not use its rendering's element id")
	}
}

func TestHTMLKeepsTokenTextInsideTheScript(t *testing.T) {
	bars := ProbabilityBars("tricky tokens", []string{"</script><b>", "<!--", "ok"}, []float64{0.1, 0.2, 0.7})
	html := HTML(bars)
	if n := strings.Count(strings.ToLower(html), "</script"); n != 1 {
		t.Errorf("want exactly one </script (the closing tag), got %d:\n%s", n, html)
	}
	if strings.Contains(html, "<!--") {
		t.Errorf("HTML contains <!--:\n%s", html)
	}
	if !strings.Contains(html, `<\/script><b>`) {
		t.Errorf("the label's text is not kept (escaped) in the chart data:\n%s", html)
	}
}

func TestProbabilityBarsOptions(t *testing.T) {
	option := sampleBars().RenderSnippet().Option
	for _, want := range []string{
		`"type":"bar"`,
		`"data":["␣the","␣a","␣Lily"]`,
		`{"value":0.5}`, `{"value":0.3}`, `{"value":0.2}`,
		`"yAxis":[{"name":"probability","min":0}]`,
		`(100 * p.value).toFixed(1) + '%'`,
		`"text":"Next token"`,
	} {
		if !strings.Contains(option, want) {
			t.Errorf("bar chart option lacks %s:\n%s", want, option)
		}
	}
}

func TestProbabilityBarsRejectsMismatchedLengths(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for 2 labels and 1 probability")
		}
	}()
	ProbabilityBars("bad", []string{"a", "b"}, []float64{1})
}

func TestLinesOptions(t *testing.T) {
	line := Lines("loss", []string{"1", "2", "3"},
		Series{Name: "train", Values: []float64{3, 2, 1.5}},
		Series{Name: "valid", Values: []float64{3.1, 2.4, 0}},
	)
	option := line.RenderSnippet().Option
	for _, want := range []string{
		`"type":"line"`, `"name":"train"`, `"name":"valid"`,
		`"data":["1","2","3"]`, `{"value":1.5}`, `{"value":0}`,
	} {
		if !strings.Contains(option, want) {
			t.Errorf("line chart option lacks %s:\n%s", want, option)
		}
	}
}

func TestLinesRejectsMismatchedLengths(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a series shorter than the x labels")
		}
	}()
	Lines("bad", []string{"1", "2"}, Series{Name: "s", Values: []float64{1}})
}

func TestTokenLabel(t *testing.T) {
	for in, want := range map[string]string{
		" the":    "␣the",
		"the":     "the",
		"\n":      "⏎",
		"a\tb":    "a⇥b",
		"":        "∅",
		"<0x0A>":  "<0x0A>",
		" Once  ": "␣Once␣␣",
	} {
		if got := TokenLabel(in); got != want {
			t.Errorf("TokenLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTokensHTML(t *testing.T) {
	got := TokensHTML([]string{"func", " main", "()", " {\n", "<b>", "\xe2\x82"})
	spans := strings.Count(got, "<span ")
	if spans != 6 {
		t.Errorf("want 6 spans, got %d:\n%s", spans, got)
	}
	for _, want := range []string{
		`>func</span>`,
		`> main</span>`,
		"> {⏎\n</span>",                    // the newline is marked and kept
		`>&lt;b&gt;</span>`,                // token text is escaped, not markup
		`>�</span>`,                        // half a character
		`title="token 1: &#34; main&#34;"`, // exact text on hover
		tokenColors[0], tokenColors[1],
	} {
		if !strings.Contains(got, want) {
			t.Errorf("TokensHTML lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "<b>") {
		t.Errorf("token text became markup:\n%s", got)
	}
}
