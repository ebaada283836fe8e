"""Build of the zkl Python binding: SWIG (Debian's swig 4.1) generates the
low-level module zkl.capi from src/zkl/capi.i and zkl.h; the extension
zkl._capi links against libzkl.

libzkl is found, in this order, via
  ZKL_PREFIX      an install prefix (PREFIX/include/zkl.h, PREFIX/lib/libzkl.so)
  zkl-src/        the sdist's own copy of libzkl's sources (with the ZooKeeper
                  C client prepared and abseil's sources, both linked into
                  libzkl): built with cmake into a shared libzkl.so.1 that is
                  installed inside the package next to the extension (RUNPATH
                  $ORIGIN), so no system libzkl or abseil is needed. Needs
                  cmake (>= 3.20), a C/C++ compiler and the OpenSSL headers
                  (libssl-dev); with the Cyrus SASL headers (libsasl2-dev)
                  it also gets SASL (ZKL_WITH_SASL=ON/OFF: required/never).
                  ZKL_PKG_CONFIG=1 skips it in favour of pkg-config.
  pkg-config zkl  (PKG_CONFIG_PATH as usual)
With a shared libzkl, its directory is recorded as the extension's rpath, so
the installed module finds libzkl without LD_LIBRARY_PATH (ZKL_NO_RPATH=1: no
rpath; ZKL_RPATH=...: exactly that run path instead, set with patchelf, e.g.
'$ORIGIN' for the wheel that carries libzkl next to the extension, see
packaging/python/build.sh).
ZKL_WERROR=1 compiles the extension with -Werror.
SWIG is `swig` on PATH, or the SWIG environment variable. The sdist carries
SWIG's output (swig/capi_wrap.c, swig/capi.py, made by
packaging/python/build.sh), used while swig/SOURCES.sha256 matches capi.i and
zkl.h, so installing it needs no swig.
"""
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
INTERFACE = os.path.join("src", "zkl", "capi.i")
BUNDLED_SRC = os.path.join(HERE, "zkl-src")
PREGENERATED = os.path.join(HERE, "swig")


def _sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _pregenerated_swig(header):
    """True when swig/ holds SWIG's output for exactly this capi.i and zkl.h."""
    sums = os.path.join(PREGENERATED, "SOURCES.sha256")
    if not header or not all(os.path.exists(os.path.join(PREGENERATED, f))
                             for f in ("SOURCES.sha256", "capi_wrap.c", "capi.py")):
        return False
    want = {}
    with open(sums, encoding="utf-8") as f:
        for line in f:
            digest, _, name = line.strip().partition("  ")
            want[os.path.basename(name)] = digest
    return (want.get("capi.i") == _sha256(os.path.join(HERE, INTERFACE))
            and want.get("zkl.h") == _sha256(header))


def _pkg_config(*args):
    exe = shutil.which("pkg-config")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, *args, "zkl"], check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError:
        return None
    return shlex.split(out.stdout)


