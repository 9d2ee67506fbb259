"""The repo's promises: two commands, pinned versions, conda in step with pip, a light import,
and functions short enough to read at a glance."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# The Pythons the README promises and the workflow runs.
SUPPORTED_PYTHONS = ("3.10", "3.11", "3.12", "3.13")
# conda-forge names that differ from PyPI's
CONDA_TO_PYPI = {"pytorch": "torch"}


def _name(requirement: str) -> str:
    return re.split(r"[=<>!~ ;\[]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _pyproject_names() -> set[str]:
    project = PYPROJECT["project"]
    reqs = project["dependencies"] + project["optional-dependencies"]["dev"]
    # Requirements limited by a marker (e.g. tomli on 3.10) are not for conda's Python 3.11.
    return {_name(r) for r in reqs if ";" not in r}


def _conda_names() -> set[str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    names = set()
    for dep in env["dependencies"]:
        if isinstance(dep, str):
            name = _name(dep)
            names.add(CONDA_TO_PYPI.get(name, name))
    return names - {"python", "pip"}


def test_environment_yml_names_the_same_packages_as_pyproject():
    assert _conda_names() == _pyproject_names()


def test_environment_yml_asks_for_cpu_pytorch_from_conda_forge():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert env["channels"][0] == "conda-forge"
    assert "pytorch=*=cpu*" in env["dependencies"]


def test_postbuild_installs_attnlib_and_is_executable():
    post = ROOT / "postBuild"
    assert os.access(post, os.X_OK)
    lines = post.read_text().splitlines()
    assert "set -e" in lines
    assert any("pip install" in line and " -e ." in line for line in lines)


def test_lock_pins_every_dependency_exactly_and_torch_to_the_cpu_wheel():
    pins = {}
    for line in (ROOT / "requirements-lock.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"not pinned exactly: {line}"
            pins[_name(name)] = version
    assert pins["torch"] == "2.13.0"
    assert _pyproject_names() <= set(pins), _pyproject_names() - set(pins)


def test_readme_gives_the_two_commands_and_ci_runs_the_test_one_then_check_all():
    readme = (ROOT / "README.md").read_text()
    assert "make lab" in readme and "make test" in readme and "make check-all" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test\nmake check-all$", ci, re.M)
    makefile = (ROOT / "Makefile").read_text()
    for target in ("lab:", "test:", "check-all:", "notebooks:", "bench:"):
        assert re.search(rf"^{target}", makefile, re.M), target


def test_make_test_and_check_all_split_the_tests_by_the_check_all_marker():
    # A test marked check_all leaves `make test` for `make check-all`; nothing is in neither.
    makefile = (ROOT / "Makefile").read_text()
    test = re.search(r"^test:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    check_all = re.search(r"^check-all:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert '-m "not check_all"' in test and "--nbval" in test
    assert re.search(r"\$\(PYTEST\) -m check_all$", check_all, re.M)
    markers = PYPROJECT["tool"]["pytest"]["ini_options"]["markers"]
    assert any(m.startswith("check_all:") for m in markers)
    assert "--strict-markers" in PYPROJECT["tool"]["pytest"]["ini_options"]["addopts"]


def test_import_attnlib_stays_light():
    code = "import sys, attnlib; print(sorted({'matplotlib', 'ipywidgets'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_public_names_of_design_are_exported():
    import attnlib

    for name in (
        "TOKENS example_inputs embed attention_scores_loop attention_scores softmax_naive "
        "softmax context_vector context_vectors causal_mask scaled_dot_product_attention "
        "check_scores check_weights check_context diagnose CheckpointError blockwise_attention"
    ).split():
        assert name in attnlib.__all__, name
    for name in attnlib.__all__:
        assert getattr(attnlib, name) is not None, name


def _repository() -> str:
    return PYPROJECT["project"]["urls"]["Repository"].rstrip("/")


def test_binder_badge_and_links_are_built_from_the_one_repository_address():
    repo = _repository()
    owner_name = repo.removeprefix("https://github.com/")
    binder = f"https://mybinder.org/v2/gh/{owner_name}/HEAD"
    first = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))[0].name
    expected = [
        f"{binder}?urlpath=lab/tree/notebooks/{first}",
        f"{binder}?urlpath=voila/render/notebooks/04_context_vectors.ipynb",
        f"{repo}/actions/workflows/tests.yml",
    ]
    readme = (ROOT / "README.md").read_text()
    for link in expected:
        assert link in readme, f"README should link {link}"
    # No other address for the repository creeps in.
    for found in re.findall(r"mybinder\.org/v2/gh/([^/]+/[^/]+)/", readme):
        assert found == owner_name
    for found in re.findall(r"github\.com/([^/\s)]+/[^/\s)]+)", readme):
        assert found == owner_name


def test_ci_workflow_runs_the_readme_test_command_then_check_all_with_a_browser():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "tests.yml").read_text())
    (job,) = workflow["jobs"].values()
    assert job["strategy"]["matrix"]["python-version"] == list(SUPPORTED_PYTHONS)
    runs = [step.get("run", "").strip() for step in job["steps"]]
    assert "make test" in runs
    test_step = next(s for s in job["steps"] if s.get("run", "").strip() == "make test")
    assert test_step["env"]["CI"] and "ATTNLIB_CHROMIUM" in test_step["env"]
    assert runs.index("make check-all") > runs.index("make test")
    check_all_step = job["steps"][runs.index("make check-all")]
    assert check_all_step["env"] == test_step["env"]
    assert any("chrom" in (s.get("uses", "") + s.get("name", "")).lower() for s in job["steps"])


CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def test_ci_installs_pytorch_from_its_cpu_index_and_checks_the_build():
    """CI takes PyTorch's CPU wheel, not PyPI's CUDA build, and fails if it did not."""
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "tests.yml").read_text())
    (job,) = workflow["jobs"].values()
    env = job.get("env") or {}
    # Job-level, so every step sees it: the install step and `make test` alike.
    indexes = f"{env.get('PIP_INDEX_URL', '')} {env.get('PIP_EXTRA_INDEX_URL', '')}".split()
    assert CPU_INDEX in indexes, f"job env should point pip at {CPU_INDEX}: {env}"
    for step in job["steps"]:
        step_env = step.get("env") or {}
        assert "PIP_INDEX_URL" not in step_env and "PIP_EXTRA_INDEX_URL" not in step_env, step
    runs = [step.get("run", "").strip() for step in job["steps"]]
    checks = [i for i, run in enumerate(runs) if "torch.version.cuda" in run]
    assert checks and checks[0] < runs.index("make test"), "check the CPU build before the tests"
    # The Makefile pins torch exactly, a pin that the CPU wheel, 2.13.0+cpu, satisfies, and
    # asks the CPU index for it on Linux before anything else is installed.
    makefile = (ROOT / "Makefile").read_text()
    torch_first = "-m pip install --quiet torch==2.13.0 --no-deps $(TORCH_INDEX)"
    assert makefile.index(torch_first) < makefile.index("-r requirements-lock.txt")
    assert "--extra-index-url $(TORCH_CPU_INDEX)" in makefile
    assert f"TORCH_CPU_INDEX := {CPU_INDEX}" in makefile


def test_readme_names_the_pythons_the_workflow_runs():
    readme = (ROOT / "README.md").read_text()
    listed = re.search(r"Python (3\.\d+(?:, 3\.\d+)*) (?:and|or) (3\.\d+)", readme)
    assert listed, "README should name the supported Pythons"
    assert (*listed.group(1).split(", "), listed.group(2)) == SUPPORTED_PYTHONS


def test_readme_is_short_and_its_local_links_and_the_docs_links_resolve():
    # A newcomer reads the README in a minute; the details live in docs/ and CONTRIBUTING.md.
    readme = ROOT / "README.md"
    assert len(readme.read_text().splitlines()) <= 120
    assert (ROOT / "CONTRIBUTING.md").is_file()
    for page in [readme, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" not in target:
                assert (page.parent / target).exists(), f"{page.name} links {target}"
