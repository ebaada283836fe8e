use std::collections::{HashMap, VecDeque};
use std::ffi::CString;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::Waker;
use std::time::{Duration, Instant};

use zkl_sys as sys;

use crate::error::{check, strerror, At};
use crate::event::{Event, EventKind, Source};
use crate::{c_path, timeout_ms, Error, ErrorKind, HandleId, Result, SessionState};

/// The connect timeout of a [`ClientBuilder`] that sets none.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Events kept for [`Client::next_event`] when nobody reads them; the oldest
/// are dropped beyond this.
const EVENT_BACKLOG: usize = 1024;

/// ACL of the nodes a client creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Acl {
    /// `world:anyone:all`, ZooKeeper's default.
    #[default]
    Open,
    /// Creator (digest auth) may do all, the world may read: other clients
    /// can see but not delete a holder's node. Requires
    /// [`ClientBuilder::digest_auth`].
    Creator,
}

/// Configures and creates a [`Client`].
///
/// ```no_run
/// use std::time::Duration;
/// let client = zkl::ClientBuilder::new("127.0.0.1:2181")
///     .session_timeout(Duration::from_secs(6))
///     .connect_timeout(Duration::from_secs(10))
///     .connect()?;
/// # Ok::<(), zkl::Error>(())
/// ```
#[derive(Clone)]
pub struct ClientBuilder {
    servers: String,
    chroot: Option<String>,
    session_timeout: Option<Duration>,
    connect_timeout: Duration,
    attempt_timeout: Option<Duration>,
    lost_after: Option<Duration>,
    digest_auth: Option<String>,
    acl: Acl,
    log_level: Option<log::LevelFilter>,
    stats_interval: Option<Duration>,
    tls: Option<Tls>,
    sasl: Option<Sasl>,
    follow_ensemble: bool,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Secrets (digest, key passphrase, SASL password) are never shown.
        f.debug_struct("ClientBuilder")
            .field("servers", &self.servers)
            .field("chroot", &self.chroot)
            .field("session_timeout", &self.session_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("attempt_timeout", &self.attempt_timeout)
            .field("acl", &self.acl)
            .field("follow_ensemble", &self.follow_ensemble)
            .field("tls", &self.tls.is_some())
            .field("sasl", &self.sasl.as_ref().map(|s| &s.mechanism))
            .finish_non_exhaustive()
    }
}

/// TLS options of [`ClientBuilder::tls`] (PEM files).
#[derive(Clone, Default)]
pub struct Tls {
    /// CA bundle the server's chain must end in (required: turns TLS on).
    pub ca_file: String,
    /// Client certificate (chain), for mutual TLS.
    pub cert_file: Option<String>,
    /// Its private key.
    pub key_file: Option<String>,
    /// Passphrase of an encrypted key (a secret).
    pub key_password: Option<String>,
    /// Accept a certificate for any host name (the chain is still checked).
    /// Dangerous.
    pub insecure_skip_hostname_check: bool,
}

/// SASL options of [`ClientBuilder::sasl`].
#[derive(Clone, Default)]
pub struct Sasl {
    /// `"DIGEST-MD5"` or `"GSSAPI"` (required: turns SASL on).
    pub mechanism: String,
    /// DIGEST-MD5 user; GSSAPI client principal.
    pub user: Option<String>,
    /// DIGEST-MD5 password (a secret).
    pub password: Option<String>,
    /// GSSAPI client keytab file.
    pub keytab: Option<String>,
    /// GSSAPI credential cache.
    pub ccache: Option<String>,
    /// Service name (default `"zookeeper"`).
    pub service: Option<String>,
    /// The server's host name in its principal.
    pub host: Option<String>,
}

