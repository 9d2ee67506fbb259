# attention, step by step: two commands, `make lab` and `make test`.
# Both create .venv on first use with the exact versions in requirements-lock.txt.
# `make check-all` runs what `make test` leaves out as too slow; CI runs both.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 8888
# Jupyter refuses to run as root (containers, CI) unless told to.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

# Tests and notebook runs keep Jupyter, IPython and matplotlib state out of $HOME.
STATE := $(CURDIR)/.cache/test-home
ISOLATED := JUPYTER_CONFIG_DIR=$(STATE)/jupyter-config JUPYTER_DATA_DIR=$(STATE)/jupyter-data \
	JUPYTER_RUNTIME_DIR=$(STATE)/jupyter-runtime IPYTHONDIR=$(STATE)/ipython \
	MPLCONFIGDIR=$(STATE)/matplotlib npm_config_cache=$(STATE)/npm

.PHONY: lab test check-all lint notebooks bench site npm bundle lock clean mutants student grade grade-merge

# PyPI's torch for Linux is the CUDA build, with gigabytes of nvidia-* wheels a CPU never
# uses. PyTorch's CPU index has the same release as 2.13.0+cpu, which `==2.13.0` matches and
# pip prefers (a local version sorts after the plain one). On Linux torch is installed on its
# own first, with that index asked too; then the build that came is named, in words if it
# is not the CPU one (the index unreachable, or without a wheel for this Python).
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
TORCH_INDEX := $(if $(filter Linux,$(shell uname -s)),--extra-index-url $(TORCH_CPU_INDEX))
define TORCH_BUILD
import platform, torch
where = f"PyTorch {torch.__version__} on Python {platform.python_version()}"
if torch.version.cuda:
    print(f"{where}: the CUDA {torch.version.cuda} build, not the CPU one, as PyTorch's CPU"
          " index ($(TORCH_CPU_INDEX)) could not be reached or has no wheel for this Python."
          " It computes on the CPU all the same, with gigabytes more installed.")
else:
    print(f"{where}: the CPU build.")
endef
export TORCH_BUILD

$(STAMP): requirements-lock.txt pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10) and "Python 3.10 or newer is needed")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet torch==2.13.0 --no-deps $(TORCH_INDEX)
	@# The lock is for Python 3.11; elsewhere take the newest versions pyproject allows,
	@# with torch still pinned so that every printed value stays the same.
	if $(BIN)/python -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then \
		$(BIN)/python -m pip install --quiet -r requirements-lock.txt; \
	else \
		$(BIN)/python -m pip install --quiet torch==2.13.0 -e '.[dev]'; \
	fi
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@$(BIN)/python -c "$$TORCH_BUILD"
	touch $(STAMP)

lab: $(STAMP)  ## open the course in JupyterLab
	$(BIN)/jupyter lab --ip=127.0.0.1 --port=$(PORT) --notebook-dir=notebooks $(ROOT_FLAG)

# The scripts the site's pages run (MathJax, require.js, the widgets' HTML manager, anywidget)
# and axe-core for its tests, at the versions pinned in tools/build_site.py (npm pack).
NPM_STAMP := .cache/npm/.fetched
$(NPM_STAMP): tools/build_site.py | $(STAMP)
	@if command -v npm >/dev/null 2>&1; then \
		$(BIN)/python tools/build_site.py --fetch && touch $@; \
	else \
		echo "npm not found: the exported pages' scripts are missing (their test skips; with CI set it fails)"; \
	fi

npm: $(NPM_STAMP)  ## fetch the exported pages' scripts (npm pack, pinned versions)

# The explorers' front end: static/src/*.js bundled by esbuild, pinned in package-lock.json.
node_modules/.package-lock.json: package.json package-lock.json
	$(ISOLATED) npm ci --no-audit --no-fund

bundle: node_modules/.package-lock.json  ## rebuild attnlib/widgets/static/explorer.js from static/src
	npm run --silent build > attnlib/widgets/static/explorer.js

# pytest on three workers with one torch thread per process, on two cores: much of a
# browser or notebook test is waiting on its browser, server or kernel, and a third worker
# fills that wait (measured here, fresh clone: 205 s on two workers, 185 s on three, 188 s
# on four); more torch threads than cores would make torch wait on itself.
# `--dist loadfile` keeps a file's tests on one worker (a file's servers and built site are
# started once); files are handed out in collection order, so the few long browser files
# and notebook 10 start first instead of last (conftest.py's LONG_FIRST; xdist would order
# them by number of tests).
WORKERS ?= 3
# pytest ends with make, even when make is killed outright: the recipe's shell becomes it
# (exec) and it takes the signal of its parent's death (tools/lifetime.py).
PYTEST := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(ISOLATED) \
	exec $(BIN)/python tools/lifetime.py --with-parent $(BIN)/python -m pytest \
	-n $(WORKERS) --dist loadfile --no-loadscope-reorder
# check-all's longer hypothesis search (tests/test_any_argument.py; its random search runs with
# the other check_all tests): the same draws each run, this many per test.
FUZZ_EXAMPLES ?= 1000

