"""Builds the course as a static web site: every lesson executed, with its
charts drawn, and every exercise's instructions, readable without installing
anything and without the internet.

    kernel/.venv/bin/python kernel/site.py [--no-run] [OUT]

First it executes every notebook headless (kernel/run_notebooks.py, which
writes the executed copies to kernel/.artifacts/notebooks/); --no-run uses the
copies already there. Then it writes OUT (default kernel/.artifacts/site/):

    index.html                 the course: lessons and exercises, in order
    NN-name.html               each lesson with its outputs and charts
    exercises/NN-name.html     each exercise's README
    assets/echarts-5.4.3.min.js, assets/mathjax-tex-svg.js, assets/site.css

Every page loads ECharts from assets/, so charts draw offline, and lessons
load MathJax from there to typeset their formulas; nothing comes from the
internet. Links between
lessons, to exercises and back are rewritten to the site's own pages; links to
source files go to the repository when REPO_URL is set (a GitHub Actions run
sets it), and are left as plain text otherwise.

Exit status: 0 when the site was written, 1 if a notebook failed to run or
any page could not be written.
"""

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import mistune
import nbformat
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
EXERCISES = ROOT / "exercises"
EXECUTED = ROOT / "kernel" / ".artifacts" / "notebooks"
DEFAULT_OUT = ROOT / "kernel" / ".artifacts" / "site"
ECHARTS_VERSION = "5.4.3"
ECHARTS = ROOT / "kernel" / ".static" / "tokenbytoken" / f"echarts-{ECHARTS_VERSION}.min.js"
# MathJax (kernel/package.json) typesets the lessons' formulas; its SVG build
# is one file, with no fonts to fetch, so formulas render offline.
MATHJAX = ROOT / "kernel" / "node_modules" / "mathjax" / "es5" / "tex-svg.js"
# Read before MathJax loads: $...$ and $$...$$ as in JupyterLab's Markdown.
MATHJAX_CONFIG = """window.MathJax = { tex: { inlineMath: [["$", "$"], ["\\\\(", "\\\\)"]],
  displayMath: [["$$", "$$"], ["\\\\[", "\\\\]"]], processEscapes: true },
  svg: { fontCache: "global" } };"""

CSS = """
body { font-family: system-ui, sans-serif; margin: 0; color: #1d1d1f; }
nav.course { position: sticky; top: 0; z-index: 10; background: #f5f5f7;
  border-bottom: 1px solid #ddd; padding: 0.5em 1.5em; display: flex; gap: 1.5em;
  align-items: baseline; flex-wrap: wrap; }
nav.course a { color: #0b57d0; text-decoration: none; }
nav.course .here { font-weight: 600; }
main.page { max-width: 60em; margin: 1.5em auto; padding: 0 1.5em; line-height: 1.5; }
main.page pre { background: #f5f5f7; padding: 0.8em; overflow-x: auto; }
main.page table { border-collapse: collapse; }
main.page td, main.page th { border: 1px solid #ddd; padding: 0.3em 0.6em; }
ol.lessons li { margin: 0.4em 0; }
"""


def lesson_pages():
    """(notebook path, page name, title) for every notebook, in order."""
    pages = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        title = path.stem
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                m = re.search(r"^#\s+(.+)$", cell.source, re.M)
                if m:
                    title = m.group(1).strip()
                    break
        pages.append((path, path.stem + ".html", title))
    return pages


def exercise_pages():
    """(folder, page name, title) for every exercise, in order."""
    pages = []
    for folder in sorted(EXERCISES.glob("[0-9][0-9]-*")):
        readme = folder / "README.md"
        if not readme.is_file():
            continue
        m = re.search(r"^#\s+(.+)$", readme.read_text(encoding="utf-8"), re.M)
        pages.append((folder, f"exercises/{folder.name}.html", m.group(1).strip() if m else folder.name))
    return pages