impl ClientBuilder {
    /// `servers` is a ZooKeeper connect string: `"host:port,host:port"`.
    pub fn new(servers: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            servers: servers.into(),
            chroot: None,
            session_timeout: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            attempt_timeout: None,
            lost_after: None,
            digest_auth: None,
            acl: Acl::Open,
            log_level: None,
            stats_interval: None,
            tls: None,
            sasl: None,
            follow_ensemble: false,
        }
    }

    /// A chroot such as `"/apps/x"` that every path is relative to.
    pub fn chroot(mut self, chroot: impl Into<String>) -> Self {
        self.chroot = Some(chroot.into());
        self
    }

    /// Requested session timeout (default 10 s; the server may adjust it).
    pub fn session_timeout(mut self, timeout: Duration) -> Self {
        self.session_timeout = Some(timeout);
        self
    }

    /// Bound of the whole wait for a session of [`ClientBuilder::connect`]
    /// and [`ClientBuilder::connect_async`] (default 30 s, `Duration::MAX`:
    /// no bound; a shorter `tokio::time::timeout` around `connect_async`
    /// still wins).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Bound of one connection attempt, TLS handshake included (default:
    /// libzkl's share, the session timeout / max(3, servers of the list)).
    pub fn attempt_timeout(mut self, timeout: Duration) -> Self {
        self.attempt_timeout = Some(timeout);
        self
    }

    /// Shortens the safety bound: a hold is provably valid while the leader
    /// answered less than this long ago (default: 3/4 of the negotiated
    /// session timeout after the last quorum proof), and a disconnected
    /// session is given up (LOST) this long after the connection was lost
    /// (default: a session timeout after it, or when the server says it
    /// expired).
    pub fn lost_after(mut self, after: Duration) -> Self {
        self.lost_after = Some(after);
        self
    }

    /// Digest authentication, `"user:password"` (never logged).
    pub fn digest_auth(mut self, user_password: impl Into<String>) -> Self {
        self.digest_auth = Some(user_password.into());
        self
    }

    /// ACL of created nodes (default [`Acl::Open`]).
    pub fn acl(mut self, acl: Acl) -> Self {
        self.acl = acl;
        self
    }

    /// The most verbose zkl log lines to hand to the [`log`] crate (targets
    /// `zkl::zkl`, `zkl::zookeeper`, `zkl::tls`, `zkl::sasl`). Default: the
    /// `log` crate's [`log::max_level`] when the client is built, at least
    /// `Warn`. `LevelFilter::Off`: none. Lines are handed over whenever the
    /// client's events are taken (any wait or future of this crate).
    pub fn log_level(mut self, level: log::LevelFilter) -> Self {
        self.log_level = Some(level);
        self
    }

    /// Queue the statistics document as an [`EventKind::Stats`] event this
    /// often ([`Client::stats`] reads it any time).
    pub fn stats_interval(mut self, every: Duration) -> Self {
        self.stats_interval = Some(every);
        self
    }

    /// Connect with TLS.
    pub fn tls(mut self, tls: Tls) -> Self {
        self.tls = Some(tls);
        self
    }

    /// Authenticate with SASL.
    pub fn sasl(mut self, sasl: Sasl) -> Self {
        self.sasl = Some(sasl);
        self
    }

    /// Let the server list follow the ensemble's configuration
    /// (ZooKeeper 3.5+ dynamic reconfiguration): [`Client::follow_ensemble`]
    /// right after the client is created (default `false`).
    pub fn follow_ensemble(mut self, on: bool) -> Self {
        self.follow_ensemble = on;
        self
    }

    /// Creates the client; it connects in the background (does not block).
    /// The error says which option is wrong and why, as libzkl does
    /// (`"new client: tls_key_file /x/key.pem: cannot open: No such file or
    /// directory"`).
    pub fn build(self) -> Result<Client> {
        self.create().op("new client")
    }

    fn create(self) -> Result<Client> {
        let follow = self.follow_ensemble;
        let client = self.create_raw()?;
        if follow {
            client.follow_ensemble(true)?;
        }
        Ok(client)
    }

    fn create_raw(self) -> Result<Client> {
        let cstr = |s: &str| CString::new(s).map_err(|_| Error::from(ErrorKind::InvalidArgument));
        let ocstr = |s: &Option<String>| s.as_deref().map(cstr).transpose();
        let ptr = |c: &Option<CString>| c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
        let servers = cstr(&self.servers)?;
        let chroot = ocstr(&self.chroot)?;
        let auth = ocstr(&self.digest_auth)?;
        let tls = self.tls.clone().unwrap_or_default();
        let tls_ca = ocstr(&self.tls.as_ref().map(|t| t.ca_file.clone()))?;
        let (tls_cert, tls_key, tls_pass) = (ocstr(&tls.cert_file)?, ocstr(&tls.key_file)?, ocstr(&tls.key_password)?);
        let sasl = self.sasl.clone().unwrap_or_default();
        let sasl_mech = ocstr(&self.sasl.as_ref().map(|s| s.mechanism.clone()))?;
        let sasl_strs = [&sasl.user, &sasl.password, &sasl.keytab, &sasl.ccache, &sasl.service, &sasl.host]
            .map(ocstr)
            .into_iter()
            .collect::<Result<Vec<_>>>()?;
        let ms = |d: Duration| i32::try_from(d.as_millis()).map_err(|_| Error::from(ErrorKind::InvalidArgument));
        let mut opts = std::mem::MaybeUninit::<sys::zkl_client_options>::zeroed();
        // SAFETY: opts points to writable memory of the right layout.
        check(unsafe { sys::zkl_client_options_init(opts.as_mut_ptr(), sys::ZKL_CLIENT_OPTIONS_VERSION as u32) })?;
        // SAFETY: initialised by zkl_client_options_init.
        let mut opts = unsafe { opts.assume_init() };
        opts.servers = servers.as_ptr();
        opts.chroot = ptr(&chroot);
        opts.digest_auth = ptr(&auth);
        opts.tls_ca_file = ptr(&tls_ca);
        opts.tls_cert_file = ptr(&tls_cert);
        opts.tls_key_file = ptr(&tls_key);
        opts.tls_key_password = ptr(&tls_pass);
        opts.tls_insecure_skip_hostname_check = i32::from(tls.insecure_skip_hostname_check);
        opts.sasl_mechanism = ptr(&sasl_mech);
        opts.sasl_user = ptr(&sasl_strs[0]);
        opts.sasl_password = ptr(&sasl_strs[1]);
        opts.sasl_keytab = ptr(&sasl_strs[2]);
        opts.sasl_ccache = ptr(&sasl_strs[3]);
        opts.sasl_service = ptr(&sasl_strs[4]);
        opts.sasl_host = ptr(&sasl_strs[5]);
        opts.io = sys::ZKL_IO_THREAD;
        if let Some(t) = self.session_timeout {
            opts.session_timeout_ms = ms(t)?;
        }
        if let Some(t) = self.attempt_timeout {
            opts.connect_timeout_ms = ms(t)?.max(1);
        }
        if let Some(t) = self.stats_interval {
            opts.stats_interval_ms = ms(t)?.max(1);
        }
        let level = self.log_level.unwrap_or_else(|| log::max_level().max(log::LevelFilter::Warn));
        opts.log_level = match level {
            log::LevelFilter::Off => sys::ZKL_LOG_OFF,
            log::LevelFilter::Error => sys::ZKL_LOG_ERROR,
            log::LevelFilter::Warn => sys::ZKL_LOG_WARN,
            log::LevelFilter::Info => sys::ZKL_LOG_INFO,
            _ => sys::ZKL_LOG_DEBUG,
        };
        if level != log::LevelFilter::Off {
            // In the pull form this crate uses, lines arrive as LOG events
            // (forwarded to `log` when events are taken); the callback is
            // what asks libzkl to queue them.
            opts.log_cb = Some(log_trampoline);
        }
        if let Some(t) = self.lost_after {
            opts.lost_after_ms = ms(t)?.max(1);
        }
        opts.acl = match self.acl {
            Acl::Open => sys::ZKL_ACL_OPEN,
            Acl::Creator => sys::ZKL_ACL_CREATOR,
        };
        let mut raw = std::ptr::null_mut();
        let mut why = [0u8; 512]; // libzkl's message: the option and the reason
        // SAFETY: the options and their strings live across the call (copied);
        // libzkl writes at most why.len() bytes, NUL included.
        let rc = unsafe { sys::zkl_client_create(&opts, &mut raw, why.as_mut_ptr().cast(), why.len()) };
        if rc < 0 {
            return Err(Error::from_code(rc).because(c_text(&why)));
        }
        drop((tls_ca, tls_cert, tls_key, tls_pass, sasl_mech, sasl_strs));
        Ok(Client {
            inner: Arc::new(ClientInner {
                raw,
                router: Router::default(),
                #[cfg(feature = "tokio")]
                async_fd: Mutex::new(None),
            }),
        })
    }

    #[cfg(feature = "tokio")]
    pub(crate) fn connect_timeout_value(&self) -> Duration {
        self.connect_timeout
    }

    /// Creates the client and waits until its session is up, at most the
    /// connect timeout ([`ClientBuilder::connect_timeout`], default 30 s):
    /// `Timeout`, or why the attempts failed (`Auth`, `Cert`, `Hostname`,
    /// `ClientCert` at once when every server refused; `Tls`, `Protocol`)
    /// (see [`Client::wait_connected`]).
    pub fn connect(self) -> Result<Client> {
        let timeout = self.connect_timeout;
        let client = self.build()?;
        client.wait_connected(timeout)?;
        Ok(client)
    }
}

