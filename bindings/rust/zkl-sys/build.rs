// Finds libzkl with pkg-config (set PKG_CONFIG_PATH for a non-system
// install), tells dependents where zkl.h and the library are
// (DEP_ZKL_INCLUDE, DEP_ZKL_LIBDIR), and gives this package's binaries
// (its tests) a run path to the library, so that they run without
// LD_LIBRARY_PATH.
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    let lib = match pkg_config::Config::new().atleast_version("0.2.0").probe("zkl") {
        Ok(lib) => lib,
        Err(e) => panic!(
            "libzkl >= 0.2.0 not found by pkg-config: {e}\n\
             Install libzkl (cmake --install) and point PKG_CONFIG_PATH at its lib/pkgconfig."
        ),
    };
    let header = lib
        .include_paths
        .iter()
        .map(|dir| dir.join("zkl.h"))
        .find(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("/usr/include/zkl.h"));
    if let Some(dir) = header.parent() {
        println!("cargo:include={}", dir.display());
    }
    // The header the declarations are checked against (tests/header_drift.rs).
    println!("cargo:rustc-env=ZKL_SYS_HEADER={}", header.display());
    println!("cargo:rerun-if-changed={}", header.display());
    if let Some(dir) = lib.link_paths.first() {
        println!("cargo:libdir={}", dir.display());
        // Cargo passes link args only to this package's own binaries; the
        // zkl crate's build script adds the same for its tests and examples
        // from DEP_ZKL_LIBDIR (a program of yours can do likewise).
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    }
}