def rewrite_links(page_html: str, depth: int, repo_url: str) -> str:
    """Points links at the site's own pages: lessons (NN-name.ipynb),
    exercises (exercises/NN-name/ or its README.md), the track's overview;
    other repository paths go to repo_url, or lose their link without it."""
    up = "../" * depth

    def fix(m):
        attr, target = m.group(1), html.unescape(m.group(2))
        if re.match(r"^[a-z]+:|^#|^//", target):
            return m.group(0)
        path, _, anchor = target.partition("#")
        anchor = "#" + anchor if anchor else ""
        norm = re.sub(r"^(\.\./|\./)+", "", path)
        lesson = re.match(r"^(?:notebooks/)?([0-9]{2}-[^/]+)\.ipynb$", norm)
        if lesson:
            return f'{attr}="{up}{lesson.group(1)}.html{anchor}"'
        exercise = re.match(r"^(?:exercises/)?([0-9]{2}-[a-z0-9-]+)/?(?:README\.md)?$", norm)
        if exercise and (EXERCISES / exercise.group(1)).is_dir():
            return f'{attr}="{up}exercises/{exercise.group(1)}.html{anchor}"'
        if norm in ("exercises/README.md", "exercises/", "exercises", "README.md") or norm == "":
            return f'{attr}="{up}index.html"'
        if repo_url:
            return f'{attr}="{repo_url.rstrip("/")}/blob/main/{norm}{anchor}"'
        return f'{attr}="#"'

    return re.sub(r'(href)="([^"]*)"', fix, page_html)


def nav(depth: int, here: str, prev=None, nxt=None) -> str:
    up = "../" * depth
    parts = [f'<a href="{up}index.html">Token by Token</a>']
    if prev:
        parts.append(f'<a href="{up}{prev[1]}">&larr; {html.escape(prev[2])}</a>')
    parts.append(f'<span class="here">{html.escape(here)}</span>')
    if nxt:
        parts.append(f'<a href="{up}{nxt[1]}">{html.escape(nxt[2])} &rarr;</a>')
    return '<nav class="course">' + " ".join(parts) + "</nav>"


def head_tags(depth: int) -> str:
    up = "../" * depth
    return (f'<link rel="stylesheet" href="{up}assets/site.css">\n'
            f'<script src="{up}assets/echarts-{ECHARTS_VERSION}.min.js"></script>\n')


def mathjax_tags() -> str:
    """The lesson pages' MathJax: its configuration, then the library."""
    return (f"<script>{MATHJAX_CONFIG}</script>\n"
            '<script defer src="assets/mathjax-tex-svg.js"></script>\n')


def standalone(title: str, body: str, depth: int) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(title)}</title>\n{head_tags(depth)}</head>\n<body>\n{body}\n</body></html>\n")


def lesson_html(exporter, executed: Path, depth_nav: str, repo_url: str) -> str:
    nb = nbformat.read(executed, as_version=4)
    body, _ = exporter.from_notebook_node(nb)
    body = rewrite_links(body, 0, repo_url)
    # The page template loads RequireJS and MathJax from the internet: the
    # site works offline, and the charts need neither.
    body = re.sub(r'<script[^>]*\ssrc="https?://[^"]*"[^>]*>\s*</script>', "", body)
    # ECharts before anything else in <head>, so every chart finds it on the
    # page; the course's navigation right after <body>.
    body = body.replace("<head>", "<head>\n" + head_tags(0) + mathjax_tags(), 1)
    return re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + depth_nav, body, count=1)


