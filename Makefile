# tongasm — two-command quick start:  `make demo`  and  `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip --disable-pip-version-check -q
OUT    ?= out
# the extras `make test` installs; CI adds oracle (jax: the corpus graphs' XLA references, tests/test_oracle.py)
EXTRAS ?= test

.PHONY: demo test test-quick bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[$(EXTRAS)]'
	@touch $@ $(VENV)/.installed

## demo: set up, assemble the bundled example kernels (vector add, softmax, the GELU MLP), list them and check them on the simulator
demo: $(VENV)/.installed
	$(BIN)/tongasm assemble examples/vector_add.json -o $(OUT)/vector_add
	$(BIN)/tongasm disasm $(OUT)/vector_add/*.bin
	$(BIN)/python examples/demo.py
	$(BIN)/tongasm assemble examples/softmax.json -o $(OUT)/softmax
	$(BIN)/tongasm disasm $(OUT)/softmax/*.bin
	$(BIN)/python examples/softmax.py
	$(BIN)/tongasm assemble examples/mlp_gelu.json -o $(OUT)/mlp_gelu
	$(BIN)/tongasm disasm --target gen3 $(OUT)/mlp_gelu/*.bin
	$(BIN)/python examples/mlp_gelu.py

## test: set up with the test extras, lint (ruff), type-check (mypy) and run the whole suite
test: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks fuzz
	$(BIN)/mypy
	$(BIN)/python -m pytest -n auto

## test-quick: a representative subset (golden vectors, round trips, the layers, text, checks, decisions, simulator vs numpy) for a change in progress; no lint, no corpus, no tests marked slow
QUICK := tests/test_golden_vectors.py tests/test_golden_sp.py tests/test_golden_tensor.py tests/test_golden_listings.py \
	tests/test_roundtrip.py tests/test_layers.py tests/test_text.py tests/test_checks.py tests/test_decisions.py \
	tests/test_decision_objects.py tests/test_sim_numpy.py tests/test_api.py tests/test_growth.py
test-quick: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n auto -m 'not slow' $(QUICK)

## bench: run the ratio benchmarks (not part of the test suite)
bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache .hypothesis
