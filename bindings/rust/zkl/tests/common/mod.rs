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

/// A parsed JSON value (enough to check the statistics documents without a
/// JSON crate).
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn num(&self, key: &str) -> Option<f64> {
        match self.get(key)? {
            Json::Num(n) => Some(*n),
            _ => None,
        }
    }
}

/// Parses a whole JSON document; panics with the position on a syntax error.
pub fn parse_json(text: &str) -> Json {
    struct P<'a> {
        b: &'a [u8],
        i: usize,
    }
    impl P<'_> {
        fn ws(&mut self) {
            while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
        }
        fn fail(&self, what: &str) -> ! {
            panic!("JSON: {what} at byte {}", self.i)
        }
        fn eat(&mut self, c: u8) {
            self.ws();
            if self.b.get(self.i) != Some(&c) {
                self.fail(&format!("expected {:?}", c as char));
            }
            self.i += 1;
        }
        fn string(&mut self) -> String {
            self.eat(b'"');
            let mut out = Vec::new();
            loop {
                let Some(&c) = self.b.get(self.i) else { self.fail("unterminated string") };
                self.i += 1;
                match c {
                    b'"' => break,
                    b'\\' => {
                        let e = self.b[self.i];
                        self.i += 1;
                        match e {
                            b'u' => {
                                let hex = std::str::from_utf8(&self.b[self.i..self.i + 4]).unwrap();
                                let cp = u32::from_str_radix(hex, 16).unwrap_or_else(|_| self.fail("bad \\u"));
                                self.i += 4;
                                let ch = char::from_u32(cp).unwrap_or('\u{fffd}');
                                out.extend_from_slice(ch.to_string().as_bytes());
                            }
                            b'n' => out.push(b'\n'),
                            b't' => out.push(b'\t'),
                            b'r' => out.push(b'\r'),
                            b'b' => out.push(8),
                            b'f' => out.push(12),
                            other => out.push(other),
                        }
                    }
                    c if c < 0x20 => self.fail("control character in string"),
                    c => out.push(c),
                }
            }
            String::from_utf8(out).unwrap_or_else(|_| self.fail("bad UTF-8"))
        }
        fn value(&mut self) -> Json {
            self.ws();
            match self.b.get(self.i) {
                Some(b'{') => {
                    self.i += 1;
                    let mut fields = Vec::new();
                    self.ws();
                    if self.b.get(self.i) == Some(&b'}') {
                        self.i += 1;
                        return Json::Obj(fields);
                    }
                    loop {
                        let k = self.string();
                        self.eat(b':');
                        fields.push((k, self.value()));
                        self.ws();
                        match self.b.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                return Json::Obj(fields);
                            }
                            _ => self.fail("expected , or }"),
                        }
                    }
                }
                Some(b'[') => {
                    self.i += 1;
                    let mut items = Vec::new();
                    self.ws();
                    if self.b.get(self.i) == Some(&b']') {
                        self.i += 1;
                        return Json::Arr(items);
                    }
                    loop {
                        items.push(self.value());
                        self.ws();
                        match self.b.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                return Json::Arr(items);
                            }
                            _ => self.fail("expected , or ]"),
                        }
                    }
                }
                Some(b'"') => Json::Str(self.string()),
                Some(b't') if self.b[self.i..].starts_with(b"true") => {
                    self.i += 4;
                    Json::Bool(true)
                }
                Some(b'f') if self.b[self.i..].starts_with(b"false") => {
                    self.i += 5;
                    Json::Bool(false)
                }
                Some(b'n') if self.b[self.i..].starts_with(b"null") => {
                    self.i += 4;
                    Json::Null
                }
                Some(c) if *c == b'-' || c.is_ascii_digit() => {
                    let start = self.i;
                    while self.i < self.b.len() && matches!(self.b[self.i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                        self.i += 1;
                    }
                    let s = std::str::from_utf8(&self.b[start..self.i]).unwrap();
                    Json::Num(s.parse().unwrap_or_else(|_| self.fail("bad number")))
                }
                _ => self.fail("unexpected character"),
            }
        }
    }
    let mut p = P { b: text.as_bytes(), i: 0 };
    let v = p.value();
    p.ws();
    if p.i != p.b.len() {
        p.fail("trailing characters");
    }
    v
}

/// Expires `client`'s session for real: connects to the server as that
/// session (same id and password) and closes it, pipelining connect and
/// closeSession on one socket (ZooKeeper's jute wire format), repeated until
/// the server confirms the close or answers that the session is expired.
pub fn expire_session(servers: &str, client: &Client) {
    use std::io::{Read, Write};
    let sid = client.session_id().expect("a session");
    let passwd = client.session_password().unwrap();
    let addr = servers.split(',').next().unwrap().to_string();
    let read_packet = |s: &mut std::net::TcpStream| -> std::io::Result<Vec<u8>> {
        let mut n = [0u8; 4];
        s.read_exact(&mut n)?;
        let mut buf = vec![0u8; i32::from_be_bytes(n) as usize];
        s.read_exact(&mut buf)?;
        Ok(buf)
    };
    let once = || -> std::io::Result<bool> {
        let mut s = std::net::TcpStream::connect(&addr)?;
        s.set_read_timeout(Some(Duration::from_secs(5)))?;
        let mut connect = Vec::new();
        connect.extend_from_slice(&0i32.to_be_bytes()); // protocol version
        connect.extend_from_slice(&0i64.to_be_bytes()); // last zxid seen
        connect.extend_from_slice(&30000i32.to_be_bytes());
        connect.extend_from_slice(&(sid as i64).to_be_bytes());
        connect.extend_from_slice(&(passwd.len() as i32).to_be_bytes());
        connect.extend_from_slice(&passwd);
        connect.push(0); // read-only: false
        let mut close = Vec::new();
        close.extend_from_slice(&1i32.to_be_bytes()); // xid
        close.extend_from_slice(&(-11i32).to_be_bytes()); // OpCode.closeSession
        let mut out = Vec::new();
        out.extend_from_slice(&(connect.len() as i32).to_be_bytes());
        out.extend_from_slice(&connect);
        out.extend_from_slice(&(close.len() as i32).to_be_bytes());
        out.extend_from_slice(&close);
        s.write_all(&out)?;
        let reply = read_packet(&mut s)?;
        let timeout = i32::from_be_bytes(reply[4..8].try_into().unwrap());
        let got = i64::from_be_bytes(reply[8..16].try_into().unwrap());
        if timeout <= 0 || got as u64 != sid {
            return Ok(true); // already expired
        }
        let header = read_packet(&mut s)?;
        let xid = i32::from_be_bytes(header[0..4].try_into().unwrap());
        let err = i32::from_be_bytes(header[12..16].try_into().unwrap());
        Ok(xid == 1 && err == 0)
    };
    let deadline = Instant::now() + LONG;
    while Instant::now() < deadline {
        if let Ok(true) = once() {
            return;
        }
    }
    panic!("could not expire session 0x{sid:x}");
}
