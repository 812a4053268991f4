# Token by Token. The two commands: `make lab` and `make test` (see README.md);
# kernel/README.md says what every target installs, runs and checks.
#
# Every command first checks that this machine has what it needs
# (kernel/require.sh) and says what to install, before installing or running
# anything.

.DEFAULT_GOAL := help

.PHONY: help lab install test vet unit notebooks browser fuzz site clear-outputs clean

help:
	@echo "make lab            check the requirements, install what is missing, start JupyterLab on notebooks/"
	@echo "make test           check the requirements, install what is missing, run every check (a line per step; logs in kernel/.artifacts/logs/)"
	@echo "make install        only install: GoNB, goimports, gopls, JupyterLab venv, ECharts (all under kernel/)"
	@echo "make vet | unit | notebooks | browser | fuzz    one check at a time, with its whole output"
	@echo "make site           run every notebook and write the course as a static site to kernel/.artifacts/site/"
	@echo "make clear-outputs  remove outputs from notebooks/*.ipynb before committing"
	@echo "make clean          remove everything make install put in kernel/"

lab:
	@kernel/require.sh lab
	@kernel/install.sh
	@kernel/lab.sh $(LAB_ARGS)

install:
	@kernel/require.sh install
	@kernel/install.sh

# kernel/test.sh checks the requirements and installs, as its first two steps.
test:
	@kernel/test.sh

vet:
	@kernel/require.sh vet
	go vet ./...

unit:
	@kernel/require.sh unit
	go test $$(go list -e ./... | grep -Ev '/exercises/[0-9]{2}-[^/]+$$')

notebooks:
	@kernel/require.sh notebooks
	@kernel/install.sh
	kernel/.venv/bin/python kernel/run_notebooks.py

browser:
	@kernel/require.sh browser
	@kernel/install.sh
	node kernel/browser_test.mjs

fuzz:
	@kernel/require.sh fuzz
	kernel/fuzz.sh

site:
	@kernel/require.sh site
	@kernel/install.sh
	kernel/.venv/bin/python kernel/site.py

clear-outputs:
	@kernel/require.sh clear-outputs
	@kernel/install.sh
	kernel/.venv/bin/python kernel/clear_outputs.py

clean:
	rm -rf kernel/.bin kernel/.venv kernel/node_modules kernel/.static kernel/.artifacts