/// A ZooKeeper session: the factory of locks, elections and observers.
///
/// Cloning is cheap and shares the session. The session is closed (its
/// ephemeral nodes deleted) when the last clone, lock, guard, election and
/// observer made from it is dropped, or by [`Client::close`].
///
/// Every method may be called from any thread (libzkl is thread-safe).
/// Events (lost locks, session changes, election results) are pulled with
/// [`Client::next_event`] / [`Client::wait_event`], or with the async API.
/// The client's event fd ([`AsRawFd`]) is readable while events are pending.
///
/// ```no_run
/// use std::time::Duration;
/// let client = zkl::Client::connect("127.0.0.1:2181", Duration::from_secs(10))?;
/// let lock = client.lock("/app/lock")?;
/// let guard = lock.acquire_blocking(Duration::from_secs(5))?;
/// println!("fencing token {}", guard.fencing_token());
/// drop(guard); // releases
/// # Ok::<(), zkl::Error>(())
/// ```
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<ClientInner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("session_id", &self.session_id())
            .field("state", &self.state())
            .finish()
    }
}

pub(crate) struct ClientInner {
    pub(crate) raw: *mut sys::zkl_client,
    pub(crate) router: Router,
    #[cfg(feature = "tokio")]
    pub(crate) async_fd: Mutex<Option<Arc<crate::asyncio::EventFd>>>,
}

// SAFETY: every zkl function is thread-safe; `raw` is an opaque handle value
// checked by the library on each call, and freed only in Drop.
unsafe impl Send for ClientInner {}
unsafe impl Sync for ClientInner {}

impl Drop for ClientInner {
    fn drop(&mut self) {
        // Stop watching the fd before libzkl may close it.
        #[cfg(feature = "tokio")]
        drop(self.async_fd.get_mut().map(Option::take));
        // SAFETY: the last reference: nothing else uses `raw` any more.
        unsafe { sys::zkl_client_destroy(self.raw) };
    }
}

impl Client {
    /// Connects to `servers` ("host:port,...") with default options and
    /// waits up to `timeout` for the session (the connect timeout).
    pub fn connect(servers: &str, timeout: Duration) -> Result<Client> {
        ClientBuilder::new(servers).connect_timeout(timeout).connect()
    }

    /// A builder for the other options.
    pub fn builder(servers: impl Into<String>) -> ClientBuilder {
        ClientBuilder::new(servers)
    }

    pub(crate) fn raw(&self) -> *mut sys::zkl_client {
        self.inner.raw
    }

