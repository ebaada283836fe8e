// This package's tests, examples and binaries find a non-system libzkl (the
// one zkl-sys found with pkg-config) without LD_LIBRARY_PATH: a run path to
// DEP_ZKL_LIBDIR. Cargo passes no link argument on to the crates that
// depend on zkl; a program of yours adds its own (see README.md).
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_ZKL_LIBDIR");
    if let Ok(dir) = std::env::var("DEP_ZKL_LIBDIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
