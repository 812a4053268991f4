package notebook

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLoaderInNode runs the script of two chart fragments in Node.js against
// a small fake page, in each situation a notebook page can be in, and checks
// what the loader does: which sources it tries and in what order, that it
// loads ECharts once for both charts, that it draws only after the load, and
// what it shows when nothing loads. (The browser test in kernel/ checks the
// real thing in JupyterLab and Chromium.)
func TestLoaderInNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil && os.Getenv("CI") != "" {
		t.Fatal("node is not installed, and CI must run this test")
	}
	if err != nil {
		t.Skip("node is not installed; the loader is still exercised by the browser test (make test)")
	}
	dir := t.TempDir()
	scripts := regexp.MustCompile(`(?s)<script type="text/javascript">\n(.*?)</script>`)
	for i, html := range []string{HTML(sampleBars()), HTML(sampleBars())} {
		m := scripts.FindStringSubmatch(html)
		if m == nil {
			t.Fatalf("no script in:\n%s", html)
		}
		ids := regexp.MustCompile(`id="([^"]+)"`).FindAllStringSubmatch(html, -1)
		var idList []string
		for _, id := range ids {
			idList = append(idList, id[1])
		}
		name := filepath.Join(dir, "chart"+string(rune('0'+i)))
		if err := os.WriteFile(name+".js", []byte(m[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name+".ids", []byte(strings.Join(idList, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	harness := filepath.Join(dir, "harness.js")
	if err := os.WriteFile(harness, []byte(loaderHarness), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, harness, dir, LocalEChartsPath, CDNEChartsURL)
	out, err := cmd.CombinedOutput()
	t.Logf("node:\n%s", out)
	if err != nil {
		t.Fatalf("loader checks failed: %v", err)
	}
}

// loaderHarness is a Node.js program: argv = dir with chart0/1.js and .ids,
// the local path and the CDN URL. It fakes just the DOM the loader touches.
const loaderHarness = `
"use strict";
const assert = require("assert");
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const [dir, localPath, cdnURL] = process.argv.slice(2);
const charts = [0, 1].map(i => ({
  js: fs.readFileSync(path.join(dir, "chart" + i + ".js"), "utf8"),
  ids: fs.readFileSync(path.join(dir, "chart" + i + ".ids"), "utf8").split("\n"),
}));
const tick = () => new Promise(r => setImmediate(r));

function page({ baseUrl, preloaded, amd }) {
  const elements = {};
  const added = [];
  const drawn = [];
  function element(tag) {
    return {
      tagName: tag, children: [], style: {}, attrs: {},
      appendChild(c) { this.children.push(c); if (this === head) { added.push(c); } return c; },
      remove() { this.removed = true; },
      getAttribute(k) { return this.attrs[k] || null; },
      querySelector(sel) {
        if (sel !== ".container") { throw new Error("unexpected selector " + sel); }
        if (!this.box) { this.box = element("div"); }
        return this.box;
      },
    };
  }
  const head = element("head");
  const body = element("body");
  const fakeECharts = {
    init(dom) { assert.ok(dom, "echarts.init got no element"); drawn.push(dom.id); return { setOption(o) { assert.ok(o.series); } }; },
  };
  for (const c of charts) {
    for (const id of c.ids) { const e = element("div"); e.id = id; elements[id] = e; }
  }
  if (baseUrl) {
    elements["jupyter-config-data"] = { textContent: JSON.stringify({ baseUrl }) };
  }
  const g = { document: { head, body, getElementById: id => elements[id] || null, createElement: element }, Promise, JSON, Error, console };
  g.window = g;
  if (preloaded) { g.echarts = fakeECharts; }
  const requireCalls = [];
  if (amd) {
    const req = function (names, ok, fail) { requireCalls.push({ names, ok, fail }); };
    req.config = function (c) { req.paths = c.paths; };
    g.require = req;
    g.define = function () {};
    g.define.amd = {};
  }
  const ctx = vm.createContext(g);
  return {
    g, added, drawn, requireCalls, fakeECharts, elements,
    run(i) { vm.runInContext(charts[i].js, ctx); },
    item(i) { return charts[i].ids.find(id => !id.startsWith("tokenbytoken-chart-")); },
    host(i) { return elements[charts[i].ids.find(id => id.startsWith("tokenbytoken-chart-"))]; },
  };
}

async function main() {
  // 1. ECharts already on the page: both charts draw, nothing is loaded.
  {
    const p = page({ preloaded: true });
    p.run(0); p.run(1); await tick();
    assert.deepStrictEqual(p.drawn, [p.item(0), p.item(1)]);
    assert.strictEqual(p.added.length, 0);
    console.log("ok: draws with an ECharts already on the page");
  }
  // 2. JupyterLab page: one <script> for the local copy under the base URL,
  //    shared by both charts, which draw only after its load event.
  {
    const p = page({ baseUrl: "/user/ann/" });
    p.run(0); p.run(1); await tick();
    assert.strictEqual(p.added.length, 1, "want one script element for two charts");
    assert.strictEqual(p.added[0].src, "/user/ann/" + localPath);
    assert.deepStrictEqual(p.drawn, [], "drew before ECharts loaded");
    p.g.echarts = p.fakeECharts; p.added[0].onload(); await tick();
    assert.deepStrictEqual(p.drawn.sort(), [p.item(0), p.item(1)].sort());
    console.log("ok: loads the local copy once, draws after its load event");
  }
  // 3. Local copy missing: falls back to the CDN.
  {
    const p = page({ baseUrl: "/" });
    p.run(0); await tick();
    assert.strictEqual(p.added[0].src, "/" + localPath);
    p.added[0].onerror(); await tick();
    assert.ok(p.added[0].removed);
    assert.strictEqual(p.added[1].src, cdnURL);
    p.g.echarts = p.fakeECharts; p.added[1].onload(); await tick();
    assert.deepStrictEqual(p.drawn, [p.item(0)]);
    console.log("ok: falls back to the CDN when the local copy is missing");
  }
  // 4. Nothing loads (offline, no local copy): the chart explains, and a
  //    later chart tries again.
  {
    const p = page({});
    p.run(0); await tick();
    p.added[0].onerror(); await tick();
    p.added[1].onerror(); await tick(); await tick();
    const msg = p.host(0).children.find(c => c.className === "tokenbytoken-chart-error");
    assert.ok(msg, "no error message in the chart's box");
    assert.match(msg.textContent, /make install/);
    assert.strictEqual(p.host(0).box.style.display, "none", "the empty chart box is still shown");
    assert.ok(msg.textContent.includes(cdnURL));
    assert.strictEqual(p.g.tokenbytokenECharts, undefined, "a failed load is cached");
    p.run(1); await tick();
    assert.strictEqual(p.added.length, 3, "the next chart did not try again");
    console.log("ok: explains a failed load, and retries for the next chart");
  }
  // 5. RequireJS page: ECharts comes through require, with the local copy
  //    first and the CDN as its fallback path; no script element.
  {
    const p = page({ baseUrl: "/nb/", amd: true });
    p.run(0); p.run(1); await tick();
    assert.strictEqual(p.added.length, 0);
    assert.strictEqual(p.requireCalls.length, 1, "want one require() for two charts");
    const paths = Array.from(Object.values(p.g.require.paths)[0]); // made in the page's realm
    assert.deepStrictEqual(paths, ["/nb/" + localPath.replace(/\.js$/, ""), cdnURL.replace(/\.js$/, "")]);
    p.requireCalls[0].ok(p.fakeECharts); await tick();
    assert.deepStrictEqual(p.drawn.sort(), [p.item(0), p.item(1)].sort());
    console.log("ok: uses RequireJS when the page has it");
  }
}
main().catch(err => { console.error(err); process.exit(1); });
`