    /// Waits until the session is connected: `Timeout`, or why the attempts
    /// failed (`Auth`, `Cert`, `Hostname`, `ClientCert` at once when every
    /// server refused; `Tls`, `Protocol`), whose message says how each
    /// server's last attempt failed (`"connect: timed out (127.0.0.1:2181
    /// (tcp): connection refused)"`).
    pub fn wait_connected(&self, timeout: Duration) -> Result<()> {
        let rc = unsafe { sys::zkl_client_wait_connected(self.raw(), timeout_ms(timeout)) };
        if rc < 0 {
            return Err(self.connect_error(rc));
        }
        Ok(())
    }

    /// The error of a failed connect: `code`, its text followed by why
    /// libzkl's attempts failed, server by server, when it keeps that
    /// (`zkl_client_connect_error`). The code stays `code`: the failures are
    /// the message's detail only.
    pub(crate) fn connect_error(&self, code: i32) -> Error {
        let mut buf = [0u8; 1024];
        // SAFETY: libzkl writes at most buf.len() bytes, NUL included.
        unsafe { sys::zkl_client_connect_error(self.raw(), buf.as_mut_ptr().cast(), buf.len()) };
        let detail = c_text(&buf);
        let e = Error::from_code(code).during("connect", None);
        if detail.is_empty() {
            e
        } else {
            e.because(format!("{} ({detail})", strerror(code)))
        }
    }

    /// Replaces the server list (`"host:port,..."`, as the builder's) of the
    /// running client; the chroot stays, and so do the session and its
    /// holds. When the current server is no longer listed (or, the list
    /// having grown, to spread clients evenly) the client moves: a
    /// disconnect, so holds see `Suspended` then `Restored` with the same
    /// tokens. Errors (operation `"set servers"`): `InvalidArgument` for an
    /// empty or malformed list, `Connection` when no name of it resolves
    /// (the old list stays), `Closed` after [`Client::close`].
    pub fn set_servers(&self, servers: &str) -> Result<()> {
        let servers = CString::new(servers).map_err(|_| Error::from(ErrorKind::InvalidArgument)).op("set servers")?;
        check(unsafe { sys::zkl_client_set_servers(self.raw(), servers.as_ptr()) }).op("set servers").map(drop)
    }

    /// `true`: the server list follows the ensemble's configuration
    /// (`/zookeeper/config`, ZooKeeper 3.5+ dynamic reconfiguration), so
    /// servers can be added and removed without reconfiguring clients; a
    /// server without one (before 3.5, or a static configuration) leaves the
    /// list as it is, and the statistics' `"ensemble"` says why. `false`:
    /// stop following (the list stays). `Closed` (operation
    /// `"follow ensemble"`) after [`Client::close`].
    pub fn follow_ensemble(&self, on: bool) -> Result<()> {
        check(unsafe { sys::zkl_client_follow_ensemble(self.raw(), i32::from(on)) }).op("follow ensemble").map(drop)
    }

    /// The current session state.
    pub fn state(&self) -> SessionState {
        SessionState::from_raw(unsafe { sys::zkl_client_state(self.raw()) })
    }

    /// The current session id, `None` while there is none.
    pub fn session_id(&self) -> Option<u64> {
        let mut id = 0u64;
        let rc = unsafe { sys::zkl_client_session_id(self.raw(), &mut id) };
        (rc == 0 && id != 0).then_some(id)
    }

