// Package notebook shows things in the cells of the course's GoNB
// notebooks: go-echarts charts (Show, HTML and the chart builders), text
// tables, a text's tokens on coloured backgrounds (ShowTokens), labels for
// token texts, knobs that redraw a view while a learner turns them
// (Interact), and charts that grow while a cell runs (LiveLines). It draws
// and formats; the experiments whose results it shows are in package
// engine/experiment, which returns data: the views of its results
// (AnswersChart, SpeculativeRunHTML, ForkHTML, …) take its types, so this
// package imports it and not the other way round.
//
// A chart is sent to the notebook as one HTML fragment: the chart's <div>
// and a script that first makes sure the ECharts library is loaded, then
// draws. ECharts is loaded at most once per page and shared by every chart
// on it. The script looks for it, in order:
//
//  1. already on the page (window.echarts, or loaded by an earlier chart);
//  2. from the course's own Jupyter server, which `make install` sets up to
//     serve ECharts at LocalEChartsPath under its base URL (works offline);
//  3. from CDNEChartsURL (needs the internet).
//
// When the page has RequireJS (classic Notebook, some other front ends),
// ECharts is loaded as an AMD module through it; otherwise through a
// <script> element whose load event starts the drawing. If every source
// fails, the chart's box shows what is missing instead of staying blank.
//
// Typical use in a notebook cell:
//
//	notebook.Show(notebook.ProbabilityBars("Next token", labels, probs))
package notebook

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/go-echarts/go-echarts/v2/render"
	"github.com/janpfeifer/gonb/gonbui"
)

// EChartsVersion is the ECharts release the charts are drawn with. It must
// match the version kernel/install.sh installs.
const EChartsVersion = "5.4.3"

// LocalEChartsPath is where the course's Jupyter server serves ECharts,
// relative to the server's base URL (kernel/install.sh configures it).
const LocalEChartsPath = "static/tokenbytoken/echarts-" + EChartsVersion + ".min.js"

// CDNEChartsURL is the public copy of ECharts that charts fall back to when
// the local one cannot be loaded.
const CDNEChartsURL = "https://cdn.jsdelivr.net/npm/echarts@" + EChartsVersion + "/dist/echarts.min.js"

// Chart is any go-echarts chart: *charts.Bar, *charts.Line, *charts.Pie and
// the others all have this method.
type Chart interface {
	RenderSnippet() render.ChartSnippet
}

// Show displays chart in the output of the running notebook cell, and
// returns once GoNB has received it. Outside a GoNB notebook (in a test or a
// plain program) it does nothing.
func Show(chart Chart) {
	if !gonbui.IsNotebook {
		return
	}
	gonbui.DisplayHTML(HTML(chart))
	// Wait until GoNB has taken the output: a cell's program often ends
	// right after showing a chart, and output still in the pipe is lost.
	gonbui.Sync()
}

// HTML returns the self-contained HTML fragment that draws chart on a
// notebook page: the chart's element and the script that loads ECharts (see
// the package documentation) and then draws it. Every call gives the
// fragment a fresh id, so a chart can be shown several times on one page.
func HTML(chart Chart) string {
	snippet := chart.RenderSnippet()
	element, draw := snippet.Element, scriptBody(snippet.Script)
	// go-echarts keeps a chart's id across renders; give this rendering its
	// own, so that showing the same chart twice draws two charts.
	suffix := randomID()
	if m := chartID.FindStringSubmatch(element); m != nil {
		fresh := "tbt" + suffix
		element = strings.ReplaceAll(element, m[1], fresh)
		draw = strings.ReplaceAll(draw, m[1], fresh)
	}
	id := "tokenbytoken-chart-" + suffix

	var b strings.Builder
	fmt.Fprintf(&b, "<div id=%q class=\"tokenbytoken-chart\">\n", id)
	b.WriteString(element)
	b.WriteString("\n</div>\n<script type=\"text/javascript\">\n")
	b.WriteString(loaderJS)
	fmt.Fprintf(&b, "tokenbytokenDrawChart(%s, %s, %s, function (echarts) {\n%s\n});\n",
		jsString(id), jsString(LocalEChartsPath), jsString(CDNEChartsURL), draw)
	b.WriteString("</script>\n")
	return b.String()
}

// chartID matches the id of the element go-echarts draws into: a random
// string of letters, distinctive enough to replace wherever it occurs.
var chartID = regexp.MustCompile(`<div class="item" id="([A-Za-z]{6,})"`)

// scriptTag matches the opening and closing <script> tags go-echarts wraps
// its drawing code in.
var scriptTag = regexp.MustCompile(`(?is)^\s*<script[^>]*>|</script>\s*$`)

