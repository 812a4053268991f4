"""Runs every notebook in notebooks/ headless through the GoNB kernel.

Each notebook is executed top to bottom with nbclient, as JupyterLab's
"Run All" would, in a kernel started in notebooks/ (so the first cell's
`${GONB_DIR}/..` is the repository). A cell that fails to compile, panics or
exits non-zero fails its notebook. The committed notebooks are only read:
the executed copies, with their outputs, go to kernel/.artifacts/notebooks/,
next to each kernel's log.

Usage (from the repository root, after `make install`):

    kernel/.venv/bin/python kernel/run_notebooks.py [NOTEBOOK.ipynb ...]

Environment: NOTEBOOK_CELL_TIMEOUT, seconds a cell may run (default 600).
Exit status: 0 if every notebook ran, 1 otherwise.
"""

import html
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
OUT = ROOT / "kernel" / ".artifacts" / "notebooks"
KERNEL_NAME = "gonb"


def run(path: Path, timeout: int) -> tuple[bool, str]:
    """Executes one notebook; returns (ok, one-line reason if not ok)."""
    nb = nbformat.read(path, as_version=4)
    OUT.mkdir(parents=True, exist_ok=True)
    executed = OUT / path.name
    log_path = OUT / (path.stem + ".kernel.log")
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=KERNEL_NAME,
        resources={"metadata": {"path": str(path.parent)}},
    )
    # GoNB logs to the file kernel/.bin/gonb-kernel gives it: this
    # notebook's log, next to its executed copy.
    os.environ["GONB_LOG_FILE"] = str(log_path)
    log_path.unlink(missing_ok=True)
    try:
        with open(log_path, "ab") as log:
            # Anything else the kernel prints goes to the same file, not the console.
            client.execute(stdout=log, stderr=log)
        return True, ""
    except CellTimeoutError as err:
        return False, f"a cell ran longer than {timeout}s: {first_line(err)}"
    except CellExecutionError as err:
        return False, str(err) + compile_errors(nb)
    finally:
        nbformat.write(nb, executed)


def compile_errors(nb) -> str:
    """GoNB shows compile errors as HTML, which the error text lacks: returns
    them as plain text."""
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            page = out.get("data", {}).get("text/html", "")
            if "gonb-err" not in page:
                continue
            page = re.sub(r"(?s)<style>.*?</style>", "", page)
            page = re.sub(r'(?s)<div class="gonb-err-context">.*?</div>\s*</div>', "", page)
            text = html.unescape(re.sub(r"<[^>]+>", "", page))
            found.extend(line.strip() for line in text.splitlines() if line.strip())
    return "\ncompile errors:\n  " + "\n  ".join(found) if found else ""


def first_line(err: Exception) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def main(argv: list[str]) -> int:
    timeout = int(os.environ.get("NOTEBOOK_CELL_TIMEOUT", "600"))
    paths = [Path(a).resolve() for a in argv] or sorted(NOTEBOOKS.glob("*.ipynb"))
    if not paths:
        print(f"no notebooks found in {NOTEBOOKS}", file=sys.stderr)
        return 1
    passed = failed = 0
    for path in paths:
        start = time.monotonic()
        ok, reason = run(path, timeout)
        took = time.monotonic() - start
        name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        if ok:
            passed += 1
            print(f"ok    {name} ({took:.1f}s)", flush=True)
        else:
            failed += 1
            print(f"FAIL  {name} ({took:.1f}s)\n{reason}\n", flush=True)
    print(f"executed copies and kernel logs: {OUT.relative_to(ROOT)}/")
    print(f"notebooks: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