    /// The session's password (16 bytes). With the session id it lets a tool
    /// re-attach to, or expire, the session: treat it as a secret.
    pub fn session_password(&self) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; 16];
        let n = check(unsafe { sys::zkl_client_session_password(self.raw(), buf.as_mut_ptr().cast(), buf.len()) })
            .op("session password")?;
        buf.truncate(n as usize);
        Ok(buf)
    }

    /// The negotiated session timeout, `None` while not connected.
    pub fn session_timeout(&self) -> Option<Duration> {
        let ms = unsafe { sys::zkl_client_session_timeout(self.raw()) };
        (ms > 0).then(|| Duration::from_millis(ms as u64))
    }

    /// Statistics of the client and of each of its handles as one JSON
    /// document (schema in the repository's docs/STATISTICS.md; its
    /// `"schema"` field is versioned).
    pub fn stats(&self) -> Result<String> {
        take_json(|json, len| unsafe { sys::zkl_client_stats(self.raw(), json, len) }).op("stats")
    }

    /// Closes the session now: its nodes are deleted, pending acquires end
    /// with `Closed`, every hold is delivered as lost with `Closed` (never a
    /// silent release: [`crate::LockGuard::wait_lost`], `guard.lost()`),
    /// and every handle made from it answers `Closed`. Idempotent; blocks
    /// for at most one round trip.
    pub fn close(&self) -> Result<()> {
        let rc = unsafe { sys::zkl_client_close(self.raw()) };
        self.inner.router.notify_all(&self.inner);
        check(rc).op("close").map(drop)
    }

    /// The next pending event, without waiting.
    pub fn next_event(&self) -> Option<Event> {
        self.wait_event(Duration::ZERO)
    }

    /// Waits up to `timeout` for the next event (lost locks, session
    /// changes, election results, leader changes, ...).
    pub fn wait_event(&self, timeout: Duration) -> Option<Event> {
        self.inner.wait_until(timeout, |st| st.events.pop_front())
    }

    /// Lists who holds and who waits on a lock path, in queue order (one
    /// round trip per node). An absent path gives an empty list.
    pub fn inspect(&self, path: &str, kind: InspectKind, timeout: Duration) -> Result<Vec<Participant>> {
        self.inspect_at(path, kind, timeout).at("inspect", path)
    }

    fn inspect_at(&self, path: &str, kind: InspectKind, timeout: Duration) -> Result<Vec<Participant>> {
        let cpath = c_path(path)?;
        let opts = inspect_options(kind, timeout)?;
        let mut p: *mut sys::zkl_participants = std::ptr::null_mut();
        check(unsafe { sys::zkl_inspect(self.raw(), cpath.as_ptr(), &opts, &mut p) })?;
        struct Free(*mut sys::zkl_participants);
        impl Drop for Free {
            fn drop(&mut self) {
                unsafe { sys::zkl_participants_free(self.0) }
            }
        }
        let p = Free(p);
        let n = check(unsafe { sys::zkl_participants_count(p.0) })? as usize;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            // SAFETY: i < count; the strings live until zkl_participants_free.
            unsafe {
                let mut name: *const std::ffi::c_char = std::ptr::null();
                check(sys::zkl_participants_name(p.0, i, &mut name))?;
                let mut data: *const std::ffi::c_char = std::ptr::null();
                let mut len = 0usize;
                check(sys::zkl_participants_data(p.0, i, &mut data, &mut len))?;
                let mut fencing_token = 0;
                let mut session_id = 0;
                let mut ctime_ms = 0;
                check(sys::zkl_participants_fencing_token(p.0, i, &mut fencing_token))?;
                check(sys::zkl_participants_session_id(p.0, i, &mut session_id))?;
                check(sys::zkl_participants_ctime_ms(p.0, i, &mut ctime_ms))?;
                let leases = check(sys::zkl_participants_leases(p.0, i))? as u32;
                out.push(Participant {
                    leases,
                    name: std::ffi::CStr::from_ptr(name).to_string_lossy().into_owned(),
                    is_holder: check(sys::zkl_participants_is_holder(p.0, i))? == 1,
                    fencing_token,
                    session_id,
                    ctime_ms,
                    data: if data.is_null() {
                        Vec::new()
                    } else {
                        std::slice::from_raw_parts(data.cast::<u8>(), len).to_vec()
                    },
                });
            }
        }
        Ok(out)
    }

    /// Asks the holders of `path` to let go (cooperative, as Curator's
    /// Revoker): `holder` is one node name as [`Participant::name`] gives
    /// it, or `None` for every current holder. Holders made with
    /// [`crate::Revocation::Notify`] get [`EventKind::RevokeRequested`];
    /// with [`crate::Revocation::Release`] zkl releases and delivers lost
    /// with `Revoked`. Returns the number of holders asked.
    pub fn revoke(&self, path: &str, kind: InspectKind, holder: Option<&str>, timeout: Duration) -> Result<u32> {
        self.revoke_at(path, kind, holder, timeout).at("revoke", path)
    }

    fn revoke_at(&self, path: &str, kind: InspectKind, holder: Option<&str>, timeout: Duration) -> Result<u32> {
        let cpath = c_path(path)?;
        let opts = inspect_options(kind, timeout)?;
        let holder = holder.map(CString::new).transpose().map_err(|_| Error::from(ErrorKind::InvalidArgument))?;
        let h = holder.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
        check(unsafe { sys::zkl_revoke(self.raw(), cpath.as_ptr(), &opts, h) }).map(|n| n as u32)
    }
}

pub(crate) fn inspect_options(kind: InspectKind, timeout: Duration) -> Result<sys::zkl_inspect_options> {
    let mut opts = std::mem::MaybeUninit::<sys::zkl_inspect_options>::zeroed();
    check(unsafe { sys::zkl_inspect_options_init(opts.as_mut_ptr(), sys::ZKL_INSPECT_OPTIONS_VERSION as u32) })?;
    // SAFETY: initialised by zkl_inspect_options_init.
    let mut opts = unsafe { opts.assume_init() };
    match kind {
        InspectKind::Lock(k) => opts.lock_kind = k.raw(),
        InspectKind::Election(k) => opts.election_kind = k.raw(),
    }
    opts.timeout_ms = timeout_ms(timeout);
    Ok(opts)
}

/// The NUL-terminated text libzkl wrote into `buf` ("" when none).
fn c_text(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// Calls a `zkl_*_stats` function and takes the JSON it returns.
pub(crate) fn take_json(f: impl FnOnce(*mut *mut std::ffi::c_char, *mut usize) -> i32) -> Result<String> {
    let mut json: *mut std::ffi::c_char = std::ptr::null_mut();
    let mut len = 0usize;
    check(f(&mut json, &mut len))?;
    if json.is_null() {
        return Ok(String::new());
    }
    // SAFETY: libzkl returned `len` bytes at `json`, freed with zkl_free.
    let s = unsafe { String::from_utf8_lossy(std::slice::from_raw_parts(json.cast::<u8>(), len)).into_owned() };
    unsafe { sys::zkl_free(json.cast()) };
    Ok(s)
}

/// The log callback: asks libzkl to keep log lines. In the pull form this
/// crate uses they arrive as LOG events instead; forwarded all the same.
unsafe extern "C" fn log_trampoline(
    level: i32,
    component: *const std::ffi::c_char,
    message: *const std::ffi::c_char,
    _user_data: *mut std::ffi::c_void,
) {
    let text = |p: *const std::ffi::c_char| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: NUL-terminated strings valid during the call.
            unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    crate::event::log_line(level, &text(component), &text(message));
}

impl AsRawFd for Client {
    /// The event fd: readable while events are pending. Owned by libzkl (do
    /// not close it); stable for the client's life.
    fn as_raw_fd(&self) -> RawFd {
        unsafe { sys::zkl_client_fd(self.raw()) }
    }
}

impl AsFd for Client {
    fn as_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the fd stays open at least as long as the client (libzkl
        // closes it only after zkl_client_destroy, which runs in our Drop).
        unsafe { BorrowedFd::borrow_raw(self.as_raw_fd()) }
    }
}

/// What [`Client::inspect`] reads a path as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InspectKind {
    /// A lock of that kind.
    Lock(crate::LockKind),
    /// An election of that kind.
    Election(crate::ElectionKind),
}