test: lint $(NPM_STAMP)  ## ruff, attnlib units, widgets, nbval over every notebook, browser
	$(PYTEST) --nbval -m "not check_all"

# What `make test` leaves out: tests marked check_all (full re-runs that repeat what nbval
# already checks, long sweeps), and a longer fuzz search. Exit code 5 is pytest's "no tests
# collected", not a failure.
check-all: $(STAMP) $(NPM_STAMP)  ## the slow checks make test leaves out (CI runs both)
	$(PYTEST) -m check_all
	ATTNLIB_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PYTEST) -m "not check_all" tests/test_any_argument.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check attnlib

notebooks: $(STAMP)  ## re-execute every notebook in place, in course order
	$(ISOLATED) $(BIN)/python tools/run_notebooks.py

bench: $(STAMP)  ## speed and memory measurements, each printed as ratios or peaks in one run
	$(ISOLATED) $(BIN)/python benchmarks/attention_speed.py
	$(ISOLATED) $(BIN)/python benchmarks/kernel_memory.py
	$(ISOLATED) $(BIN)/python benchmarks/widget_latency.py
	$(ISOLATED) $(BIN)/python benchmarks/own_rule.py

site: $(STAMP) $(NPM_STAMP)  ## the course as a website in site/ (Sphinx, MyST-NB, book theme), explorers alive offline
	$(ISOLATED) $(BIN)/python tools/build_site.py --out site

# The course for a class (nbgrader's layout): student/source/<assignment>/ the instructor
# version, student/release/<assignment>/ what students receive, solutions removed.
student: $(STAMP)  ## the student edition in student/: every notebook as an nbgrader assignment
	$(ISOLATED) $(BIN)/python tools/student_edition.py --out student

# The gradebook (tools/grading): each notebook under SUBMISSIONS (nbgrader's layout,
# <dir>/<student>/<assignment>/*.ipynb) runs in a sandbox; results go to OUT. Rerun to resume.
# GRADE_FLAGS: the limits, e.g. "--cell-seconds 30 --notebook-seconds 300 --memory-gb 2".
# Each run is sandboxed by bubblewrap; with none here grading refuses, unless UNSANDBOXED=1
# (--unsandboxed-i-trust-every-submission). SHARD=i/n grades one slice of the class (one
# job of a cluster's array, docs/instructors.md); `make grade-merge` then writes the gradebook.
OUT ?= grading
JOBS ?= $(shell nproc)
GRADE_FLAGS ?=
SHARD ?=
UNSANDBOXED ?=
GRADE_ARGS = "$(SUBMISSIONS)" --out "$(OUT)" --jobs $(JOBS) $(GRADE_FLAGS) \
	$(if $(SHARD),--shard $(SHARD)) $(if $(UNSANDBOXED),--unsandboxed-i-trust-every-submission)
grade: $(STAMP)  ## make grade SUBMISSIONS=dir [OUT=grading] [SHARD=i/n]: the gradebook of a class's notebooks
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=dir [OUT=grading] [JOBS=n] [SHARD=i/n] [UNSANDBOXED=1]"; exit 2; }
	$(ISOLATED) $(BIN)/python -m tools.grading $(GRADE_ARGS)

grade-merge: $(STAMP)  ## make grade-merge SUBMISSIONS=dir [OUT=grading]: one gradebook from every shard's results
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade-merge SUBMISSIONS=dir [OUT=grading]"; exit 2; }
	$(ISOLATED) $(BIN)/python -m tools.grading "$(SUBMISSIONS)" --out "$(OUT)" --merge

lock: $(STAMP)  ## record the exact versions of the working .venv
	{ echo "# The exact versions tested (Python 3.11, CPU). The Makefile installs these into .venv."; \
	  echo "# Regenerate from a working .venv with: make lock"; \
	  $(BIN)/python -m pip freeze --exclude-editable | sed 's/^torch==\(.*\)+cpu$$/torch==\1/'; } > requirements-lock.txt

clean:
	rm -rf $(VENV) .cache

# Mutation testing (issue #13), not part of `make test`: mutmut changes attention.py and
# checks.py one mutant at a time in mutants/ (git-ignored, outside pytest's testpaths) and
# runs the fast unit tests named in pyproject.toml's [tool.mutmut]. Each run starts afresh,
# as mutmut would keep stale copies of the modules it does not mutate. One torch thread per
# test run: a worker forked from a process whose torch thread pool has started can hang.
MUTMUT_VERSION := 3.8.1
MUTANTS_MIN ?= 95
MUTANTS_JOBS ?= 2

mutants: $(STAMP)  ## mutation score of attention.py and checks.py, printed as its last line
	$(BIN)/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("mutmut") != "$(MUTMUT_VERSION)")' \
		2>/dev/null || $(BIN)/python -m pip install --quiet mutmut==$(MUTMUT_VERSION)
	rm -rf mutants
	OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(ISOLATED) $(BIN)/mutmut run --max-children $(MUTANTS_JOBS)
	$(BIN)/python tools/mutation_score.py --fail-under $(MUTANTS_MIN)