def main(argv) -> int:
    run = "--no-run" not in argv
    args = [a for a in argv if a != "--no-run"]
    out = Path(args[0]).resolve() if args else DEFAULT_OUT
    repo_url = os.environ.get("REPO_URL", "")
    if not ECHARTS.is_file():
        print(f"site: {ECHARTS.relative_to(ROOT)} is missing: run make install (it needs npm)", file=sys.stderr)
        return 1
    if not MATHJAX.is_file():
        print(f"site: {MATHJAX.relative_to(ROOT)} is missing: run make install (it needs npm)", file=sys.stderr)
        return 1
    if run:
        # Each notebook runs as `make notebooks` runs it; the executed copies
        # are what the site shows.
        # A page has no kernel to turn knobs with: the cells that have
        # knobs draw their first view at once (engine/notebook.NoKnobsEnv).
        env = dict(os.environ, TOKENBYTOKEN_NO_KNOBS="1")
        if subprocess.call([sys.executable, str(ROOT / "kernel" / "run_notebooks.py")], cwd=ROOT, env=env) != 0:
            print("site: a notebook failed; the site was not written", file=sys.stderr)
            return 1

    lessons = lesson_pages()
    exercises = exercise_pages()
    missing = [p.name for p, _, _ in lessons if not (EXECUTED / p.name).is_file()]
    if missing:
        print(f"site: no executed copy of {', '.join(missing)} in {EXECUTED.relative_to(ROOT)}: run without --no-run", file=sys.stderr)
        return 1

    if out.exists():
        shutil.rmtree(out)
    (out / "assets").mkdir(parents=True)
    (out / "exercises").mkdir()
    shutil.copy(ECHARTS, out / "assets" / ECHARTS.name)
    shutil.copy(MATHJAX, out / "assets" / "mathjax-tex-svg.js")
    (out / "assets" / "site.css").write_text(CSS, encoding="utf-8")

    exporter = HTMLExporter(template_name="lab")
    for i, (path, page, title) in enumerate(lessons):
        prev = lessons[i - 1] if i > 0 else None
        nxt = lessons[i + 1] if i + 1 < len(lessons) else None
        page_html = lesson_html(exporter, EXECUTED / path.name, nav(0, title, prev, nxt), repo_url)
        (out / page).write_text(page_html, encoding="utf-8")

    markdown = mistune.create_markdown(plugins=["table"], escape=False)
    for i, (folder, page, title) in enumerate(exercises):
        prev = exercises[i - 1] if i > 0 else None
        nxt = exercises[i + 1] if i + 1 < len(exercises) else None
        text = markdown((folder / "README.md").read_text(encoding="utf-8"))
        # The README's links are relative to its folder, exercises/NN-name/:
        # make them relative to the repository before pointing them at pages.
        text = re.sub(r'href="\.\./\.\./', 'href="', text)
        text = re.sub(r'href="\.\./([0-9]{2}-)', r'href="exercises/\1', text)
        text = re.sub(r'href="(?!exercises/|notebooks/|[a-z]+:|#)([^"]*)"', rf'href="exercises/{folder.name}/\1"', text)
        body = nav(1, title, prev, nxt) + '<main class="page">' + rewrite_links(text, 1, repo_url) + "</main>"
        (out / page).write_text(standalone(title, body, 1), encoding="utf-8")

    rows = []
    for path, page, title in lessons:
        num = path.stem[:2]
        ex = next((e for e in exercises if e[0].name.startswith(num + "-")), None)
        link = f' · <a href="{ex[1]}">exercise</a>' if ex else ""
        rows.append((num, f'<li><a href="{page}">{html.escape(title)}</a>{link}</li>'))
    # An exercise whose lesson is not written yet still gets its row, in
    # its place by number, so the index links every exercise.
    numbers = {path.stem[:2] for path, _, _ in lessons}
    for folder, page, title in exercises:
        if folder.name[:2] not in numbers:
            rows.append((folder.name[:2], f'<li><span>{html.escape(title)}</span> · <a href="{page}">exercise</a></li>'))
    rows = [row for _, row in sorted(rows, key=lambda r: r[0])]
    intro = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## ", 1)[0]
    intro = re.sub(r"^# .*\n", "", intro)
    index = (nav(0, "Lessons") + '<main class="page"><h1>Token by Token</h1>' + rewrite_links(markdown(intro), 0, repo_url)
             + '<h2>Lessons</h2><ol class="lessons">' + "".join(rows) + "</ol>"
             + "<p>Each lesson ends with its exercise: Go code you write and <code>go test</code> checks. "
             + "Clone the repository and run <code>make lab</code> to run the lessons yourself.</p></main>")
    (out / "index.html").write_text(standalone("Token by Token", index, 0), encoding="utf-8")
    print(f"site: {len(lessons)} lessons, {len(exercises)} exercises in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