/// One node under an inspected path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Participant {
    /// Node name, e.g. `_c_<uuid>-lock-0000000003`.
    pub name: String,
    /// Holds (or leads), rather than waits.
    pub is_holder: bool,
    /// Its fencing token (the node's czxid).
    pub fencing_token: u64,
    /// The session that owns the node.
    pub session_id: u64,
    /// Node creation time, Unix ms.
    pub ctime_ms: i64,
    /// Node data (a holder or participant id).
    pub data: Vec<u8>,
    /// Semaphore leases this participant takes (1 for other recipes).
    pub leases: u32,
}

// ---------------------------------------------------------------------------
// Event routing
// ---------------------------------------------------------------------------
//
// One client queue feeds many consumers (blocking waiters, futures, the
// user's event loop), possibly on several threads at once. Whoever pumps
// takes the events out of libzkl under `Router::state` and files each one:
// the answer to an async call of this crate (acquire, campaign, guarded
// write) to the future that made it, by the request id the call returned
// and the event carries; lock/election/observer news to the handle's slot;
// and everything the user may want to see to the backlog. Every filing
// wakes blocked threads (the condvar, plus zkl_client_wakeup for the one
// parked in zkl_client_wait) and registered futures, so no waiter misses an
// event another one pumped.

#[derive(Default)]
pub(crate) struct Router {
    state: Mutex<RouterState>,
    cond: Condvar,
}

#[derive(Default)]
pub(crate) struct RouterState {
    /// A thread is parked in zkl_client_wait.
    pumping: bool,
    pub(crate) slots: HashMap<usize, Slot>,
    pub(crate) events: VecDeque<Event>,
    /// Futures to wake when anything is filed.
    pub(crate) wakers: HashMap<u64, Waker>,
    /// Wakers to call once the lock is released (a waker may drop the last
    /// reference to a task, and with it a future that takes this lock).
    to_wake: Vec<Waker>,
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) next_waiter: u64,
}

/// What the router knows about one handle.
#[derive(Default)]
pub(crate) struct Slot {
    /// Async calls started by a future of this crate on this handle, by the
    /// request id libzkl returned (ids are per client, so per slot too).
    pub(crate) calls: HashMap<u64, Call>,
    /// Bumped on every LOST of a lock or election.
    pub(crate) lost_gen: u64,
    pub(crate) lost_error: Option<Error>,
    /// Bumped on every SUSPENDED / RESTORED / LOST.
    pub(crate) hold_gen: u64,
    /// Election: latest status, bumped on every change.
    pub(crate) election_gen: u64,
    pub(crate) election: Option<crate::ElectionStatus>,
    /// Observer: latest leader and term, bumped on every change.
    pub(crate) leader_gen: u64,
    pub(crate) leader: Option<(String, u64)>,
}

/// An async call of this crate, filed under its request id.
#[cfg_attr(not(feature = "tokio"), allow(dead_code))]
pub(crate) enum Call {
    /// Its future waits for the answer.
    Waiting,
    /// Answered; the future has not taken the answer yet.
    Answered(Answer),
    /// An acquire or campaign whose future was dropped before its answer:
    /// a success is given back (`Contender::give_back`).
    Abandoned(Contender),
}

/// The one final answer to an async call.
#[cfg_attr(not(feature = "tokio"), allow(dead_code))]
pub(crate) enum Answer {
    /// ACQUIRED / ELECTED (the fencing token), or ACQUIRE_FAILED.
    Held(Result<u64>),
    /// WRITTEN.
    Written(Result<crate::WriteResult>),
}

impl Answer {
    /// The answer `ev` is, if any (NOT_ELECTED is a campaign's progress).
    fn of(ev: &Event) -> Option<Answer> {
        match &ev.kind {
            EventKind::Acquired | EventKind::Elected => Some(Answer::Held(Ok(ev.fencing_token))),
            EventKind::AcquireFailed(e) => Some(Answer::Held(Err(e.clone()))),
            EventKind::Written(result) => Some(Answer::Written(result.clone())),
            _ => None,
        }
    }

    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn held(self) -> Result<u64> {
        match self {
            Answer::Held(result) => result,
            Answer::Written(_) => Err(ErrorKind::Internal.into()),
        }
    }

    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn written(self) -> Result<crate::WriteResult> {
        match self {
            Answer::Written(result) => result,
            Answer::Held(_) => Err(ErrorKind::Internal.into()),
        }
    }
}

/// What an acquire or campaign of a future was started on: a lock or a
/// multi-lock (for an owner), or an election. Its methods take the handle's
/// slot key, which is the raw handle: call them only while the slot exists
/// (the handle is destroyed after its slot is removed).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "tokio"), allow(dead_code))]
pub(crate) enum Contender {
    Lock(u64),
    MultiLock(u64),
    Election,
}

