"""Finding and loading libloadgen_ffi, and calling it: strings in and
out, errors from the per-thread last-error slot."""

import ctypes
import importlib.machinery
import json
import os
import threading
from pathlib import Path


class LoadgenError(Exception):
    """A call into the library failed; the message is the library's."""


_HANDLE = ctypes.c_uint64
_lock = threading.Lock()
_lib = None

# name: (argument types, result type)
_SIGNATURES = {
    "loadgen_version": ([], ctypes.c_void_p),
    "loadgen_create": ([ctypes.c_char_p], _HANDLE),
    "loadgen_run": ([_HANDLE], ctypes.c_void_p),
    "loadgen_metrics_snapshot": ([_HANDLE], ctypes.c_void_p),
    "loadgen_cancel": ([_HANDLE], ctypes.c_int32),
    "loadgen_destroy": ([_HANDLE], ctypes.c_int32),
    "loadgen_merge_reports": ([ctypes.c_char_p], ctypes.c_void_p),
    "loadgen_step_session_create": ([ctypes.c_char_p], _HANDLE),
    "loadgen_step_execute": ([_HANDLE, ctypes.c_char_p], ctypes.c_void_p),
    "loadgen_step_session_reset": ([_HANDLE], ctypes.c_int32),
    "loadgen_step_session_destroy": ([_HANDLE], ctypes.c_int32),
    "loadgen_last_error": ([], ctypes.c_void_p),
    "loadgen_free_string": ([ctypes.c_void_p], None),
}


def _bundled():
    """The library `pip install` built into this package, if it was."""
    here = Path(__file__).resolve().parent
    for suffix in (".abi3.so", *importlib.machinery.EXTENSION_SUFFIXES):
        path = here / f"_engine{suffix}"
        if path.exists():
            return path
    return None


def _candidates():
    """Where the library is looked for, in order (docs/ffi.md, "Finding
    the library"): the path LOADGEN_FFI_LIB names, and nothing else when it
    is set; the library installed with this package; the cargo target
    directory of the checkout this package sits in; the system's loader
    path, by name."""
    named = os.environ.get("LOADGEN_FFI_LIB")
    if named:
        yield named
        return
    bundled = _bundled()
    if bundled is not None:
        yield str(bundled)
    repo = Path(__file__).resolve().parents[3]
    if (repo / "Cargo.toml").exists():
        target = Path(os.environ.get("CARGO_TARGET_DIR") or repo / "target")
        for profile in ("library", "release", "debug"):
            yield str(target / profile / "libloadgen_ffi.so")
            yield str(target / profile / "deps" / "libloadgen_ffi.so")
    yield "libloadgen_ffi.so"


def _open(path):
    """The library at `path` (a bare name: through the loader's search),
    or None where there is none."""
    if os.sep in path and not Path(path).exists():
        return None
    try:
        return ctypes.CDLL(path)
    except OSError:
        if os.sep in path:
            raise
        return None


def library():
    """The loaded library, its functions typed (loaded once)."""
    global _lib
    with _lock:
        if _lib is None:
            tried = []
            for path in _candidates():
                tried.append(path)
                lib = _open(path)
                if lib is not None:
                    for name, (args, result) in _SIGNATURES.items():
                        function = getattr(lib, name)
                        function.argtypes = args
                        function.restype = result
                    _lib = lib
                    break
            else:
                raise LoadgenError(
                    "libloadgen_ffi.so not found (tried: " + ", ".join(tried) + "); "
                    "install the package with `pip install ./sdk/python`, or build the "
                    "library with `cargo build -p loadgen-ffi --profile library`, "
                    "or name it with LOADGEN_FFI_LIB"
                )
        return _lib


def library_path():
    """The path the library was opened by (a bare name when the system's
    loader found it)."""
    return library()._name


def _last_error(what):
    lib = library()
    pointer = lib.loadgen_last_error()
    if not pointer:
        return LoadgenError(f"{what} failed")
    try:
        return LoadgenError(ctypes.string_at(pointer).decode("utf-8"))
    finally:
        lib.loadgen_free_string(pointer)


def take_string(pointer, what):
    """The text of a string the library returned, freed; an error for NULL."""
    if not pointer:
        raise _last_error(what)
    lib = library()
    try:
        return ctypes.string_at(pointer).decode("utf-8")
    finally:
        lib.loadgen_free_string(pointer)


def check_handle(handle, what):
    if handle == 0:
        raise _last_error(what)
    return handle


def check_status(status, what):
    if status != 0:
        raise _last_error(what)


def encode(value):
    """A dict (or JSON text) as the bytes a function takes."""
    text = value if isinstance(value, str) else json.dumps(value)
    return text.encode("utf-8")


def version():
    """The library's version (the loadgen workspace's)."""
    return take_string(library().loadgen_version(), "loadgen_version")
