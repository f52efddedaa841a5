# The README's two commands: `make app` and `make test`. Both work offline from a fresh clone.
export HF_HUB_OFFLINE := 1
export HF_HUB_DISABLE_PROGRESS_BARS := 1
export TOKENIZERS_PARALLELISM := false
PORT ?= 8501
# This computer only; to share on your network see README.md, "Sharing with your table".
ADDRESS ?= 127.0.0.1

.PHONY: app test setup setup-dev lint eval bench screenshots

setup:
	bash scripts/setup.sh app

setup-dev:
	bash scripts/setup.sh dev

app: setup  ## set up, then start the dashboard on the demo campaign
	.venv/bin/python -m streamlit run streamlit_app.py --server.address $(ADDRESS) --server.port $(PORT) --server.headless true

test: setup-dev  ## set up, then run the whole test suite (unit, AppTest, real browser)
	.venv/bin/python -m pytest -q

screenshots: setup-dev  ## refresh the README's screenshots from the browser tests
	CHRONICLER_SCREENSHOTS=$(CURDIR)/docs/screenshots .venv/bin/python -m pytest -q tests/test_browser.py

lint: setup-dev  ## ruff's lint rules and its formatter, as CI would see them
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .

eval: setup  ## retrieval quality on the shared dev sets → docs/EVALUATION.md inputs
	.venv/bin/python -m rag eval --notes ../shared/data/crd3-notes --questions ../shared/data/crd3-questions.jsonl --json docs/eval/crd3.json
	.venv/bin/python -m rag eval --notes ../shared/data/fairytaleqa/val --story-dirs --questions ../shared/data/fairytaleqa-val.jsonl --json docs/eval/fairytaleqa-val.json

bench: setup
	.venv/bin/python -m rag bench ingest --notes ../shared/data/crd3-notes
