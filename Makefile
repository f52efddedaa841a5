# The README's two commands: `make app` and `make test`. Both work offline from a fresh clone.
export HF_HUB_OFFLINE := 1
export HF_HUB_DISABLE_PROGRESS_BARS := 1
export TOKENIZERS_PARALLELISM := false
PORT ?= 8501
# This computer only; to share on your network see README.md, "Sharing with your table".
ADDRESS ?= 127.0.0.1

.PHONY: app test test-fast test-llm snapshots setup setup-dev setup-train lint eval eval-heldout eval-devvaults report bench screenshots

setup:
	bash scripts/setup.sh app

setup-dev:
	bash scripts/setup.sh dev

setup-train:  ## what rebuilding the learned models needs (scripts/train_*.py): scikit-learn, lightgbm
	bash scripts/setup.sh train

app: setup  ## set up, then start the dashboard on the demo campaign
	.venv/bin/python -m streamlit run streamlit_app.py --server.address $(ADDRESS) --server.port $(PORT) --server.headless true

test: setup-dev  ## set up, then run the whole test suite (unit, AppTest, real browser)
	.venv/bin/python -m pytest -q

test-fast: setup-dev  ## everyday lane, about 5 minutes on 2 cores: unit, snapshot and AppTest; no browser, no big dev sets
	.venv/bin/python -m pytest -q -m "not browser and not long and not stress"

test-llm: setup-dev  ## against a real language model server: CHRONICLER_TEST_LLM_URL=http://127.0.0.1:8080/v1 (docs/LLM.md)
	@test -n "$$CHRONICLER_TEST_LLM_URL" || { echo "Set CHRONICLER_TEST_LLM_URL to a running server's /v1 address (docs/LLM.md)."; exit 1; }
	.venv/bin/python -m pytest -q tests/test_real_llm.py tests/test_llm_replay.py

snapshots: setup-dev  ## accept changed answers: rewrite tests/snapshots/answers/ (then review `git diff`)
	UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest -q tests/test_answer_snapshots.py

screenshots: setup-dev  ## refresh the README's screenshots from the browser walk-through of what a new player tries
	CHRONICLER_SCREENSHOTS=$(CURDIR)/docs/screenshots .venv/bin/python -m pytest -q tests/test_walkthrough_browser.py

lint: setup-dev  ## ruff's lint rules and its formatter, as CI would see them
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .

SHARED := ../shared/data
EVAL := .venv/bin/python -m rag eval --answers
eval: setup  ## retrieval and answers on every dev set → docs/eval/*.json → docs/EVALUATION.md (~20 min on 2 cores)
	$(EVAL) --notes $(SHARED)/vault-toa --questions $(SHARED)/vault-toa-questions.jsonl --json docs/eval/vault-toa.json
	$(EVAL) --notes $(SHARED)/vault-toa --questions docs/eval/questions/vault-toa-unanswerable.jsonl --json docs/eval/vault-toa-unanswerable.json
	$(EVAL) --notes $(SHARED)/vault-strahd --questions $(SHARED)/vault-strahd-questions.jsonl --json docs/eval/vault-strahd.json
	$(EVAL) --notes $(SHARED)/crd3-notes --questions $(SHARED)/crd3-questions.jsonl --json docs/eval/crd3.json
	$(EVAL) --notes $(SHARED)/crd3-notes --questions docs/eval/questions/crd3-unanswerable.jsonl --json docs/eval/crd3-unanswerable.json
	$(EVAL) --notes $(SHARED)/fairytaleqa/val --story-dirs --questions $(SHARED)/fairytaleqa-val.jsonl --json docs/eval/fairytaleqa-val.json
	$(MAKE) --no-print-directory report

# $(call outside_eval,FOLDER,VAULTS,EVAL FLAGS): every vault of VAULTS found in FOLDER (not in this repo: no
# licence), its questions rebuilt from its locators in docs/eval/questions, then evaluated
define outside_eval
	@for v in $(2); do \
	  if [ -d $(1)/$$v ]; then \
	    .venv/bin/python scripts/outside_questions.py $(1)/$$v > $(1)/$$v-questions.jsonl && \
	    $(EVAL) $(3) --notes $(1)/$$v --questions $(1)/$$v-questions.jsonl --json docs/eval/$$v.json || exit 1; \
	  else echo "$(1)/$$v is missing: skipped (scripts/outside_questions.py says how to get it)"; fi; \
	done
	$(MAKE) --no-print-directory report
endef

HELDOUT := ../heldout
eval-heldout: setup  ## the held-out vaults found in ../heldout (scripts/outside_questions.py says how to get them)
	$(call outside_eval,$(HELDOUT),vault-ryboure vault-lightingale,--numbers-only)

DEVVAULTS := ../devvaults
eval-devvaults: setup  ## the dev vaults not in ../shared, found in ../devvaults (the same script says how to get them)
	$(call outside_eval,$(DEVVAULTS),vault-goblins,)

REPORTED = $(wildcard $(addprefix docs/eval/,vault-toa.json vault-toa-unanswerable.json vault-strahd.json crd3.json crd3-unanswerable.json fairytaleqa-val.json vault-goblins.json vault-ryboure.json vault-lightingale.json))
report:  ## docs/EVALUATION.md's tables from the eval JSON files
	.venv/bin/python -m rag report --section retrieval $(REPORTED) > /dev/null
	.venv/bin/python -m rag report --section answers $(REPORTED) > /dev/null

bench: setup
	.venv/bin/python -m rag bench ingest --notes ../shared/data/crd3-notes
