// Browser test, in headless Chromium, in two parts:
//
//  1. Run: opens a notebook in JupyterLab, runs all its cells, and checks
//     that its chart really drew. It starts its own JupyterLab
//     (kernel/.venv) on 127.0.0.1, on a free port, with a random token, and
//     lets the page reach only that server: the chart must draw with the
//     ECharts copy the server hosts, as it would offline. Autosave is off in
//     a throwaway settings directory, and the notebook file is checked to be
//     unchanged at the end.
//  2. Knobs: runs notebook 04 in JupyterLab up to and including its knob
//     cell (notebook.Interact), waits for the sliders, moves the top-p
//     slider as a learner's drag ends (a "change" event), and checks that
//     the view was redrawn (its data-view attribute changed) and that the
//     chart drawn in it shows other numbers (read from its ECharts
//     instance); then presses Done, and the cell must end. Screenshots of
//     the cell before and after the move: knob-before.png, knob-after.png.
//  3. Open and save: a second JupyterLab serves a copy of every notebook.
//     Each is opened as a learner would (its GoNB kernel starts and answers
//     with its language_info, which JupyterLab copies into the notebook),
//     must not be marked modified, and is saved; the saved file must be
//     byte for byte the committed one. This is what keeps a learner's git
//     status clean: the committed metadata is what JupyterLab writes.
//  4. Site: builds the static site (kernel/site.py, from the notebooks'
//     executed copies when `make notebooks` has left them, else running
//     them) into a scratch folder and opens it from disk with every network
//     request blocked: the index must list every lesson and exercise, a
//     lesson's chart must draw with the bundled ECharts, and the links from
//     the index to a lesson, from the lesson to its exercise and back must
//     lead to the site's own pages.
//
// Screenshots and the servers' logs go to kernel/.artifacts/browser/.
//
// Anything missing (Chromium, playwright-core, the install) is a failure,
// never a skip.
//
// Usage: node kernel/browser_test.mjs [notebooks/NAME.ipynb]   (the notebook to run; default 01)
// Environment: CHROMIUM (default: chromium on PATH, then /usr/bin/chromium),
// BROWSER_TEST_TIMEOUT (seconds for running all cells, default 600).