#[cfg_attr(not(feature = "tokio"), allow(dead_code))]
impl Contender {
    /// Starts the acquire or campaign: its request id, or an error code.
    pub(crate) fn acquire_async(self, key: usize, timeout_ms: i64) -> i32 {
        // SAFETY: key is a live handle of this kind (see the type's doc).
        unsafe {
            match self {
                Contender::Lock(owner) => sys::zkl_lock_acquire_async(key as *mut _, owner, timeout_ms),
                Contender::MultiLock(owner) => sys::zkl_multilock_acquire_async(key as *mut _, owner, timeout_ms),
                Contender::Election => sys::zkl_election_acquire_async(key as *mut _, timeout_ms),
            }
        }
    }

    /// Cancels the handle's pending acquire or campaign.
    pub(crate) fn cancel(self, key: usize) {
        // SAFETY: as above.
        unsafe {
            match self {
                Contender::Lock(_) => sys::zkl_lock_cancel(key as *mut _),
                Contender::MultiLock(_) => sys::zkl_multilock_cancel(key as *mut _),
                Contender::Election => sys::zkl_election_cancel(key as *mut _),
            };
        }
    }

    /// Gives back a hold nobody takes. An election elected meanwhile stays
    /// leader: a cancel never resigns (`Election::resign` does).
    pub(crate) fn give_back(self, key: usize) {
        // SAFETY: as above.
        unsafe {
            match self {
                Contender::Lock(owner) => sys::zkl_lock_release_async(key as *mut _, owner),
                Contender::MultiLock(owner) => sys::zkl_multilock_release_async(key as *mut _, owner),
                Contender::Election => 0,
            };
        }
    }
}

/// The router's lock; wakes the futures filed for waking after unlocking.
pub(crate) struct Locked<'a>(Option<MutexGuard<'a, RouterState>>);

impl Deref for Locked<'_> {
    type Target = RouterState;
    fn deref(&self) -> &RouterState {
        self.0.as_ref().unwrap()
    }
}

impl DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut RouterState {
        self.0.as_mut().unwrap()
    }
}

impl<'a> Locked<'a> {
    /// Unlocks (waking what is due) and returns the raw guard's mutex state
    /// for a condvar wait.
    fn into_guard(mut self) -> MutexGuard<'a, RouterState> {
        let mut g = self.0.take().unwrap();
        debug_assert!(g.to_wake.is_empty(), "flush before waiting");
        g.to_wake.clear();
        g
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        if let Some(mut g) = self.0.take() {
            let wakers = std::mem::take(&mut g.to_wake);
            drop(g);
            for w in wakers {
                w.wake();
            }
        }
    }
}

impl Router {
    pub(crate) fn lock(&self) -> Locked<'_> {
        Locked(Some(self.state.lock().unwrap_or_else(|e| e.into_inner())))
    }

    fn notify_all(&self, client: &ClientInner) {
        let mut st = self.lock();
        client.wake(&mut st);
    }
}

impl ClientInner {
    /// The loss count of the handle `key` before an acquisition: taken after
    /// filing every pending event, so that a LOST of an earlier hold (queued
    /// before a new acquire can start) is not counted against the new one.
    pub(crate) fn lost_gen(&self, key: usize) -> u64 {
        let mut st = self.router.lock();
        self.drain(&mut st);
        st.slots.get(&key).map_or(0, |s| s.lost_gen)
    }

    /// Takes every pending event out of libzkl and files it. Returns whether
    /// anything was filed (waiters have then been woken).
    pub(crate) fn drain(&self, st: &mut RouterState) -> bool {
        let mut any = false;
        loop {
            let mut ev: *mut sys::zkl_event = std::ptr::null_mut();
            // SAFETY: raw is valid for our life; ev is freed right below.
            let rc = unsafe { sys::zkl_client_next_event(self.raw, &mut ev) };
            if rc != 0 || ev.is_null() {
                break;
            }
            if unsafe { sys::zkl_event_type(ev) } == sys::ZKL_EVENT_LOG {
                // SAFETY: a valid LOG event, freed right after.
                unsafe { crate::event::forward_log(ev) };
                unsafe { sys::zkl_event_free(ev) };
                continue;
            }
            let event = unsafe { Event::from_raw(ev) };
            unsafe { sys::zkl_event_free(ev) };
            self.file(st, event);
            any = true;
        }
        if any {
            self.wake(st);
        }
        any
    }

    fn wake(&self, st: &mut RouterState) {
        let woken: Vec<Waker> = st.wakers.drain().map(|(_, w)| w).collect();
        st.to_wake.extend(woken);
        self.router.cond.notify_all();
        if st.pumping {
            unsafe { sys::zkl_client_wakeup(self.raw) };
        }
    }

