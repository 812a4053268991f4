"""Clears notebooks for committing: no outputs, no execution counts, no
execution timings, and the notebook metadata exactly as JupyterLab writes it
when it saves a notebook opened with the course's GoNB kernel — so that
opening and saving a committed notebook changes nothing (kernel's Go test and
the browser test check it).

Usage: kernel/.venv/bin/python kernel/clear_outputs.py [NOTEBOOK.ipynb ...]
(default: every notebook in notebooks/). Files already clear are left as
they are.
"""

import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent


def gonb_go() -> str:
    """The Go release GoNB is built with (GONB_GO in kernel/install.sh)."""
    text = (ROOT / "kernel" / "install.sh").read_text(encoding="utf-8")
    return re.search(r"^GONB_GO=(\S+)$", text, re.M).group(1)


KERNELSPEC = {"display_name": "Go (GoNB)", "language": "go", "name": "gonb"}
# What GoNB answers in its kernel_info_reply, which JupyterLab copies into
# the notebook: the version is runtime.Version() of the GoNB binary.
LANGUAGE_INFO = {
    "codemirror_mode": "",
    "file_extension": ".go",
    "mimetype": "text/x-go",
    "name": "go",
    "nbconvert_exporter": "",
    "pygments_lexer": "",
    "version": gonb_go(),
}
# Cell metadata written by running or viewing a notebook, not by its author.
RUN_METADATA = ("execution", "collapsed", "scrolled", "jupyter", "ExecuteTime")


def clear(path: Path) -> bool:
    """Clears one notebook in place; returns whether it changed."""
    before = path.read_text(encoding="utf-8")
    nb = nbformat.reads(before, as_version=4)
    for cell in nb.cells:
        for key in RUN_METADATA:
            cell.metadata.pop(key, None)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata["language_info"] = LANGUAGE_INFO
    after = nbformat.writes(nb) + "\n"
    if after == before:
        return False
    path.write_text(after, encoding="utf-8")
    return True


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        print(("cleared  " if clear(path) else "clean    ") + str(path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