import { spawn, execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const KERNEL = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(KERNEL);
const ARTIFACTS = path.join(KERNEL, ".artifacts", "browser");
const ECHARTS = path.join(KERNEL, ".static", "tokenbytoken", "echarts-5.4.3.min.js");
const RUN_TIMEOUT_MS = 1000 * Number(process.env.BROWSER_TEST_TIMEOUT || 600);

const CHROMIUM_FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

function log(msg) {
  console.log(`browser: ${msg}`);
}

class Failure extends Error {}

function fail(msg) {
  throw new Failure(msg);
}

function findChromium() {
  const candidates = [];
  if (process.env.CHROMIUM) {
    try {
      fs.accessSync(process.env.CHROMIUM, fs.constants.X_OK);
      return process.env.CHROMIUM;
    } catch {
      fail(`CHROMIUM=${process.env.CHROMIUM} is not an executable file`);
    }
  }
  for (const dir of (process.env.PATH || "").split(path.delimiter)) {
    if (dir) candidates.push(path.join(dir, "chromium"));
  }
  candidates.push("/usr/bin/chromium");
  for (const c of candidates) {
    try {
      fs.accessSync(c, fs.constants.X_OK);
      return c;
    } catch {
      // next
    }
  }
  fail("Chromium not found (set CHROMIUM=/path/to/chromium; on Debian: apt-get install -y chromium)");
}

function loadPlaywright() {
  const require = createRequire(path.join(KERNEL, "package.json"));
  try {
    return require("playwright-core");
  } catch (err) {
    fail(`playwright-core is not installed in kernel/node_modules (run 'make install' with npm available): ${err.message}`);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function sha256(file) {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

function writeJSON(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
}

// startLab starts JupyterLab on root (default notebooks/) and resolves once
// it answers. name tells its files apart in tmp and kernel/.artifacts/browser.
async function startLab(tmp, { root = path.join(ROOT, "notebooks"), name = "jupyterlab", extra = [] } = {}) {
  const jupyter = path.join(KERNEL, ".venv", "bin", "jupyter");
  if (!fs.existsSync(jupyter)) fail("kernel/.venv is missing: run 'make install'");
  const port = await freePort();
  const token = randomBytes(24).toString("hex");
  // Throwaway user settings: no autosave (the committed notebook must stay
  // as it is), and every cell rendered, so outputs exist in the page even
  // when scrolled out of view.
  const settings = path.join(tmp, name, "settings");
  writeJSON(path.join(settings, "@jupyterlab", "docmanager-extension", "plugin.jupyterlab-settings"), { autosave: false });
  writeJSON(path.join(settings, "@jupyterlab", "notebook-extension", "tracker.jupyterlab-settings"), { windowingMode: "none" });
  const args = [
    "lab", "--no-browser",
    "--ServerApp.ip=127.0.0.1", `--ServerApp.port=${port}`, "--ServerApp.port_retries=0",
    `--IdentityProvider.token=${token}`,
    `--ServerApp.root_dir=${root}`,
    `--LabApp.user_settings_dir=${settings}`,
    `--LabApp.workspaces_dir=${path.join(tmp, name, "workspaces")}`,
    ...extra,
  ];
  if (process.getuid && process.getuid() === 0) args.push("--allow-root");
  const logPath = path.join(ARTIFACTS, `${name}.log`);
  const logFd = fs.openSync(logPath, "w");
  // GoNB's own log (kernel/.bin/gonb-kernel appends it there).
  const gonbLog = path.join(ARTIFACTS, `${name}-gonb.log`);
  fs.rmSync(gonbLog, { force: true });
  const env = { ...process.env, JUPYTER_RUNTIME_DIR: path.join(tmp, name, "runtime"), GONB_LOG_FILE: gonbLog };
  const proc = spawn(jupyter, args, { env, stdio: ["ignore", logFd, logFd], detached: true });
  let exited = null;
  proc.on("exit", (code, signal) => { exited = code ?? signal; });
  const base = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (exited !== null) fail(`JupyterLab exited (${exited}) while starting; see ${path.relative(ROOT, logPath)}`);
    if (Date.now() > deadline) fail(`JupyterLab did not answer within 90s; see ${path.relative(ROOT, logPath)}`);
    try {
      const res = await fetch(`${base}api/status?token=${token}`);
      if (res.ok) break;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    base, token, logPath,
    async waitForKernelConnection(notebook) {
      const until = Date.now() + 120_000;
      for (;;) {
        const res = await fetch(`${base}api/sessions?token=${token}`);
        const sessions = res.ok ? await res.json() : [];
        const s = sessions.find((x) => x.path === notebook);
        if (s && s.kernel && s.kernel.connections > 0) {
          if (s.kernel.name !== "gonb") fail(`${notebook} started kernel ${s.kernel.name}, want gonb`);
          return;
        }
        if (Date.now() > until) fail(`no kernel connection for ${notebook} after 120s: ${JSON.stringify(sessions)}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    },
    async stop() {
      if (exited !== null) return;
      try {
        await fetch(`${base}api/shutdown?token=${token}`, { method: "POST" });
      } catch {
        // fall through to the signal
      }
      for (let i = 0; i < 40 && exited === null; i++) await new Promise((r) => setTimeout(r, 250));
      if (exited === null) process.kill(-proc.pid, "SIGTERM");
    },
  };
}

async function main() {
  const notebookArg = process.argv[2] || fs.readdirSync(path.join(ROOT, "notebooks")).filter((n) => /^01-.*\.ipynb$/.test(n)).map((n) => path.join("notebooks", n))[0];
  if (!notebookArg) fail("no notebooks/01-*.ipynb to open");
  const notebookPath = path.resolve(ROOT, notebookArg);
  const name = path.basename(notebookPath);
  if (path.dirname(notebookPath) !== path.join(ROOT, "notebooks")) fail(`${notebookArg} is not in notebooks/`);
  if (!fs.existsSync(ECHARTS)) fail(`${path.relative(ROOT, ECHARTS)} is missing: run 'make install' with npm available`);
  const chromiumPath = findChromium();
  const { chromium } = loadPlaywright();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const version = execFileSync(chromiumPath, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  log(version);

  const parts = [
    ["run", () => runNotebook(chromium, chromiumPath, notebookPath)],
    ["knobs", () => turnKnobs(chromium, chromiumPath)],
    ["open and save", () => openAndSave(chromium, chromiumPath)],
    ["site", () => checkSite(chromium, chromiumPath)],
  ];
  const failed = [];
  for (const [part, fn] of parts) {
    try {
      await fn();
      log(`${part}: ok`);
    } catch (err) {
      console.error(`browser: ${part}: FAIL: ${err instanceof Failure ? err.message : err.stack || err}`);
      failed.push(part);
    }
  }
  console.log(`browser: ${parts.length - failed.length} passed, ${failed.length} failed`);
  if (failed.length) process.exit(1);
}

// runNotebook runs every cell of one notebook and checks its chart.
async function runNotebook(chromium, chromiumPath, notebookPath) {
  const name = path.basename(notebookPath);
  log(`run: notebook ${name}`);
  const before = sha256(notebookPath);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tokenbytoken-browser-"));
  const lab = await startLab(tmp);
  let browser;
  let page;
  try {
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    // Only the local Jupyter server is reachable, as on a machine offline.
    const blocked = [];
    const origin = new URL(lab.base).origin;
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
      blocked.push(url);
      return route.abort("internetdisconnected");
    });
    page = await context.newPage();
    const consoleErrors = [];
    page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    let echartsStatus = null;
    page.on("response", (r) => { if (r.url().includes("/static/tokenbytoken/echarts-")) echartsStatus = r.status(); });

    await page.goto(`${lab.base}lab/tree/${encodeURIComponent(name)}?token=${lab.token}`);
    await page.locator(".jp-NotebookPanel .jp-Cell").first().waitFor({ timeout: 120_000 });
    const codeCells = JSON.parse(fs.readFileSync(notebookPath, "utf8")).cells.filter((c) => c.cell_type === "code").length;
    if (codeCells === 0) fail(`${name} has no code cells`);
    await page.waitForFunction((n) => document.querySelectorAll(".jp-NotebookPanel .jp-CodeCell").length === n, codeCells, { timeout: 60_000 });
    // The toolbar names the kernel once the notebook has one. (GoNB's status
    // reads "unknown" until it first runs something, so that is not waited
    // for; cells run as soon as the kernel answers.)
    await page.locator(".jp-NotebookPanel .jp-Toolbar").getByText("Go (GoNB)").waitFor({ timeout: 120_000 });
    // A "Run All" sent before the page has connected to the kernel is
    // dropped: wait until the server sees the page's kernel connection.
    await lab.waitForKernelConnection(name);
    await page.waitForTimeout(2000);
    log(`JupyterLab up, page connected to the GoNB kernel, ${codeCells} code cells; running all cells`);

    const started = Date.now();
    await page.getByRole("menuitem", { name: "Run", exact: true }).click();
    await page.getByRole("menuitem", { name: /^Run All Cells/ }).click();

    // Done when every code cell has an execution count and none is queued.
    const prompts = page.locator(".jp-NotebookPanel .jp-CodeCell .jp-InputPrompt");
    let lastReport = started;
    for (;;) {
      const texts = await prompts.allInnerTexts();
      if (Date.now() - lastReport > 30_000) {
        lastReport = Date.now();
        log(`waiting for cells to finish: prompts ${JSON.stringify(texts)}`);
      }
      const done = texts.filter((t) => /\[\d+\]/.test(t)).length;
      const busy = texts.some((t) => t.includes("*"));
      if (done === codeCells && !busy) break;
      if (Date.now() - started > RUN_TIMEOUT_MS) {
        fail(`cells not all executed after ${RUN_TIMEOUT_MS / 1000}s: prompts ${JSON.stringify(texts)}`);
      }
      if (!busy && Date.now() - started > 15_000) {
        // Run All stops at a failing cell: nothing runs any more.
        const idle = await page.locator('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator[data-status="idle"]').count();
        if (idle && done < codeCells) {
          await page.waitForTimeout(3000);
          const again = await prompts.allInnerTexts();
          if (again.filter((t) => /\[\d+\]/.test(t)).length === done && !again.some((t) => t.includes("*"))) {
            fail(`Run All stopped after ${done} of ${codeCells} code cells: prompts ${JSON.stringify(again)}`);
          }
        }
      }
      await page.waitForTimeout(500);
    }
    log(`all ${codeCells} code cells ran in ${((Date.now() - started) / 1000).toFixed(1)}s`);

    // No cell may have written to stderr (GoNB shows compile errors and
    // panics that way).
    const stderr = page.locator('.jp-NotebookPanel .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"], .jp-NotebookPanel .jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"]');
    if (await stderr.count()) fail(`a cell wrote errors:\n${(await stderr.allInnerTexts()).join("\n")}`);

    // The chart: an ECharts canvas with pixels drawn in colour, not just a
    // blank box or an error message.
    const chart = page.locator(".jp-NotebookPanel .tokenbytoken-chart").last();
    await chart.waitFor({ timeout: 30_000 });
    const errors = page.locator(".jp-NotebookPanel .tokenbytoken-chart-error");
    await page.locator(".jp-NotebookPanel .tokenbytoken-chart canvas, .jp-NotebookPanel .tokenbytoken-chart-error").first().waitFor({ timeout: 30_000 });
    if (await errors.count()) fail(`chart shows an error: ${(await errors.allInnerTexts()).join("\n")}`);
    await page.waitForTimeout(1500); // ECharts animates the bars in
    await chart.scrollIntoViewIfNeeded();
    const pixels = await page.evaluate(() => {
      const result = [];
      for (const canvas of document.querySelectorAll(".jp-NotebookPanel .tokenbytoken-chart canvas")) {
        const ctx = canvas.getContext("2d");
        const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
        let painted = 0;
        let coloured = 0;
        for (let i = 0; i < data.length; i += 4) {
          const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
          if (a === 0 || (r > 245 && g > 245 && b > 245)) continue;
          painted++;
          if (Math.max(r, g, b) - Math.min(r, g, b) > 60) coloured++;
        }
        result.push({ width: canvas.width, height: canvas.height, painted, coloured });
      }
      return result;
    });
    log(`chart canvases: ${JSON.stringify(pixels)}`);
    if (pixels.length === 0) fail("no ECharts canvas in the notebook's output");
    for (const p of pixels) {
      if (p.width === 0 || p.height === 0) fail(`a chart canvas is empty: ${JSON.stringify(p)}`);
      if (p.coloured < 500) fail(`a chart canvas has almost nothing drawn in colour: ${JSON.stringify(p)}`);
    }
    if (echartsStatus !== 200) fail(`ECharts was not served by the local Jupyter server (status ${echartsStatus})`);
    const shot = path.join(ARTIFACTS, name.replace(/\.ipynb$/, ".png"));
    await page.screenshot({ path: shot });
    await chart.screenshot({ path: path.join(ARTIFACTS, name.replace(/\.ipynb$/, "-chart.png")) });
    log(`screenshots: ${path.relative(ROOT, shot)}, ${path.relative(ROOT, shot.replace(/\.png$/, "-chart.png"))}`);
    if (blocked.length) log(`requests kept offline (not needed): ${[...new Set(blocked)].join(", ")}`);
    const echartsErrors = consoleErrors.filter((e) => /echarts|tokenbytoken/i.test(e));
    if (echartsErrors.length) fail(`chart errors in the browser console:\n${echartsErrors.join("\n")}`);
  } catch (err) {
    if (page) {
      // Show the chart's box if there is one: that is what failed most often.
      await page.locator(".jp-NotebookPanel .tokenbytoken-chart").last().scrollIntoViewIfNeeded({ timeout: 2000 }).catch(() => {});
      const shot = path.join(ARTIFACTS, name.replace(/\.ipynb$/, "-failed.png"));
      await page.screenshot({ path: shot }).then(() => log(`screenshot of the failure: ${path.relative(ROOT, shot)}`), () => {});
    }
    throw err;
  } finally {
    if (browser) await browser.close();
    await lab.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  if (sha256(notebookPath) !== before) fail(`${name} was modified on disk by the test`);
}

// KNOB_NOTEBOOK is the notebook whose knob cell the knobs part turns, and
// KNOB_LABEL the label of the knob it moves, to KNOB_POSITION (slider
// positions count from the knob's minimum: top-p 0.05 + 45 × 0.01 = 0.5).
const KNOB_NOTEBOOK = "04-sampling.ipynb";
const KNOB_LABEL = "top-p";
const KNOB_POSITION = 45;

// turnKnobs runs the knob notebook up to its knob cell in JupyterLab, moves
// one slider and checks that the chart was redrawn with other data.
async function turnKnobs(chromium, chromiumPath) {
  const notebookPath = path.join(ROOT, "notebooks", KNOB_NOTEBOOK);
  if (!fs.existsSync(notebookPath)) fail(`notebooks/${KNOB_NOTEBOOK} is missing`);
  const cells = JSON.parse(fs.readFileSync(notebookPath, "utf8")).cells;
  const knobIndex = cells.findIndex((c) => c.cell_type === "code" && [].concat(c.source).join("").includes("notebook.Interact("));
  if (knobIndex < 0) fail(`${KNOB_NOTEBOOK} has no code cell calling notebook.Interact`);
  const knobs = [].concat(cells[knobIndex].source).join("").split("notebook.Knob{").length - 1;
  const before = sha256(notebookPath);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tokenbytoken-knobs-"));
  const lab = await startLab(tmp, { name: "knobs", extra: ["--LabApp.expose_app_in_browser=True"] });
  let browser;
  let page;
  try {
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const origin = new URL(lab.base).origin;
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
      return route.abort("internetdisconnected");
    });
    page = await context.newPage();
    await page.goto(`${lab.base}lab/tree/${encodeURIComponent(KNOB_NOTEBOOK)}?token=${lab.token}`);
    await page.waitForFunction((n) => document.querySelectorAll(".jp-NotebookPanel .jp-Notebook .jp-Cell").length === n, cells.length, { timeout: 120_000 });
    await page.locator(".jp-NotebookPanel .jp-Toolbar").getByText("Go (GoNB)").waitFor({ timeout: 120_000 });
    await lab.waitForKernelConnection(KNOB_NOTEBOOK);
    // The kernel has answered once its info is in: then run every cell up
    // to and including the knob cell (the cells above declare what it uses).
    const started = await page.evaluate(async (index) => {
      const app = window.jupyterapp;
      const panel = app && app.shell.currentWidget;
      if (!panel || !panel.sessionContext) return "no notebook panel is open";
      await panel.sessionContext.ready;
      const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
      if (!kernel) return "the notebook has no kernel";
      await kernel.info;
      if (index + 1 < panel.content.widgets.length) {
        panel.content.activeCellIndex = index + 1;
        app.commands.execute("notebook:run-all-above"); // ends only when the knobs do
      } else {
        app.commands.execute("notebook:run-all-cells");
      }
      return "";
    }, knobIndex);
    if (started) fail(`could not run ${KNOB_NOTEBOOK}: ${started}`);
    log(`knobs: running ${KNOB_NOTEBOOK} up to its knob cell (cell ${knobIndex + 1} of ${cells.length})`);

    const cell = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").nth(knobIndex);
    const stderr = '.jp-NotebookPanel .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]';
    // The sliders come up under the view once the cells above have run,
    // then the Done button after the last of them; a cell that fails on
    // the way stops the run, and says so on stderr.
    const t0 = Date.now();
    for (;;) {
      if (await cell.getByRole("button", { name: "Done" }).count()) break;
      const errors = await page.locator(stderr).allInnerTexts();
      if (errors.length) fail(`a cell wrote errors before the knobs came up:\n${errors.join("\n")}`);
      if (Date.now() - t0 > RUN_TIMEOUT_MS) {
        fail(`the knob cell of ${KNOB_NOTEBOOK} has ${await cell.locator('input[type="range"]').count()} of ${knobs} sliders and no Done button after ${RUN_TIMEOUT_MS / 1000}s`);
      }
      await page.waitForTimeout(500);
    }
    const sliders = await cell.locator('input[type="range"]').count();
    if (sliders !== knobs) fail(`the knob cell shows ${sliders} sliders; its code asks for ${knobs} knobs`);
    log(`knobs: ${sliders} sliders and Done up after ${((Date.now() - t0) / 1000).toFixed(1)}s`);

    // What the view shows: its redraw mark, its text, and the chart's data
    // as ECharts holds it (null until the chart has drawn).
    const readView = (index) => page.evaluate((i) => {
      const cellNode = document.querySelectorAll(".jp-NotebookPanel .jp-Notebook .jp-Cell")[i];
      const view = cellNode && cellNode.querySelector(".tokenbytoken-view");
      if (!view) return null;
      const item = view.querySelector(".tokenbytoken-chart .item");
      const chart = item && window.echarts && window.echarts.getInstanceByDom(item);
      const series = chart ? chart.getOption().series.map((s) => ({ name: s.name, data: s.data.map((d) => (d !== null && typeof d === "object" ? d.value : d)) })) : null;
      return { dataView: view.getAttribute("data-view"), text: view.innerText, series };
    }, index);
    await page.waitForFunction((i) => {
      const cellNode = document.querySelectorAll(".jp-NotebookPanel .jp-Notebook .jp-Cell")[i];
      const item = cellNode && cellNode.querySelector(".tokenbytoken-view .tokenbytoken-chart .item");
      return Boolean(item && window.echarts && window.echarts.getInstanceByDom(item));
    }, knobIndex, { timeout: 30_000 }).catch(() => fail("the knob cell's chart did not draw within 30s"));
    const first = await readView(knobIndex);
    await cell.scrollIntoViewIfNeeded();
    await page.waitForTimeout(1000); // ECharts animates the bars in
    await cell.screenshot({ path: path.join(ARTIFACTS, "knob-before.png") });

    // Move the slider as a drag ends: the new value, then "change".
    const moved = await page.evaluate(({ i, label, position }) => {
      const cellNode = document.querySelectorAll(".jp-NotebookPanel .jp-Notebook .jp-Cell")[i];
      const row = [...cellNode.querySelectorAll(".tokenbytoken-knobs > div")].find((r) => r.textContent.trim().startsWith(label));
      const slider = row && row.querySelector('input[type="range"]');
      if (!slider) return `no slider labelled ${label}`;
      const from = slider.value;
      slider.value = String(position);
      slider.dispatchEvent(new Event("change", { bubbles: true }));
      return `moved from position ${from} to ${slider.value}`;
    }, { i: knobIndex, label: KNOB_LABEL, position: KNOB_POSITION });
    if (!moved.startsWith("moved")) fail(`knob cell: ${moved}`);
    log(`knobs: ${KNOB_LABEL} slider ${moved}`);

    // The view is redrawn (a new data-view) and its chart draws other data.
    await page.waitForFunction(({ i, old }) => {
      const cellNode = document.querySelectorAll(".jp-NotebookPanel .jp-Notebook .jp-Cell")[i];
      const view = cellNode && cellNode.querySelector(".tokenbytoken-view");
      const item = view && view.querySelector(".tokenbytoken-chart .item");
      return view && view.getAttribute("data-view") !== old && item && window.echarts && window.echarts.getInstanceByDom(item);
    }, { i: knobIndex, old: first.dataView }, { timeout: 30_000 }).catch(() => fail(`moving the ${KNOB_LABEL} slider did not redraw the view within 30s (data-view stayed ${first.dataView})`));
    const second = await readView(knobIndex);
    const label = await cell.locator(".tokenbytoken-knobs").innerText();
    if (JSON.stringify(second.series) === JSON.stringify(first.series)) {
      fail(`the view was redrawn but its chart shows the same data:\n${JSON.stringify(first.series)}`);
    }
    if (!/top-p[^\n]*\s+0\.50\b/.test(label)) fail(`the ${KNOB_LABEL} knob's label does not read 0.50 after the move:\n${label}`);
    const stageLine = (v) => (v.text.match(/model:[^\n]*/) || [""])[0];
    log(`knobs: redrawn (data-view ${first.dataView} → ${second.dataView}); stages before: ${stageLine(first)}; after: ${stageLine(second)}`);
    await page.waitForTimeout(1000); // the new bars animate in
    await cell.screenshot({ path: path.join(ARTIFACTS, "knob-after.png") });

    // Done ends the cell: the knobs go away and the cell gets its count.
    await cell.getByRole("button", { name: "Done" }).click();
    await cell.getByText("The knobs are closed (Done pressed)").waitFor({ timeout: 30_000 })
      .catch(() => fail("pressing Done did not close the knobs within 30s"));
    await page.waitForFunction((i) => {
      const prompt = document.querySelectorAll(".jp-NotebookPanel .jp-Notebook .jp-Cell")[i].querySelector(".jp-InputPrompt");
      return prompt && /\[\d+\]/.test(prompt.textContent);
    }, knobIndex, { timeout: 30_000 }).catch(() => fail("the knob cell did not end within 30s of Done"));
    const errors = await page.locator(stderr).allInnerTexts();
    if (errors.length) fail(`a cell wrote errors:\n${errors.join("\n")}`);
    log("knobs: Done pressed, the cell ended; screenshots knob-before.png, knob-after.png");
  } catch (err) {
    if (page) {
      const shot = path.join(ARTIFACTS, "knob-failed.png");
      await page.screenshot({ path: shot }).then(() => log(`screenshot of the failure: ${path.relative(ROOT, shot)}`), () => {});
    }
    throw err;
  } finally {
    if (browser) await browser.close();
    await lab.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  if (sha256(notebookPath) !== before) fail(`${KNOB_NOTEBOOK} was modified on disk by the test`);
}

// openAndSave opens a copy of every notebook in JupyterLab, as a learner
// would, and saves it: nothing may change, and opening must not mark the
// notebook modified.
async function openAndSave(chromium, chromiumPath) {
  const names = fs.readdirSync(path.join(ROOT, "notebooks")).filter((n) => n.endsWith(".ipynb")).sort();
  if (names.length === 0) fail("no notebooks in notebooks/");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tokenbytoken-save-"));
  const copies = path.join(tmp, "notebooks");
  fs.mkdirSync(copies);
  // What each notebook was when copied: the saved file is compared with it
  // (notebooks/ may change meanwhile, when someone edits a notebook).
  const original = new Map();
  for (const n of names) {
    original.set(n, fs.readFileSync(path.join(ROOT, "notebooks", n), "utf8"));
    fs.writeFileSync(path.join(copies, n), original.get(n));
  }
  // The page may use JupyterLab's application object (window.jupyterapp)
  // to know when the kernel has answered and to run the Save command.
  const lab = await startLab(tmp, { root: copies, name: "open-and-save", extra: ["--LabApp.expose_app_in_browser=True"] });
  let browser;
  const problems = [];
  try {
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
    const page = await browser.newPage();
    await page.goto(`${lab.base}lab?token=${lab.token}`);
    await page.waitForFunction(() => window.jupyterapp && window.jupyterapp.shell && document.querySelector("#jp-main-dock-panel"), null, { timeout: 120_000 });
    await page.waitForTimeout(1000);
    for (const n of names) {
      const copy = path.join(copies, n);
      const before = fs.statSync(copy).mtimeMs;
      const seen = await page.evaluate(async (nbPath) => {
        const app = window.jupyterapp;
        const panel = await app.commands.execute("docmanager:open", { path: nbPath, factory: "Notebook" });
        await panel.context.ready;
        await panel.sessionContext.ready;
        const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
        if (!kernel) return { error: "no kernel started" };
        const info = await kernel.info; // the kernel_info_reply, which JupyterLab copies into the notebook
        await new Promise((r) => setTimeout(r, 1000));
        const result = {
          kernel: kernel.name,
          dirty: panel.model.dirty,
          languageInfo: info.language_info,
        };
        app.shell.activateById(panel.id);
        await app.commands.execute("docmanager:save");
        result.dirtyAfterSave = panel.model.dirty;
        await panel.sessionContext.shutdown();
        panel.dispose();
        return result;
      }, n);
      if (seen.error) {
        problems.push(`${n}: ${seen.error}`);
        continue;
      }
      // The save must really have happened, for the comparison to mean anything.
      for (let i = 0; i < 40 && fs.statSync(copy).mtimeMs === before; i++) await new Promise((r) => setTimeout(r, 250));
      if (fs.statSync(copy).mtimeMs === before) {
        problems.push(`${n}: the Save command did not write the file`);
        continue;
      }
      const committed = original.get(n);
      const saved = fs.readFileSync(copy, "utf8");
      if (seen.kernel !== "gonb") problems.push(`${n}: opened with kernel ${seen.kernel}, want gonb`);
      if (seen.dirty) problems.push(`${n}: marked modified as soon as it was opened (the kernel said language_info = ${JSON.stringify(seen.languageInfo)})`);
      if (saved !== committed) {
        const a = committed.split("\n");
        const b = saved.split("\n");
        let i = 0;
        while (i < a.length && a[i] === b[i]) i++;
        problems.push(`${n}: saving changed the file, from line ${i + 1}:\n    committed: ${JSON.stringify(a.slice(i, i + 6).join("\n"))}\n    saved:     ${JSON.stringify(b.slice(i, i + 6).join("\n"))}`);
      }
    }
    log(`open and save: ${names.length} notebooks opened and saved, ${names.length - new Set(problems.map((p) => p.split(":")[0])).size} unchanged`);
  } finally {
    if (browser) await browser.close();
    await lab.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  if (problems.length) {
    fail(`opening and saving must change nothing (run make clear-outputs, which writes the metadata JupyterLab writes):\n  ${problems.join("\n  ")}`);
  }
}

main().catch((err) => {
  console.error(`browser: FAIL: ${err instanceof Failure ? err.message : err.stack || err}`);
  console.log("browser: 0 passed, 1 failed");
  process.exit(1);
});

// checkSite builds the static site and reads it in the browser, offline.
async function checkSite(chromium, chromiumPath) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tokenbytoken-site-"));
  const out = path.join(tmp, "site");
  const python = path.join(KERNEL, ".venv", "bin", "python");
  const build = (args) => {
    try {
      execFileSync(python, [path.join(KERNEL, "site.py"), ...args, out], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      return "";
    } catch (err) {
      return `${err.stdout || ""}${err.stderr || ""}`;
    }
  };
  let msg = build(["--no-run"]);
  if (msg.includes("no executed copy")) {
    log("site: no executed notebooks yet; running them first");
    msg = build([]);
  }
  if (msg) fail(`kernel/site.py failed:\n${msg}`);
  const notebooks = fs.readdirSync(path.join(ROOT, "notebooks")).filter((n) => n.endsWith(".ipynb"));
  const exercises = fs.readdirSync(path.join(ROOT, "exercises")).filter((n) => /^[0-9]{2}-/.test(n));
  let browser;
  try {
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const blocked = [];
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith("file:") || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
      blocked.push(url);
      return route.abort("internetdisconnected");
    });
    const page = await context.newPage();
    await page.goto("file://" + path.join(out, "index.html"));
    const lessonLinks = await page.locator("ol.lessons li > a:first-child").count();
    const exerciseLinks = await page.locator('ol.lessons a[href^="exercises/"]').count();
    if (lessonLinks !== notebooks.length) fail(`the site's index lists ${lessonLinks} lessons; want ${notebooks.length}, one per notebook`);
    if (exerciseLinks !== exercises.length) fail(`the site's index links ${exerciseLinks} exercises; want ${exercises.length}`);
    await page.screenshot({ path: path.join(ARTIFACTS, "site-index.png"), fullPage: true });

    // Index → lesson 02 (it has a chart) → its exercise → back to the lesson.
    await page.locator("ol.lessons li").nth(1).locator("a").first().click();
    await page.waitForLoadState("load");
    if (!/02-[^/]*\.html$/.test(page.url())) fail(`the index's second lesson link led to ${page.url()}`);
    const chart = page.locator(".tokenbytoken-chart canvas, .tokenbytoken-chart-error").first();
    await chart.waitFor({ timeout: 30_000 });
    const errors = await page.locator(".tokenbytoken-chart-error").allInnerTexts();
    if (errors.length) fail(`a chart on the site shows an error: ${errors.join("\n")}`);
    await page.waitForTimeout(1500);
    const coloured = await page.evaluate(() => {
      const canvas = document.querySelector(".tokenbytoken-chart canvas");
      const { data } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0 && Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]) > 60) n++;
      return n;
    });
    if (coloured < 500) fail(`the site's first chart in lesson 02 has almost nothing drawn in colour (${coloured} pixels)`);
    await page.locator(".tokenbytoken-chart").first().screenshot({ path: path.join(ARTIFACTS, "site-chart.png") });
    // Lesson 02's formulas (softmax) are typeset by the site's own MathJax:
    // no TeX source is left on the page.
    await page.locator("mjx-container").first().waitFor({ timeout: 30_000 }).catch(() => {});
    const formulas = await page.locator("mjx-container").count();
    // TeX left in the lesson's Markdown (code cells may hold "$" and backslashes).
    const rawTeX = await page.evaluate(() => [...document.querySelectorAll(".jp-RenderedMarkdown")]
      .some((e) => /\\(frac|sum|cdot|log|exp|ln|mathrm|text)\b|\$[^$\n]+\$/.test(e.innerText)));
    if (!formulas || rawTeX) fail(`lesson 02 on the site shows its formulas as TeX source (${formulas} typeset): MathJax did not run from assets/`);
    const exerciseLink = page.locator('a[href^="exercises/02-"]').first();
    if (!(await exerciseLink.count())) fail("lesson 02 on the site has no link to its exercise");
    await exerciseLink.click();
    await page.waitForLoadState("load");
    if (!/exercises\/02-[^/]*\.html$/.test(page.url())) fail(`lesson 02's exercise link led to ${page.url()}`);
    if (!(await page.getByText("Task 1").count())) fail("the exercise page on the site shows no tasks");
    await page.locator('main a[href^="../02-"]').first().click();
    await page.waitForLoadState("load");
    if (!/\/02-[^/]*\.html$/.test(page.url())) fail(`the exercise's link back to its lesson led to ${page.url()}`);
    if (blocked.length) fail(`the site asked the network for ${[...new Set(blocked)].join(", ")}; it must work offline`);
    log(`site: index with ${lessonLinks} lessons and ${exerciseLinks} exercises; lesson 02's chart drew (${coloured} coloured pixels) and its ${formulas} formulas were typeset; links lesson ↔ exercise work; screenshots site-index.png, site-chart.png`);
  } finally {
    if (browser) await browser.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
