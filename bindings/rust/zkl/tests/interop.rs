//! Two Rust processes (the `contend` example) and one C process (zkl-hold,
//! built here from tests/tools/zkl_hold.c) exclude each other on one lock
//! path, with strictly increasing fencing tokens.

mod common;

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::*;
use zkl::{InspectKind, LockKind};

fn pkg_config(args: &[&str]) -> Vec<String> {
    let out = Command::new("pkg-config").args(args).arg("zkl").output().expect("run pkg-config");
    assert!(out.status.success(), "pkg-config {args:?} zkl failed");
    String::from_utf8(out.stdout).unwrap().split_whitespace().map(String::from).collect()
}

/// zkl-hold: $ZKL_HOLD, or compiled from the repository's source.
fn zkl_hold() -> PathBuf {
    if let Some(p) = std::env::var_os("ZKL_HOLD") {
        return PathBuf::from(p);
    }
    let src = repo_root().join("tests/tools/zkl_hold.c");
    // Under cargo's target directory (not /tmp): cargo clean removes it.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("zkl-hold");
    std::fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("zkl-hold");
    let libdir = pkg_config(&["--variable=libdir"]).pop().unwrap_or_default();
    let st = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .arg(&src)
        .args(pkg_config(&["--cflags", "--libs"]))
        .arg(format!("-Wl,-rpath,{libdir}"))
        .arg("-o")
        .arg(&bin)
        .status()
        .expect("run the C compiler");
    assert!(st.success(), "cannot build {}", src.display());
    bin
}

/// The `contend` example: $ZKL_CONTEND, or the one `cargo test` built
/// next to this test binary.
fn contend_example() -> PathBuf {
    if let Some(p) = std::env::var_os("ZKL_CONTEND") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(Path::parent).unwrap();
    let bin = dir.join("examples/contend");
    assert!(
        bin.exists(),
        "{} missing: run the whole `cargo test` (it builds the examples) or `cargo build --example contend`",
        bin.display()
    );
    bin
}

struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    /// The node data it stores (`contend` stores "pid N"; zkl-hold none).
    data: Vec<u8>,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn rust_and_c_processes_exclude_each_other() {
    let servers = servers();
    let path = unique_path("interop");
    let hold = zkl_hold();
    let contend = contend_example();
    let commands: Vec<(PathBuf, Vec<&str>)> = vec![
        (contend.clone(), vec!["--rounds", "1", "--hold", "-1"]),
        (contend, vec!["--rounds", "1", "--hold", "-1"]),
        (hold, vec!["--hold", "-1"]),
    ];
    let (tx, rx) = mpsc::channel::<(usize, String)>();
    let mut procs: Vec<Proc> = vec![];
    for (i, (bin, opts)) in commands.iter().enumerate() {
        let mut child = Command::new(bin)
            .args(opts)
            .arg(&servers)
            .arg(&path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", bin.display()));
        let stdout = child.stdout.take().unwrap();
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send((i, line));
            }
        });
        let data = if i < 2 { format!("pid {}", child.id()).into_bytes() } else { vec![] };
        procs.push(Proc { stdin: child.stdin.take(), child, data });
    }
    drop(tx);

    let observer = client();
    let mut pending: VecDeque<(usize, String)> = VecDeque::new();
    let recv = || rx.recv_timeout(LONG).expect("no output from the contenders");
    let mut remaining: Vec<usize> = vec![0, 1, 2];
    let mut last_token = 0u64;
    let mut order = vec![];
    while !remaining.is_empty() {
        let (i, line) = pending.pop_front().unwrap_or_else(recv);
        let token: u64 = line
            .strip_prefix("acquired ")
            .unwrap_or_else(|| panic!("process {i}: expected `acquired`, got {line:?}"))
            .parse()
            .unwrap();
        assert!(remaining.contains(&i), "process {i} acquired twice");
        assert!(token > last_token, "fencing token {token} after {last_token}");
        last_token = token;
        order.push(i);
        // Everybody still running is queued behind it, and the server's
        // holder is the process that says it holds, with that token.
        let mut seen = vec![];
        let queued = eventually(LONG, || {
            seen = observer.inspect(&path, InspectKind::Lock(LockKind::Fair), LONG).unwrap();
            seen.len() == remaining.len()
        });
        assert!(queued, "expected {} contenders, saw {seen:?}", remaining.len());
        let holders: Vec<_> = seen.iter().filter(|p| p.is_holder).collect();
        assert_eq!(holders.len(), 1, "{seen:?}");
        assert_eq!(holders[0].fencing_token, token);
        assert_eq!(holders[0].data, procs[i].data);
        // Nobody else claims the lock while it is held.
        if let Ok((j, l)) = rx.try_recv() {
            panic!("process {j} said {l:?} while process {i} held the lock");
        }
        assert!(pending.is_empty());
        // Let it go: stdin EOF makes it release and exit.
        drop(procs[i].stdin.take());
        loop {
            let (j, l) = recv();
            if j == i {
                assert_eq!(l, "released");
                break;
            }
            pending.push_back((j, l)); // the next holder may speak first
        }
        remaining.retain(|&r| r != i);
    }
    assert_eq!(order.len(), 3);
    let deadline = Instant::now() + LONG;
    for p in &mut procs {
        let status = loop {
            if let Some(s) = p.child.try_wait().unwrap() {
                break s;
            }
            assert!(Instant::now() < deadline, "a contender did not exit");
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(status.success(), "contender exited with {status}");
    }
    assert!(eventually(LONG, || observer
        .inspect(&path, InspectKind::Lock(LockKind::Fair), LONG)
        .unwrap()
        .is_empty()));
}
