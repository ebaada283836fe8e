"""Build of the zkl Python binding: SWIG (Debian's swig 4.1) generates the
low-level module zkl.capi from src/zkl/capi.i and zkl.h; the extension
zkl._capi links against an installed libzkl.

libzkl is found, in this order, via
  ZKL_PREFIX      an install prefix (PREFIX/include/zkl.h, PREFIX/lib/libzkl.so)
  pkg-config zkl  (PKG_CONFIG_PATH as usual)
The library directory is recorded as the extension's rpath, so the installed
module finds libzkl without LD_LIBRARY_PATH (unless ZKL_NO_RPATH=1).
SWIG is `swig` on PATH, or the SWIG environment variable.
"""
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
INTERFACE = os.path.join("src", "zkl", "capi.i")


def _pkg_config(*args):
    exe = shutil.which("pkg-config")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, *args, "zkl"], check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError:
        return None
    return shlex.split(out.stdout)


def find_libzkl():
    """(include_dirs, library_dirs) of libzkl."""
    prefix = os.environ.get("ZKL_PREFIX")
    if prefix:
        inc = os.path.join(prefix, "include")
        libs = [d for d in (os.path.join(prefix, "lib"), os.path.join(prefix, "lib64"))
                if os.path.isdir(d)]
        if not os.path.exists(os.path.join(inc, "zkl.h")):
            sys.exit(f"setup.py: ZKL_PREFIX={prefix} has no include/zkl.h")
        return [inc], libs
    cflags = _pkg_config("--cflags-only-I")
    ldflags = _pkg_config("--libs-only-L")
    if cflags is None or ldflags is None:
        sys.exit("setup.py: libzkl not found: set ZKL_PREFIX to its install prefix, "
                 "or PKG_CONFIG_PATH so that `pkg-config zkl` works")
    incs = [f[2:] for f in cflags if f.startswith("-I")]
    libs = [f[2:] for f in ldflags if f.startswith("-L")]
    if not libs:
        out = _pkg_config("--variable=libdir")
        libs = out or []
    return incs, libs


class BuildExt(build_ext):
    """Runs SWIG on capi.i, writing capi.py next to the extension."""

    def swig_sources(self, sources, extension):  # setuptools' own SWIG step: not used
        return sources

    def build_extension(self, ext):
        if ext.name == "zkl._capi":
            swig = os.environ.get("SWIG") or shutil.which("swig") or shutil.which("swig4.0")
            if not swig:
                sys.exit("setup.py: swig not found (apt-get install swig)")
            outdir = os.path.dirname(self.get_ext_fullpath(ext.name))
            os.makedirs(outdir, exist_ok=True)
            os.makedirs(self.build_temp, exist_ok=True)
            wrapper = os.path.join(self.build_temp, "capi_wrap.c")
            cmd = [swig, "-python", "-threads", "-Wall"]
            cmd += [f"-I{d}" for d in ext.include_dirs]
            cmd += ["-outdir", outdir, "-o", wrapper, os.path.join(HERE, INTERFACE)]
            self.announce(" ".join(cmd), level=2)
            subprocess.run(cmd, check=True)
            ext.sources = [wrapper]
        super().build_extension(ext)


class BuildPy(build_py):
    """Builds the extension first, so that the generated capi.py exists."""

    def run(self):
        self.run_command("build_ext")
        super().run()


include_dirs, library_dirs = find_libzkl()
rpath = [] if os.environ.get("ZKL_NO_RPATH") == "1" else library_dirs

setup(
    ext_modules=[
        Extension(
            "zkl._capi",
            sources=[INTERFACE],
            include_dirs=include_dirs,
            library_dirs=library_dirs,
            runtime_library_dirs=rpath,
            libraries=["zkl"],
            extra_compile_args=["-Wno-unused-parameter"],
        )
    ],
    cmdclass={"build_ext": BuildExt, "build_py": BuildPy},
)