    fn file(&self, st: &mut RouterState, ev: Event) {
        let key = match ev.source {
            Source::Client => None,
            Source::Lock(HandleId(k))
            | Source::MultiLock(HandleId(k))
            | Source::Election(HandleId(k))
            | Source::Observer(HandleId(k)) => Some(k),
        };
        let Some(slot) = key.and_then(|k| st.slots.get_mut(&k)) else {
            push_backlog(&mut st.events, ev);
            return;
        };
        let election = matches!(ev.source, Source::Election(_));
        let token = ev.fencing_token;
        match &ev.kind {
            EventKind::Suspended | EventKind::Restored => slot.hold_gen += 1,
            EventKind::Lost(e) => {
                slot.hold_gen += 1;
                slot.lost_gen += 1;
                slot.lost_error = Some(e.clone());
            }
            EventKind::LeaderChanged(l) => {
                slot.leader_gen += 1;
                slot.leader = Some((l.clone(), token));
            }
            EventKind::NoLeader => {
                slot.leader_gen += 1;
                slot.leader = None;
            }
            _ => {}
        }
        if election {
            let status = match &ev.kind {
                EventKind::Elected => Some(crate::ElectionStatus::Elected(token)),
                EventKind::NotElected => Some(crate::ElectionStatus::NotElected),
                EventKind::Suspended => Some(crate::ElectionStatus::Suspended),
                EventKind::Restored => Some(crate::ElectionStatus::Restored(token)),
                EventKind::Lost(e) => Some(crate::ElectionStatus::Lost(e.clone())),
                EventKind::AcquireFailed(e) => Some(crate::ElectionStatus::Left(e.clone())),
                _ => None,
            };
            if let Some(status) = status {
                slot.election_gen += 1;
                slot.election = Some(status);
            }
        }
        // The answer to an async call of this crate, matched by the request
        // id the call returned (events that answer no call carry 0, never
        // filed as a call).
        if let Some(answer) = Answer::of(&ev) {
            match slot.calls.get(&ev.request_id) {
                Some(Call::Waiting) => {
                    slot.calls.insert(ev.request_id, Call::Answered(answer));
                    return;
                }
                Some(&Call::Abandoned(contender)) => {
                    slot.calls.remove(&ev.request_id);
                    if let Answer::Held(Ok(_)) = answer {
                        // Nobody wants this hold any more.
                        contender.give_back(key.unwrap());
                    }
                    return;
                }
                Some(Call::Answered(_)) | None => {}
            }
        }
        push_backlog(&mut st.events, ev);
    }

    /// Blocks until `f` returns a value (checked after every filing), or
    /// the timeout passes. Several threads may wait at once: one parks in
    /// zkl_client_wait, the others on the condvar.
    pub(crate) fn wait_until<T>(
        &self,
        timeout: Duration,
        mut f: impl FnMut(&mut RouterState) -> Option<T>,
    ) -> Option<T> {
        let deadline = Instant::now().checked_add(timeout);
        let mut st = self.router.lock();
        loop {
            self.drain(&mut st);
            if let Some(v) = f(&mut st) {
                return Some(v);
            }
            if !st.to_wake.is_empty() {
                // Wake the futures (outside the lock), then look again.
                drop(st);
                st = self.router.lock();
                continue;
            }
            let remaining = match deadline {
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return None;
                    }
                    Some(d - now)
                }
                None => None,
            };
            if !st.pumping {
                st.pumping = true;
                drop(st);
                let ms = remaining.map_or(-1, timeout_ms);
                // SAFETY: raw is valid for our life.
                unsafe { sys::zkl_client_wait(self.raw, ms) };
                st = self.router.lock();
                st.pumping = false;
                // Let a thread on the condvar take over the parking.
                self.router.cond.notify_all();
            } else {
                let g = st.into_guard();
                let g = match remaining {
                    Some(r) => self.router.cond.wait_timeout(g, r).unwrap_or_else(|e| e.into_inner()).0,
                    None => self.router.cond.wait(g).unwrap_or_else(|e| e.into_inner()),
                };
                st = Locked(Some(g));
            }
        }
    }

    pub(crate) fn add_slot(&self, key: usize) {
        self.router.lock().slots.insert(key, Slot::default());
    }

    pub(crate) fn remove_slot(&self, key: usize) {
        self.router.lock().slots.remove(&key);
    }
}

fn push_backlog(q: &mut VecDeque<Event>, ev: Event) {
    if q.len() >= EVENT_BACKLOG {
        q.pop_front();
    }
    q.push_back(ev);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_filed_by_request_id() {
        // No server needed: the client only connects in the background.
        let client = ClientBuilder::new("127.0.0.1:1").build().unwrap();
        let inner = &client.inner;
        let key = 1; // a handle only the router knows
        inner.add_slot(key);
        let mut st = inner.router.lock();
        st.slots.get_mut(&key).unwrap().calls.insert(5, Call::Waiting);
        let event = |kind, request_id| Event {
            kind,
            source: Source::Lock(HandleId(key)),
            session_state: SessionState::Connected,
            owner: 0,
            fencing_token: 42,
            request_id,
        };
        let waiting = |st: &RouterState| matches!(st.slots[&key].calls.get(&5), Some(Call::Waiting));
        // An event that answers no call (id 0), the answer to a call that
        // is nobody's here, and a campaign's progress settle no call: they
        // are the user's events.
        inner.file(&mut st, event(EventKind::Acquired, 0));
        inner.file(&mut st, event(EventKind::AcquireFailed(ErrorKind::Timeout.into()), 6));
        inner.file(&mut st, event(EventKind::NotElected, 5));
        assert!(waiting(&st));
        assert_eq!(st.events.len(), 3);
        // Its own answer settles it, and is not the user's.
        inner.file(&mut st, event(EventKind::Acquired, 5));
        assert!(matches!(st.slots[&key].calls.get(&5), Some(Call::Answered(Answer::Held(Ok(42))))));
        assert_eq!(st.events.len(), 3);
    }
}
