// Finds libzkl with pkg-config (set PKG_CONFIG_PATH for a non-system
// install) and tells dependents where zkl.h is (DEP_ZKL_INCLUDE).
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    let lib = match pkg_config::Config::new().atleast_version("0.1.0").probe("zkl") {
        Ok(lib) => lib,
        Err(e) => panic!(
            "libzkl not found by pkg-config: {e}\n\
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
    // Let this package's tests find a non-system libzkl without
    // LD_LIBRARY_PATH, and tell dependents where it is (DEP_ZKL_LIBDIR).
    if let Some(dir) = lib.link_paths.first() {
        println!("cargo:libdir={}", dir.display());
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{}", dir.display());
    }
}
