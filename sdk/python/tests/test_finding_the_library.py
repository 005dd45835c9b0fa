"""Where the package finds the engine (docs/ffi.md, "Finding the
library"), what `pip install` bundles, and what `help()` shows."""

import os
import pydoc
import shutil
import subprocess
import sys
from pathlib import Path

import loadgen
import pytest

PACKAGE = Path(loadgen.__file__).resolve().parent
CHECKOUT_PACKAGE = Path(__file__).resolve().parents[1]
INSTALLED = not (PACKAGE.parent / "pyproject.toml").exists()


def python(code, **env):
    """Runs `code` in a fresh interpreter with only the variables given
    (and PATH), so that nothing of this process's search leaks in."""
    environment = {"PATH": os.environ["PATH"], **env}
    return subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True)


@pytest.mark.skipif(not INSTALLED, reason="the checkout's package: nothing is bundled")
def test_the_installed_package_loads_the_library_bundled_with_it():
    if "LOADGEN_FFI_LIB" in os.environ:
        pytest.skip("LOADGEN_FFI_LIB names another library")
    loaded = Path(loadgen.library_path())
    assert loaded.parent == PACKAGE
    assert loaded.name.startswith("_engine.")
    assert loadgen.version()


@pytest.mark.skipif(not INSTALLED, reason="the checkout's package: nothing is bundled")
def test_the_bundled_library_unwinds():
    # Built with the `library` profile (panic = "unwind"), the library
    # raises panics through the unwinder, which the boundary catches; a
    # panic = "abort" build never calls it.
    bundled = next(PACKAGE.glob("_engine.*"))
    symbols = subprocess.run(["nm", "-D", "--undefined-only", str(bundled)],
                             capture_output=True, text=True, check=True).stdout
    assert "_Unwind_RaiseException" in symbols


def test_loadgen_ffi_lib_overrides_and_is_not_second_guessed(tmp_path):
    missing = tmp_path / "libloadgen_ffi.so"
    result = python("import loadgen; loadgen.version()", LOADGEN_FFI_LIB=str(missing),
                    PYTHONPATH=str(PACKAGE.parent))
    assert result.returncode != 0
    assert f"tried: {missing})" in result.stderr


def test_without_a_bundled_library_the_system_loader_path_is_searched(tmp_path):
    source = Path(loadgen.library_path())
    if not source.is_absolute():
        pytest.skip("the library in use was itself found by the loader")
    (tmp_path / "lib").mkdir()
    shutil.copy(source, tmp_path / "lib" / "libloadgen_ffi.so")
    (tmp_path / "no-target").mkdir()
    code = "import loadgen; print(loadgen.library_path(), loadgen.version())"
    found = python(code, PYTHONPATH=str(CHECKOUT_PACKAGE), CARGO_TARGET_DIR=str(tmp_path / "no-target"),
                   LD_LIBRARY_PATH=str(tmp_path / "lib"))
    assert found.returncode == 0, found.stderr
    assert found.stdout.startswith("libloadgen_ffi.so ")

    nowhere = python(code, PYTHONPATH=str(CHECKOUT_PACKAGE), CARGO_TARGET_DIR=str(tmp_path / "no-target"))
    assert nowhere.returncode != 0
    assert "libloadgen_ffi.so not found" in nowhere.stderr
    assert str(tmp_path / "no-target" / "library" / "libloadgen_ffi.so") in nowhere.stderr


def test_help_shows_the_types_and_the_plan():
    text = pydoc.render_doc(loadgen.run, renderer=pydoc.plaintext)
    assert "run(plan: Union[Mapping[str, Any], str]) -> loadgen.report.Report" in text
    assert '"mode": {"requests": 1000}' in text
    assert "LoadgenError" in text
    assert "-> loadgen.report.Report" in pydoc.render_doc(loadgen.merge, renderer=pydoc.plaintext)
