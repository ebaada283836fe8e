//! Fails when the hand-written declarations in src/lib.rs drift from zkl.h.
//!
//! Both files are parsed as text: every `ZKL_API` function of the header must
//! be declared in Rust with the same parameter names and (mapped) types and
//! the same return type, and vice versa; every numeric `#define ZKL_*` must be
//! a Rust constant with the same value, and vice versa; every options struct
//! must have the same fields in the same order with the same types.
//! The header is the one pkg-config found (build.rs), or $ZKL_HEADER.

use std::collections::BTreeMap;

fn header_path() -> String {
    std::env::var("ZKL_HEADER").unwrap_or_else(|_| env!("ZKL_SYS_HEADER").to_string())
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// Removes /* */ and // comments.
fn strip_c_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'*' {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            out.push(' ');
        } else if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'/' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Maps a C declaration ("const char **data", "zkl_event_cb cb", "int") to
/// (name, Rust type). `named` says whether a declarator name is present.
fn c_decl(decl: &str, named: bool) -> (String, String) {
    let decl = decl.replace('*', " * ");
    let mut toks: Vec<&str> = decl.split_whitespace().collect();
    let name = if named {
        let n = toks.pop().expect("declarator name");
        n.to_string()
    } else {
        String::new()
    };
    // The constness of each pointer's pointee: a `const` before the base
    // type (or right after it) for the innermost, a `const` after a `*` for
    // the next level out ("zkl_lock *const *members": *const *mut zkl_lock).
    let mut pointee_const = vec![];
    let mut pending_const = false;
    for t in &toks {
        match *t {
            "const" => pending_const = true,
            "*" => pointee_const.push(std::mem::take(&mut pending_const)),
            _ => {}
        }
    }
    let base: Vec<&str> = toks.iter().copied().filter(|t| *t != "*" && *t != "const").collect();
    assert_eq!(base.len(), 1, "unsupported C type in `{decl}`");
    let stars = pointee_const.len();
    let base = match base[0] {
        "int" => "c_int",
        "char" => "c_char",
        "void" if stars == 0 => "()",
        "void" => "c_void",
        "uint64_t" => "u64",
        "int64_t" => "i64",
        "uint32_t" => "u32",
        "int32_t" => "i32",
        "size_t" => "usize",
        other if other.starts_with("zkl_") => other,
        other => panic!("unmapped C type {other} in `{decl}`"),
    };
    let mut ty = base.to_string();
    for is_const in pointee_const {
        let q = if is_const { "*const " } else { "*mut " };
        ty = format!("{q}{ty}");
    }
    (name, ty)
}

#[derive(Debug, PartialEq)]
struct Func {
    params: Vec<(String, String)>,
    ret: String,
}

fn header_functions(h: &str) -> BTreeMap<String, Func> {
    let mut out = BTreeMap::new();
    // Preprocessor lines (#define ZKL_API ...) are not declarations.
    let h: String = h
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    for stmt in h.split(';') {
        let stmt = squash(stmt);
        let Some(pos) = stmt.find("ZKL_API ") else { continue };
        let decl = &stmt[pos + "ZKL_API ".len()..];
        let open = decl.find('(').expect("(");
        let close = decl.rfind(')').expect(")");
        let (name, ret) = c_decl(&decl[..open], true);
        let params_src = decl[open + 1..close].trim();
        let params = if params_src == "void" || params_src.is_empty() {
            vec![]
        } else {
            params_src.split(',').map(|p| c_decl(p.trim(), true)).collect()
        };
        assert!(out.insert(name.clone(), Func { params, ret }).is_none(), "{name} twice");
    }
    out
}

fn rust_type(t: &str) -> String {
    let t = squash(t);
    t.replace("* const", "*const").replace("* mut", "*mut")
}

fn rust_functions(src: &str) -> BTreeMap<String, Func> {
    let start = src.find("extern \"C\" {").expect("extern block");
    let body = &src[start..];
    let body = &body[..body.rfind('}').unwrap()];
    let body = strip_c_comments(body);
    let mut out = BTreeMap::new();
    for stmt in body.split(';') {
        let stmt = squash(stmt);
        let Some(pos) = stmt.find("pub fn ") else { continue };
        let decl = &stmt[pos + "pub fn ".len()..];
        let open = decl.find('(').unwrap();
        let close = decl.rfind(')').unwrap();
        let name = decl[..open].trim().to_string();
        let params = decl[open + 1..close]
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (n, t) = p.split_once(':').expect("name: type");
                (n.trim().to_string(), rust_type(t))
            })
            .collect();
        let rest = decl[close + 1..].trim();
        let ret = match rest.strip_prefix("->") {
            Some(r) => rust_type(r),
            None => "()".to_string(),
        };
        assert!(out.insert(name.clone(), Func { params, ret }).is_none(), "{name} twice");
    }
    out
}