// scriptBody returns the JavaScript inside go-echarts' <script> element,
// made safe to embed in another <script> element: chart data (token texts,
// for one) may contain "</script>" or "<!--", which would end or confuse the
// element. Inside JavaScript strings, "<\/" and "<\!--" read the same.
func scriptBody(script string) string {
	body := scriptTag.ReplaceAllString(script, "")
	body = strings.ReplaceAll(body, "</", `<\/`)
	body = strings.ReplaceAll(body, "<!--", `<\!--`)
	return strings.TrimSpace(body)
}

// jsString quotes s as a JavaScript string literal that is also safe inside
// an HTML <script> element (json.Marshal escapes <, > and &).
func jsString(s string) string {
	q, err := json.Marshal(s)
	if err != nil {
		panic(err) // a Go string always marshals
	}
	return string(q)
}

// randomID returns 16 random hex digits. Each cell of a GoNB notebook runs
// as a new process, so a counter could repeat ids already on the page.
func randomID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return hex.EncodeToString(b[:])
}

// loaderJS defines tokenbytokenDrawChart(hostId, localPath, cdnURL, draw):
// it gets ECharts (once per page, shared through window) and calls
// draw(echarts), or writes an explanation into the chart's host element.
// It is repeated in every fragment so that each one works on its own; the
// definitions are identical, so redefining the function is harmless.
const loaderJS = `function tokenbytokenDrawChart(hostId, localPath, cdnURL, draw) {
  "use strict";
  var w = window;
  var host = document.getElementById(hostId);

  function baseURL() {
    var cfg = document.getElementById("jupyter-config-data");
    if (cfg) {
      try {
        var base = JSON.parse(cfg.textContent).baseUrl;
        if (base) { return base.replace(/\/?$/, "/"); }
      } catch (e) { /* fall through */ }
    }
    if (document.body && document.body.getAttribute("data-base-url")) {
      return document.body.getAttribute("data-base-url").replace(/\/?$/, "/");
    }
    return "/";
  }

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src;
      s.async = true;
      s.onload = function () {
        if (w.echarts && typeof w.echarts.init === "function") {
          resolve(w.echarts);
        } else {
          s.remove();
          reject(new Error(src + " loaded but did not define echarts"));
        }
      };
      s.onerror = function () {
        s.remove();
        reject(new Error("could not load " + src));
      };
      document.head.appendChild(s);
    });
  }

  function loadECharts(sources) {
    if (w.echarts && typeof w.echarts.init === "function") {
      return Promise.resolve(w.echarts);
    }
    if (w.tokenbytokenECharts) {
      return w.tokenbytokenECharts;
    }
    var p;
    var req = w.requirejs || w.require;
    if (typeof req === "function" && typeof req.config === "function" &&
        typeof w.define === "function" && w.define.amd) {
      // ECharts is a UMD bundle: with an AMD loader on the page it registers
      // as a module instead of setting window.echarts.
      p = new Promise(function (resolve, reject) {
        var name = "tokenbytoken-echarts";
        var paths = {};
        paths[name] = sources.map(function (src) { return src.replace(/\.js$/, ""); });
        req.config({ paths: paths });
        req([name], resolve, reject);
      });
    } else {
      p = sources.reduce(function (previous, src) {
        return previous.catch(function () { return loadScript(src); });
      }, Promise.reject(new Error("no source tried")));
    }
    w.tokenbytokenECharts = p;
    p.catch(function () {
      // Let a later chart try again (after make install, or once online).
      if (w.tokenbytokenECharts === p) { delete w.tokenbytokenECharts; }
    });
    return p;
  }

  function showError(text) {
    if (!host) { return; }
    // The chart's empty box would only push the explanation out of view.
    var box = host.querySelector(".container");
    if (box) { box.style.display = "none"; }
    var msg = document.createElement("pre");
    msg.className = "tokenbytoken-chart-error";
    msg.style.whiteSpace = "pre-wrap";
    msg.style.color = "#a40000";
    msg.textContent = text;
    host.appendChild(msg);
  }

  var sources = [baseURL() + localPath, cdnURL];
  loadECharts(sources).then(function (echarts) {
    try {
      draw(echarts);
    } catch (err) {
      showError("Drawing the chart failed: " + err.message);
      throw err;
    }
  }, function (err) {
    showError("This chart needs the ECharts library, which could not be loaded " +
      "(" + err.message + ").\nTried: " + sources.join(", ") + "\n" +
      "Run 'make install' (with npm available) to serve a local copy through " +
      "this Jupyter server, or connect to the internet for the public copy, " +
      "then run the cell again.");
  });
}
`
