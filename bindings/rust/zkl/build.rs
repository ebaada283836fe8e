// This package's tests and examples find a non-system libzkl (the one
// zkl-sys found with pkg-config) without LD_LIBRARY_PATH. Nothing is added
// to the binaries of crates that depend on zkl.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_ZKL_LIBDIR");
    if let Ok(dir) = std::env::var("DEP_ZKL_LIBDIR") {
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{dir}");
        println!("cargo:rustc-link-arg-examples=-Wl,-rpath,{dir}");
    }
}
