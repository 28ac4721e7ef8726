"""`make test-binder`: Binder's build, as far as a machine without Docker can check it.

repo2docker renders the Dockerfile Binder would build (`--no-build --debug`): it must take the
conda buildpack with Python 3.11, copy the repository before installing (the `-e .` of
environment.yml needs it), install environment.yml and then run postBuild. The install is then
replayed in a fresh virtual environment: Python 3.11, environment.yml's pip lines in its order
(every package from PyPI, as `make test` gets them), postBuild, and the welcome notebook and an
exercise notebook executed there with the offline model. Not part of `make test` (about a
minute of installing); `.ci/run` runs it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PYTHON311 = shutil.which("python3.11")


def _dockerfile() -> str:
    repo2docker = Path(sys.executable).with_name("repo2docker")
    done = subprocess.run(
        [str(repo2docker), "--no-build", "--debug", str(ROOT)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return done.stdout + done.stderr


def test_binder_builds_the_conda_buildpack_with_python_311_then_postbuild() -> None:
    text = _dockerfile()
    assert "Building conda environment for python=3.11" in text
    copy = text.index("COPY --chown=0:0 src/ ${REPO_DIR}/")
    update = text.index('env update -p ${NB_PYTHON_PREFIX} --file "environment.yml"')
    post = text.index("RUN ./postBuild")
    assert copy < update < post, "the repository is copied, then installed, then postBuild runs"


def _pip_lines() -> list[str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    (pip,) = [dep["pip"] for dep in env["dependencies"] if isinstance(dep, dict)]
    conda = [dep for dep in env["dependencies"] if isinstance(dep, str)]
    assert conda == ["python=3.11", "pip"], "conda gives Python and pip only; PyPI the rest"
    return pip


@pytest.fixture(scope="module")
def binder_env(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the repository copy, its virtual environment's bin), installed as Binder would."""
    if PYTHON311 is None:
        pytest.skip("python3.11 not found: Binder's Python")
    tmp = tmp_path_factory.mktemp("binder")
    repo = tmp / "repo"
    shutil.copytree(
        ROOT,
        repo,
        ignore=shutil.ignore_patterns(".venv*", "_site", "node_modules", ".git", "build",
                                      "*.egg-info", "__pycache__"),
    )  # fmt: skip
    subprocess.run([PYTHON311, "-m", "venv", str(tmp / "venv")], check=True)
    bin_ = tmp / "venv" / "bin"
    requirements = repo / "binder-requirements.txt"
    requirements.write_text("\n".join(_pip_lines()) + "\n")
    subprocess.run(
        [str(bin_ / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
         "-r", str(requirements)],
        cwd=repo, check=True, timeout=900,
    )  # fmt: skip
    env = {**os.environ, "PATH": f"{bin_}:{os.environ['PATH']}"}
    subprocess.run(["bash", "postBuild"], cwd=repo, env=env, check=True, timeout=60)
    return repo, bin_


def test_postbuild_switched_the_news_off(binder_env: tuple[Path, Path]) -> None:
    _, bin_ = binder_env
    overrides = bin_.parent / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    settings = json.loads(overrides.read_text())
    assert settings["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"


@pytest.mark.parametrize(
    ("notebook", "shows"),
    [
        ("notebooks/00_welcome.ipynb", "get_weather(Oslo) = city: Oslo, temperature_c: -3"),
        ("exercises/00_welcome.ipynb", "not done yet"),
    ],
)
def test_notebooks_run_in_the_binder_environment(
    binder_env: tuple[Path, Path], notebook: str, shows: str
) -> None:
    repo, bin_ = binder_env
    script = (
        "import sys, nbformat\n"
        "from nbclient import NotebookClient\n"
        "nb = nbformat.read(sys.argv[1], 4)\n"
        "NotebookClient(nb, timeout=300, kernel_name='python3', startup_timeout=120,\n"
        "               resources={'metadata': {'path': sys.argv[2]}}).execute()\n"
        "print(nbformat.writes(nb))\n"
    )
    done = subprocess.run(
        [str(bin_ / "python"), "-c", script, str(repo / notebook), str((repo / notebook).parent)],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "TOOLSYS_OFFLINE": "1", "PATH": f"{bin_}:{os.environ['PATH']}"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    executed = json.loads(done.stdout)
    outputs = [o for c in executed["cells"] if c["cell_type"] == "code" for o in c["outputs"]]
    assert not [o for o in outputs if o["output_type"] == "error"]
    assert re.search(re.escape(shows), json.dumps(outputs))
