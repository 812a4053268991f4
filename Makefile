# Token by Token. The two commands: `make lab` and `make test` (see README.md).

.DEFAULT_GOAL := help

.PHONY: help lab install test vet unit notebooks browser fuzz clear-outputs clean

help:
	@echo "make lab            install what is missing, then start JupyterLab on notebooks/"
	@echo "make test           install what is missing, then run every check (vet, notebooks, browser, go test)"
	@echo "make install        only install: GoNB, goimports, gopls, JupyterLab venv, ECharts (all under kernel/)"
	@echo "make vet | unit | notebooks | browser | fuzz    one check at a time"
	@echo "make clear-outputs  remove outputs from notebooks/*.ipynb before committing"
	@echo "make clean          remove everything make install put in kernel/"

lab: install
	@kernel/lab.sh $(LAB_ARGS)

install:
	@kernel/install.sh

test: install
	@kernel/test.sh

vet:
	go vet ./...

unit:
	go test $$(go list ./... | grep -Ev '/exercises/[0-9]{2}-[^/]+$$')

notebooks: install
	kernel/.venv/bin/python kernel/run_notebooks.py

browser: install
	node kernel/browser_test.mjs

fuzz:
	kernel/fuzz.sh

clear-outputs: install
	kernel/.venv/bin/python kernel/clear_outputs.py

clean:
	rm -rf kernel/.bin kernel/.venv kernel/node_modules kernel/.static kernel/.artifacts
