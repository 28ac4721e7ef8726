"""Build the browser edition: wheels for Pyodide, an unpacked copy for Node, the JupyterLite site.

    python docs/lite/build.py wheels   # _site/wheels/: toolsys + docs/lite/requirements.txt
    python docs/lite/build.py env      # _site/pyodide-env/site-packages: those wheels unpacked
    python docs/lite/build.py lite     # _site/lite/: the JupyterLite site (make lite)

Why a script and not only `jupyter lite build`: Pyodide's own distribution (micropip and every
package wheel) is normally loaded from a CDN at run time, which a machine with no network cannot
reach. The site built here carries everything the lessons need: the npm `pyodide` core, a
lock file whose micropip is a local wheel (every other package of the full distribution, numpy
and matplotlib among them, still comes from the CDN when it is reachable), and our wheels.
Every step is pinned: Pyodide by docs/package.json, Python packages by docs/lite/requirements.txt.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LITE = DOCS / "lite"
OUT = ROOT / "_site"
WHEELS = OUT / "wheels"
ENV = OUT / "pyodide-env"
PYODIDE = DOCS / "node_modules" / "pyodide"
PLATFORM = "pyemscripten_2026_0_wasm32"  # Pyodide 314's ABI (PEP 783)
PYTHON = "3.14"
CDN = "https://cdn.jsdelivr.net/pyodide/v{version}/full/"
# Built from the sdist: these have no Emscripten wheel on PyPI and work as pure Python.
FROM_SDIST = {"pyyaml": {"PYYAML_FORCE_LIBYAML": "0"}}
# Lessons read these files next to the notebooks (chapter 09's OpenAPI document).
DATA = ["tests/data/petstore-openapi.yaml"]
# The books a learner opens in the browser: lessons and exercises (solutions stay out).
CONTENTS = ["notebooks", "exercises"]


def requirements() -> list[tuple[str, str]]:
    """(name, version) of every browser package, in file order."""
    pins = []
    for line in (LITE / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            pins.append((name, version))
    return pins


def _pip(*args: str, env: dict[str, str] | None = None) -> None:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args]
    subprocess.run(command, check=True, env={**os.environ, **(env or {})})


def wheels() -> Path:
    """Download the pinned wheels (Emscripten or pure Python) and build toolsys's own."""
    WHEELS.mkdir(parents=True, exist_ok=True)
    for old in WHEELS.glob("toolsys-*.whl"):
        old.unlink()
    pins = requirements()
    binary = [f"{n}=={v}" for n, v in pins if n not in FROM_SDIST]
    have = {_dist(p.name) for p in WHEELS.glob("*.whl")}
    wanted = [spec for spec in binary if _dist(spec.replace("==", "-") + "-x.whl") not in have]
    if wanted:
        _pip(
            "download", "--no-deps", "--only-binary=:all:", "-d", str(WHEELS),
            "--platform", PLATFORM, "--platform", "any",
            "--python-version", PYTHON, "--implementation", "cp", *wanted,
        )  # fmt: skip
    for name, version in pins:
        if name in FROM_SDIST and (name, version) not in have:
            _pure_wheel(name, version, FROM_SDIST[name])
    with tempfile.TemporaryDirectory() as tmp:  # a clean copy: no stale build/ folder
        source = Path(tmp) / "src"
        shutil.copytree(
            ROOT, source, ignore=shutil.ignore_patterns(".venv*", "_site", "node_modules", ".git",
                                                        "build", "*.egg-info", "__pycache__")
        )  # fmt: skip
        _pip("wheel", "--no-deps", "-w", str(WHEELS), str(source))
    return WHEELS


def _dist(filename: str) -> tuple[str, str]:
    name, version = filename.split("-")[:2]
    return re.sub(r"[-_.]+", "-", name).lower(), version


def _pure_wheel(name: str, version: str, env: dict[str, str]) -> None:
    """Build `name` from its sdist without C extensions, and tag the wheel py3-none-any."""
    with tempfile.TemporaryDirectory() as tmp:
        _pip("wheel", "--no-deps", "--no-binary", name, "-w", tmp, f"{name}=={version}", env=env)
        (built,) = Path(tmp).glob("*.whl")
        with zipfile.ZipFile(built) as source:
            names = source.namelist()
            if any(n.endswith((".so", ".pyd")) for n in names):
                raise SystemExit(f"{built.name} has a compiled extension: it cannot be pure")
            files = {n: source.read(n) for n in names}
        stem = built.name.split("-")[0]
        target = WHEELS / f"{stem}-{version}-py3-none-any.whl"
        info = f"{stem}-{version}.dist-info"
        files[f"{info}/WHEEL"] = re.sub(
            rb"Root-Is-Purelib: false", b"Root-Is-Purelib: true",
            re.sub(rb"Tag: .*", b"Tag: py3-none-any", files[f"{info}/WHEEL"]),
        )  # fmt: skip
        record = []
        for n, data in files.items():
            if n.endswith("RECORD"):
                continue
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{n},sha256={digest.decode()},{len(data)}")
        record.append(f"{info}/RECORD,,")
        files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
            for n, data in files.items():
                out.writestr(n, data)


