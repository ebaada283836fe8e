// Two ways to libzkl, chosen by feature (`system` wins when both are on):
//
// - `bundled` (default): builds libzkl, its ZooKeeper C client and the
//   abseil pieces it uses into one static archive (libzkl_bundle.a, CMake
//   option ZKL_BUILD_STATIC) with the cmake crate, and links it statically.
//   The sources are the crate's own zkl-src/ (staged by
//   packaging/rust/build.sh: libzkl's src/, include/, CMake files and the
//   prepared, patched ZooKeeper C client with its generated jute files, so
//   no Java is needed), or, in a git checkout, the repository itself. The
//   program then needs only OpenSSL 3, Cyrus SASL and libstdc++ at run time.
//   Building needs cmake, a C/C++ compiler, libabsl-dev, libssl-dev and
//   libsasl2-dev.
// - `system`: finds an installed libzkl with pkg-config (PKG_CONFIG_PATH for
//   a non-system install) and gives this package's binaries (its tests) a
//   run path to it, so that they run without LD_LIBRARY_PATH.
//
// - DOCS_RS set (docs.rs): neither; nothing is built, probed or linked.
//
// Either way dependents' build scripts learn where zkl.h is (DEP_ZKL_INCLUDE)
// and, for `system`, where the library is (DEP_ZKL_LIBDIR).
use std::env;
use std::path::{Path, PathBuf};

fn main() {
    // docs.rs: no network, no cmake build, no libabsl-dev, no libzkl to probe;
    // the documentation needs none of it (the declarations are plain Rust).
    println!("cargo:rerun-if-env-changed=DOCS_RS");
    if env::var_os("DOCS_RS").is_some() {
        docs_rs();
        return;
    }
    let system = env::var_os("CARGO_FEATURE_SYSTEM").is_some();
    let bundled = env::var_os("CARGO_FEATURE_BUNDLED").is_some();
    if system || !bundled {
        system_libzkl();
    } else {
        #[cfg(feature = "bundled")]
        bundled_libzkl();
    }
}

/// Under docs.rs: only what dependents' build scripts and the header-drift
/// test name (DEP_ZKL_INCLUDE, ZKL_SYS_HEADER), from the crate's own copy.
fn docs_rs() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let packaged = manifest.join("zkl-src/include/zkl.h");
    let checkout = manifest.join("../../../include/zkl.h");
    if let Some(header) = [packaged, checkout].into_iter().find(|h| h.exists()) {
        export_header(&header);
    } else {
        println!("cargo:rustc-env=ZKL_SYS_HEADER=zkl.h");
    }
}

/// The header the declarations are checked against (tests/header_drift.rs).
fn export_header(header: &Path) {
    if let Some(dir) = header.parent() {
        println!("cargo:include={}", dir.display());
    }
    println!("cargo:rustc-env=ZKL_SYS_HEADER={}", header.display());
    println!("cargo:rerun-if-changed={}", header.display());
}

fn system_libzkl() {
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    let want = env::var("CARGO_PKG_VERSION").unwrap();
    let lib = match pkg_config::Config::new().atleast_version(&want).probe("zkl") {
        Ok(lib) => lib,
        Err(e) => panic!(
            "libzkl >= {want} not found by pkg-config (feature `system`): {e}\n\
             Install libzkl (cmake --install) and point PKG_CONFIG_PATH at its lib/pkgconfig,\n\
             or use the default feature `bundled`, which builds it from the crate's sources."
        ),
    };
    let header = lib
        .include_paths
        .iter()
        .map(|dir| dir.join("zkl.h"))
        .find(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("/usr/include/zkl.h"));
    export_header(&header);
    if let Some(dir) = lib.link_paths.first() {
        println!("cargo:libdir={}", dir.display());
        // Cargo passes link args only to this package's own binaries; the
        // zkl crate's build script adds the same for its tests and examples
        // from DEP_ZKL_LIBDIR (a program of yours can do likewise).
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    }
}

/// zkl.h's ZKL_VERSION_MAJOR.MINOR.PATCH (the one version of zkl).
#[cfg_attr(not(feature = "bundled"), allow(dead_code))]
fn header_version(header: &Path) -> String {
    let text = std::fs::read_to_string(header)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", header.display()));
    let part = |name: &str| {
        let prefix = format!("#define ZKL_VERSION_{name} ");
        text.lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("{} has no ZKL_VERSION_{name}", header.display()))
            .to_string()
    };
    format!("{}.{}.{}", part("MAJOR"), part("MINOR"), part("PATCH"))
}

#[cfg(feature = "bundled")]
fn bundled_libzkl() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let staged = manifest.join("zkl-src");
    let packaged = staged.join("CMakeLists.txt").exists();
    let root = if packaged {
        println!("cargo:rerun-if-changed={}", staged.display());
        staged
    } else {
        // A git checkout (bindings/rust/zkl-sys): the repository's sources;
        // CMake prepares the ZooKeeper client (scripts/fetch-zookeeper).
        let root = manifest.join("../../..");
        if !root.join("CMakeLists.txt").exists() || !root.join("include/zkl.h").exists() {
            panic!(
                "zkl-sys (feature `bundled`): no libzkl sources in {}; use the packaged \
                 crate, or the feature `system` with an installed libzkl",
                staged.display()
            );
        }
        let root = root.canonicalize().unwrap();
        for p in ["CMakeLists.txt", "src", "include", "cmake", "third_party/zookeeper"] {
            println!("cargo:rerun-if-changed={}", root.join(p).display());
        }
        root
    };
    let mut cfg = cmake::Config::new(&root);
    if packaged {
        // The packaged crate carries the ZooKeeper C client prepared.
        cfg.define("ZKL_ZOOKEEPER_SOURCE_DIR", root.join("third_party/zookeeper/src"));
    }
    let header = root.join("include/zkl.h");
    let version = header_version(&header);
    let want = env::var("CARGO_PKG_VERSION").unwrap();
    if version != want {
        panic!("zkl-sys {want} carries libzkl {version} ({}): the versions must agree", header.display());
    }
    export_header(&header);

    let out = cfg
        .define("ZKL_BUILD_STATIC", "ON")
        .define("ZKL_BUILD_TESTS", "OFF")
        .define("ZKL_BUILD_BENCH", "OFF")
        .define("ZKL_WERROR", "OFF")
        // Only the static bundle: no shared libzkl, no CLI, no install step.
        .build_target("zkl_bundle")
        .build();
    let libdir = out.join("build");
    if !libdir.join("libzkl_bundle.a").exists() {
        panic!("the cmake build left no {}", libdir.join("libzkl_bundle.a").display());
    }
    println!("cargo:rustc-link-search=native={}", libdir.display());
    println!("cargo:rustc-link-lib=static=zkl_bundle");
    // What libzkl_bundle.a still needs from the system (all on any
    // Debian/Ubuntu): OpenSSL 3, Cyrus SASL, the C++ runtime.
    for lib in ["ssl", "crypto", "sasl2", "stdc++", "m", "pthread"] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
    println!("cargo:static=1");
}