fn header_constants(h: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for line in h.lines() {
        let mut it = line.split_whitespace();
        if it.next() != Some("#define") {
            continue;
        }
        let (Some(name), Some(value)) = (it.next(), it.next()) else { continue };
        if !name.starts_with("ZKL_") {
            continue;
        }
        if let Ok(v) = value.parse::<i64>() {
            out.insert(name.to_string(), v);
        }
    }
    out
}

fn rust_constants(src: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for line in src.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("pub const ") else { continue };
        let (name, rest) = rest.split_once(':').unwrap();
        let value = rest.split_once('=').unwrap().1.trim().trim_end_matches(';');
        out.insert(name.trim().to_string(), value.parse::<i64>().unwrap());
    }
    out
}

fn header_structs(h: &str) -> BTreeMap<String, Vec<(String, String)>> {
    let mut out = BTreeMap::new();
    let mut rest = h;
    while let Some(pos) = rest.find("typedef struct ") {
        rest = &rest[pos + "typedef struct ".len()..];
        let name_end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap();
        let name = rest[..name_end].to_string();
        let after = rest[name_end..].trim_start();
        if !after.starts_with('{') {
            continue; // opaque: typedef struct zkl_x zkl_x;
        }
        let close = after.find('}').unwrap();
        let fields = after[1..close]
            .split(';')
            .map(squash)
            .filter(|f| !f.is_empty())
            .map(|f| c_decl(&f, true))
            .collect();
        out.insert(name, fields);
    }
    out
}

fn rust_structs(src: &str) -> BTreeMap<String, Vec<(String, String)>> {
    let src = strip_c_comments(src);
    let mut out = BTreeMap::new();
    let mut rest = src.as_str();
    while let Some(pos) = rest.find("pub struct ") {
        rest = &rest[pos + "pub struct ".len()..];
        let name_end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap();
        let name = rest[..name_end].to_string();
        let open = rest.find('{').unwrap();
        let close = rest.find('}').unwrap();
        let body = &rest[open + 1..close];
        if body.contains("_private") {
            continue; // opaque
        }
        let fields = body
            .split(',')
            .map(squash)
            .filter(|f| !f.is_empty())
            .map(|f| {
                let f = f.trim_start_matches("pub ");
                let (n, t) = f.split_once(':').unwrap();
                (n.trim().to_string(), rust_type(t))
            })
            .collect();
        out.insert(name, fields);
    }
    out
}

