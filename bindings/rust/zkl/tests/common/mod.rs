//! Test support: a real ZooKeeper server (ZKL_TEST_SERVERS, or one started
//! here with the repository's scripts/zk-server and killed with this
//! process), unique paths, bounded polling.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use zkl::{Client, InspectKind, LockKind};

pub const CONNECT: Duration = Duration::from_secs(20);
pub const LONG: Duration = Duration::from_secs(20);

pub fn repo_root() -> PathBuf {
    match std::env::var_os("ZKL_SOURCE_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.."),
    }
}

pub fn zk_server_script() -> PathBuf {
    repo_root().join("scripts/zk-server")
}

/// A throw-away standalone server in its own directory; stopped on drop.
pub struct Server {
    pub dir: PathBuf,
    pub connect: String,
}

impl Server {
    pub fn start(name: &str) -> Server {
        let dir = std::env::temp_dir().join(format!("zkl-rust-{}-{}-{}", name, std::process::id(), unique()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = Command::new(zk_server_script())
            .arg("start")
            .arg(&dir)
            .env("ZK_OWNER_PID", std::process::id().to_string())
            .output()
            .expect("run scripts/zk-server");
        assert!(
            out.status.success(),
            "zk-server start failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let connect = String::from_utf8(out.stdout).unwrap().trim().to_string();
        Server { dir, connect }
    }

    fn ctl(&self, what: &str) {
        let st = Command::new(zk_server_script()).arg(what).arg(&self.dir).status().unwrap();
        assert!(st.success(), "zk-server {what} failed");
    }

    pub fn pause(&self) {
        self.ctl("pause")
    }

    pub fn resume(&self) {
        self.ctl("resume")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new(zk_server_script()).arg("stop").arg(&self.dir).status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The connect string of the server shared by this test binary.
pub fn servers() -> String {
    static SHARED: OnceLock<String> = OnceLock::new();
    SHARED
        .get_or_init(|| match std::env::var("ZKL_TEST_SERVERS") {
            Ok(s) if !s.is_empty() => s,
            _ => {
                // Lives as long as the process: the watcher started with
                // ZK_OWNER_PID kills the JVM once this process is gone.
                let server = Box::leak(Box::new(Server::start("shared")));
                server.connect.clone()
            }
        })
        .clone()
}

fn unique() -> u64 {
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// A fresh path, unique across processes and runs.
pub fn unique_path(name: &str) -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    format!("/zkl-rust-test/{}-{}-{}/{}", std::process::id(), nanos, unique(), name)
}

pub fn client() -> Client {
    Client::connect(&servers(), CONNECT).expect("connect")
}

/// Polls `f` until true or the timeout (for server-side state that no
/// event announces, such as another session's node going away).
pub fn eventually(timeout: Duration, mut f: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if f() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Nodes under a lock path, as libzkl's inspection sees them.
pub fn nodes(c: &Client, path: &str, kind: LockKind) -> usize {
    c.inspect(path, InspectKind::Lock(kind), LONG).expect("inspect").len()
}