def _header_version(header):
    text = open(header, encoding="utf-8").read()
    parts = [re.search(rf"^#define ZKL_VERSION_{p} (\d+)", text, re.M) for p in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        sys.exit(f"setup.py: {header} has no ZKL_VERSION_MAJOR/MINOR/PATCH")
    return ".".join(m.group(1) for m in parts)


def _env_bool(name):
    """A yes/no environment variable: unset or empty is no; 1/0, true/false,
    yes/no, on/off in any case; anything else stops the build."""
    value = os.environ.get(name, "")
    if value.lower() in ("", "0", "false", "no", "off"):
        return False
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    sys.exit(f"setup.py: ${name} must be one of 1/0, true/false, yes/no, on/off (any case), "
             f"not {value!r}")


def _use_bundled_sources():
    return (not os.environ.get("ZKL_PREFIX") and not _env_bool("ZKL_PKG_CONFIG")
            and os.path.exists(os.path.join(BUNDLED_SRC, "include", "zkl.h")))


def find_libzkl():
    """(include_dirs, library_dirs) of an installed shared libzkl."""
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
    """Finds (or builds) libzkl, runs SWIG on capi.i, writing capi.py next to
    the extension, and builds the extension."""

    def swig_sources(self, sources, extension):  # setuptools' own SWIG step: not used
        return sources

    def _build_bundled_libzkl(self):
        """cmake-builds zkl-src/ into a shared libzkl; returns its directory."""
        cmake = os.environ.get("CMAKE") or shutil.which("cmake")
        if not cmake:
            sys.exit("setup.py: building libzkl from the sdist's sources needs cmake "
                     "(or set ZKL_PREFIX / ZKL_PKG_CONFIG=1 to use an installed libzkl)")
        bdir = os.path.abspath(os.path.join(self.build_temp, "libzkl"))
        os.makedirs(bdir, exist_ok=True)
        cmd = [cmake, "-S", BUNDLED_SRC, "-B", bdir, "-DCMAKE_BUILD_TYPE=Release",
               "-DZKL_BUILD_STATIC=OFF", "-DZKL_BUILD_TESTS=OFF", "-DZKL_BUILD_BENCH=OFF",
               "-DZKL_WERROR=OFF",
               "-DZKL_ZOOKEEPER_SOURCE_DIR=" + os.path.join(BUNDLED_SRC, "third_party", "zookeeper", "src")]
        absl = os.path.join(BUNDLED_SRC, "third_party", "abseil")
        if os.path.exists(os.path.join(absl, "CMakeLists.txt")):
            cmd.append("-DZKL_ABSEIL_SOURCE_DIR=" + absl)  # linked into libzkl: no libabsl-dev needed
        if os.environ.get("ZKL_WITH_SASL"):
            cmd.append("-DZKL_WITH_SASL=" + os.environ["ZKL_WITH_SASL"])
        if shutil.which("ninja"):
            cmd += ["-G", "Ninja"]
        self.announce(" ".join(cmd), level=2)
        subprocess.run(cmd, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run([cmake, "--build", bdir, "--target", "zkl", "-j", jobs], check=True)
        if not os.path.exists(os.path.join(bdir, "libzkl.so.1")):
            sys.exit(f"setup.py: the cmake build left no {bdir}/libzkl.so.1")
        return bdir

    def _configure(self, ext):
        if _use_bundled_sources():
            ext.include_dirs = [os.path.join(BUNDLED_SRC, "include")]
            ext.library_dirs = [self._build_bundled_libzkl()]
            ext.libraries = ["zkl"]
            ext.runtime_library_dirs = ["$ORIGIN"]  # libzkl.so.1 is copied next to it
            return
        include_dirs, library_dirs = find_libzkl()
        ext.include_dirs = include_dirs
        ext.library_dirs = library_dirs
        ext.libraries = ["zkl"]
        if os.environ.get("ZKL_RPATH"):
            ext.runtime_library_dirs = os.environ["ZKL_RPATH"].split(os.pathsep)
        elif not _env_bool("ZKL_NO_RPATH"):
            ext.runtime_library_dirs = library_dirs

    def build_extension(self, ext):
        if ext.name == "zkl._capi":
            self._configure(ext)
            if _env_bool("ZKL_WERROR"):  # packaging/python/build.sh: warnings are errors
                ext.extra_compile_args = [*ext.extra_compile_args, "-Werror"]
            header = next((os.path.join(d, "zkl.h") for d in ext.include_dirs
                           if os.path.exists(os.path.join(d, "zkl.h"))), None)
            want = self.distribution.get_version()
            if header and _header_version(header) != want:
                sys.exit(f"setup.py: {header} is zkl {_header_version(header)}, "
                         f"this package is {want}: the versions must agree")
            outdir = os.path.dirname(self.get_ext_fullpath(ext.name))
            os.makedirs(outdir, exist_ok=True)
            os.makedirs(self.build_temp, exist_ok=True)
            wrapper = os.path.join(self.build_temp, "capi_wrap.c")
            if _pregenerated_swig(header):
                self.announce("using the SWIG output in swig/ (made for this capi.i and zkl.h)", level=2)
                shutil.copyfile(os.path.join(PREGENERATED, "capi_wrap.c"), wrapper)
                shutil.copyfile(os.path.join(PREGENERATED, "capi.py"), os.path.join(outdir, "capi.py"))
            else:
                swig = os.environ.get("SWIG") or shutil.which("swig") or shutil.which("swig4.0")
                if not swig:
                    sys.exit("setup.py: swig not found (apt-get install swig)")
                cmd = [swig, "-python", "-threads", "-Wall"]
                cmd += [f"-I{d}" for d in ext.include_dirs]
                cmd += ["-outdir", outdir, "-o", wrapper, os.path.join(HERE, INTERFACE)]
                self.announce(" ".join(cmd), level=2)
                subprocess.run(cmd, check=True)
            ext.sources = [wrapper]
        super().build_extension(ext)
        if ext.name == "zkl._capi" and _use_bundled_sources():
            shutil.copyfile(os.path.join(ext.library_dirs[0], "libzkl.so.1"),
                            os.path.join(os.path.dirname(self.get_ext_fullpath(ext.name)), "libzkl.so.1"))
        if ext.name == "zkl._capi" and os.environ.get("ZKL_RPATH"):
            # Exactly that run path: the interpreter's own link flags may add
            # one (e.g. pyenv's -rpath to its lib/), which a wheel must not keep.
            patchelf = shutil.which("patchelf")
            if not patchelf:
                sys.exit("setup.py: ZKL_RPATH needs patchelf (apt-get install patchelf)")
            subprocess.run([patchelf, "--set-rpath", os.environ["ZKL_RPATH"],
                            self.get_ext_fullpath(ext.name)], check=True)


class BuildPy(build_py):
    """Builds the extension first, so that the generated capi.py exists."""

    def run(self):
        self.run_command("build_ext")
        super().run()


setup(
    ext_modules=[
        Extension(
            "zkl._capi",
            sources=[INTERFACE],  # replaced by SWIG's wrapper in BuildExt
            extra_compile_args=["-Wno-unused-parameter"],
        )
    ],
    cmdclass={"build_ext": BuildExt, "build_py": BuildPy},
)