def env() -> Path:
    """The wheels unpacked into one site-packages folder, for Pyodide under Node."""
    site = ENV / "site-packages"
    stamp = ENV / "wheels.json"
    current = sorted(p.name + str(p.stat().st_size) for p in WHEELS.glob("*.whl"))
    if site.is_dir() and stamp.exists() and json.loads(stamp.read_text()) == current:
        return site
    shutil.rmtree(ENV, ignore_errors=True)
    site.mkdir(parents=True)
    for wheel in sorted(WHEELS.glob("*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(site)
    stamp.write_text(json.dumps(current))
    return site


def lite() -> Path:
    """The JupyterLite site in _site/lite (see the module docstring)."""
    if not (PYODIDE / "pyodide.mjs").exists():
        raise SystemExit("docs/node_modules/pyodide is missing: run `npm ci --prefix docs` first")
    target = OUT / "lite"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        contents = work / "contents"
        for folder in CONTENTS:
            # what a test run leaves there (.hypothesis, caches) is not the site's to serve
            hidden = shutil.ignore_patterns(".*", "__pycache__", "*.pyc")
            shutil.copytree(ROOT / folder, contents / folder, ignore=hidden)
            for notebook in (contents / folder).glob("*.ipynb"):
                _add_bootstrap(notebook)
        for name in DATA:
            (contents / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, contents / name)
        shutil.copy(LITE / "README.md", contents / "README.md")
        distribution = _pyodide_distribution(work / "pyodide")
        shutil.copy(LITE / "jupyter-lite.json", work / "jupyter-lite.json")
        shutil.copy(LITE / "overrides.json", work / "overrides.json")
        shutil.rmtree(target, ignore_errors=True)
        command = [
            sys.executable, "-m", "jupyterlite_core", "build",
            "--lite-dir", str(work), "--contents", str(contents),
            "--output-dir", str(target), "--piplite-wheels", str(WHEELS),
            "--pyodide", str(distribution), "--settings-overrides", str(work / "overrides.json"),
            "--no-sourcemaps", "--no-unused-shared-packages",
        ]  # fmt: skip
        subprocess.run(command, check=True, cwd=work)
    return target


# Installed by the pyodide kernel itself (from this site's wheels), or needed only under Node.
KERNEL_OWN = {"ipython", "ipython-pygments-lexers", "pygments", "jedi", "parso", "prompt-toolkit",
              "wcwidth", "stack-data", "asttokens", "executing", "pure-eval", "traitlets", "comm",
              "matplotlib-inline", "widgetsnbextension", "jupyterlab-widgets"}  # fmt: skip
BOOTSTRAP_TAG = "toolsys-browser-bootstrap"


def bootstrap_source() -> str:
    """The first cell of every notebook in the site: install toolsys and its wheels, offline."""
    names = ["toolsys"] + [name for name, _ in requirements() if name not in KERNEL_OWN]
    listed = ",\n".join(f"    {name!r}" for name in names)
    return (
        "# The browser edition: install toolsys and what it needs from this site (no network).\n"
        "import piplite\n\n"
        f"await piplite.install([\n{listed},\n], deps=False)\n"
        "import toolsys\n\n"
        'print("toolsys is ready in the browser")'
    )


def _add_bootstrap(path: Path) -> None:
    """Put the bootstrap cell first in the site's copy of a notebook (never in the repository)."""
    notebook = json.loads(path.read_text())
    cell = {
        "cell_type": "code",
        "execution_count": None,
        "id": BOOTSTRAP_TAG,
        "metadata": {"tags": [BOOTSTRAP_TAG]},
        "outputs": [],
        "source": bootstrap_source(),
    }
    notebook["cells"].insert(0, cell)
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")


def _pyodide_distribution(folder: Path) -> Path:
    """The npm core plus a lock file: micropip from a local wheel, the rest from the CDN."""
    shutil.copytree(PYODIDE, folder, ignore=shutil.ignore_patterns("*.map", "*.d.ts", "*.html"))
    version = json.loads((PYODIDE / "package.json").read_text())["version"]
    lock = json.loads((PYODIDE / "pyodide-lock.json").read_text())
    local = {name: _pypi_wheel(name, folder) for name in ("micropip", "packaging")}
    for wheel in WHEELS.glob("*.whl"):  # micropip prefers the lock to the site's index: ours
        name = _dist(wheel.name)[0]
        if name in lock["packages"] and name not in local:
            local[name] = Path(shutil.copy(wheel, folder))
    for name, package in lock["packages"].items():
        if name in local:
            wheel = local[name]
            package["file_name"] = wheel.name
            package["sha256"] = hashlib.sha256(wheel.read_bytes()).hexdigest()
            package["version"] = wheel.name.split("-")[1]
            package["depends"] = [d for d in package["depends"] if d in local]
        else:
            package["file_name"] = CDN.format(version=version) + package["file_name"]
    (folder / "pyodide-lock.json").write_text(json.dumps(lock))
    archive = folder.parent / "pyodide.tar.bz2"
    shutil.make_archive(str(archive).removesuffix(".tar.bz2"), "bztar", folder.parent, "pyodide")
    return archive


def _pypi_wheel(name: str, folder: Path) -> Path:
    """The pure wheel of `name` pinned in docs/lite/lock-extra.txt, downloaded into `folder`."""
    pins = dict(
        line.split("==") for line in (LITE / "lock-extra.txt").read_text().split() if "==" in line
    )
    _pip(
        "download", "--no-deps", "--only-binary=:all:", "--python-version", PYTHON,
        "-d", str(folder), f"{name}=={pins[name]}",
    )  # fmt: skip
    return next(folder.glob(f"{name}-{pins[name]}-*.whl"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", choices=["wheels", "env", "lite"])
    step = parser.parse_args().step
    print({"wheels": wheels, "env": env, "lite": lite}[step]())


if __name__ == "__main__":
    main()