fn rust_source() -> String {
    read(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs"))
}

/// The declarations and the generated constants (scripts/gen-constants).
fn rust_constants_source() -> String {
    rust_source() + &read(concat!(env!("CARGO_MANIFEST_DIR"), "/src/constants.rs"))
}

/// Compares what the header declares (`c`) with what Rust declares (`r`) and
/// fails with every difference listed; `what` names the kind of item.
fn assert_same<V: PartialEq + std::fmt::Debug>(
    what: &str,
    c: &BTreeMap<String, V>,
    r: &BTreeMap<String, V>,
) {
    let mut problems = vec![];
    for (name, v) in c {
        match r.get(name) {
            None => problems.push(format!("{what} missing in Rust: {name} ({v:?})")),
            Some(rv) if rv != v => problems.push(format!("{what} {name}: header {v:?} != Rust {rv:?}")),
            _ => {}
        }
    }
    for name in r.keys().filter(|n| !c.contains_key(*n)) {
        problems.push(format!("{what} in Rust but not in the header: {name}"));
    }
    assert!(problems.is_empty(), "zkl-sys drifted from zkl.h:\n{}", problems.join("\n"));
}

#[test]
fn functions_match_the_header() {
    let c = header_functions(&strip_c_comments(&read(&header_path())));
    assert!(c.len() > 60, "parsed only {} functions from the header", c.len());
    assert_same("function", &c, &rust_functions(&rust_source()));
}

#[test]
fn constants_match_the_header() {
    let c = header_constants(&read(&header_path()));
    assert!(c.len() > 50, "parsed only {} constants from the header", c.len());
    assert_same("constant", &c, &rust_constants(&rust_constants_source()));
}

#[test]
fn options_structs_match_the_header() {
    let h = strip_c_comments(&read(&header_path()));
    let c = header_structs(&h);
    let r = rust_structs(&rust_source());
    assert_eq!(
        c.keys().collect::<Vec<_>>(),
        r.keys().collect::<Vec<_>>(),
        "options structs differ"
    );
    for (name, fields) in &c {
        // The callback typedef is a nullable function pointer in Rust.
        assert_eq!(fields, &r[name], "fields of {name} differ");
    }
}

#[test]
fn the_linked_library_matches_the_constants() {
    use zkl_sys::*;
    let v = unsafe { zkl_version() };
    assert_eq!(
        v,
        ZKL_VERSION_MAJOR * 10000 + ZKL_VERSION_MINOR * 100 + ZKL_VERSION_PATCH,
        "linked libzkl has another version than the declarations"
    );
    // Options structs: the library fills every field of our layout.
    let mut o = std::mem::MaybeUninit::<zkl_lock_options>::zeroed();
    assert_eq!(unsafe { zkl_lock_options_init(o.as_mut_ptr(), ZKL_LOCK_OPTIONS_VERSION as u32) }, 0);
    let o = unsafe { o.assume_init() };
    assert_eq!((o.version, o.kind, o.max_leases), (1, ZKL_LOCK_FAIR, 1));
    let mut c = std::mem::MaybeUninit::<zkl_client_options>::zeroed();
    assert_eq!(unsafe { zkl_client_options_init(c.as_mut_ptr(), ZKL_CLIENT_OPTIONS_VERSION as u32) }, 0);
    let c = unsafe { c.assume_init() };
    assert_eq!((c.version, c.session_timeout_ms, c.acl), (1, 10000, ZKL_ACL_OPEN));
    let mut e = std::mem::MaybeUninit::<zkl_election_options>::zeroed();
    assert_eq!(unsafe { zkl_election_options_init(e.as_mut_ptr(), ZKL_ELECTION_OPTIONS_VERSION as u32) }, 0);
    let e = unsafe { e.assume_init() };
    assert_eq!((e.version, e.kind), (1, ZKL_ELECTION_FAIR));
    assert_eq!(
        unsafe { zkl_lock_options_init(std::ptr::null_mut(), ZKL_LOCK_OPTIONS_VERSION as u32) },
        ZKL_EINVAL
    );
}

#[test]
fn the_parser_catches_a_changed_type() {
    // Self-test: a header whose signature differs must not compare equal.
    let a = header_functions("ZKL_API int zkl_x(zkl_lock *l, uint64_t owner);");
    let b = header_functions("ZKL_API int zkl_x(zkl_lock *l, int64_t owner);");
    assert_ne!(a, b);
    let r = rust_functions("extern \"C\" { pub fn zkl_x(l: *mut zkl_lock, owner: u64) -> c_int; }");
    assert_eq!(a, r);
    let (_, t) = c_decl("const char **data", true);
    assert_eq!(t, "*mut *const c_char");
    let (_, t) = c_decl("zkl_lock *const *members", true);
    assert_eq!(t, "*const *mut zkl_lock");
}
