use zkl_sys as sys;

use crate::{Error, ErrorKind};

/// Identifies a lock, election or observer handle in [`Event::source`]
/// (compare with [`Lock::id`](crate::Lock::id) and friends). Never reused
/// within a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HandleId(pub(crate) usize);

/// What an [`Event`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// The client's session.
    Client,
    /// A lock (any kind, including semaphores and read/write locks).
    Lock(HandleId),
    /// A multi-lock ([`crate::MultiLock`]): its events are about the whole.
    MultiLock(HandleId),
    /// An election participant.
    Election(HandleId),
    /// A leader observer.
    Observer(HandleId),
}

/// ZooKeeper session state of a client (`ZKL_SESSION_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SessionState {
    /// No session yet.
    Connecting,
    /// Session established.
    Connected,
    /// Disconnected; the session may still live (held locks are suspended).
    Suspended,
    /// Reconnected to the same session.
    Reconnected,
    /// Expired, or disconnected past the client-side deadline; a new session
    /// is being established. Held locks are lost.
    Lost,
    /// The client was closed.
    Closed,
    /// The server rejected the credentials.
    AuthFailed,
    /// A state this version of the bindings does not know.
    Unknown(i32),
}

impl SessionState {
    pub(crate) fn from_raw(v: i32) -> SessionState {
        match v {
            sys::ZKL_SESSION_CONNECTING => SessionState::Connecting,
            sys::ZKL_SESSION_CONNECTED => SessionState::Connected,
            sys::ZKL_SESSION_SUSPENDED => SessionState::Suspended,
            sys::ZKL_SESSION_RECONNECTED => SessionState::Reconnected,
            sys::ZKL_SESSION_LOST => SessionState::Lost,
            sys::ZKL_SESSION_CLOSED => SessionState::Closed,
            sys::ZKL_SESSION_AUTH_FAILED => SessionState::AuthFailed,
            other => SessionState::Unknown(other),
        }
    }

    /// True while the session is usable (connected or reconnected).
    pub fn is_connected(self) -> bool {
        matches!(self, SessionState::Connected | SessionState::Reconnected)
    }
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EventKind {
    /// The session state changed to [`Event::session_state`].
    Session,
    /// An acquire started without waiting succeeded. (The futures of the
    /// async API consume their own results; these reach the event queue only
    /// for acquires not started by this crate.)
    Acquired,
    /// Such an acquire failed.
    AcquireFailed(Error),
    /// A held lock (or leadership) MAY be lost: the connection is down. Stop
    /// relying on it until `Restored`.
    Suspended,
    /// Reconnected in time: held again.
    Restored,
    /// The held lock (or leadership) is lost: `Session` (expired or past the
    /// safety bound), `Lost` (its node was deleted), `Auth`, `MaxHold`,
    /// `Revoked`, or `Closed` (the client was closed while holding).
    Lost(Error),
    /// A release without waiting (a guard's drop) completed: `None` on
    /// success. Every such release gets one, also that of an inner hold of
    /// a reentrant lock (at once: the count dropped, the node stays).
    Released(Option<Error>),
    /// This participant became leader.
    Elected,
    /// Joined an election; another participant leads.
    NotElected,
    /// An observer learned the leader: its id ([`Event::fencing_token`] is
    /// its term).
    LeaderChanged(String),
    /// An observer: nobody leads now.
    NoLeader,
    /// Someone asked this holder to let go ([`crate::Client::revoke`]).
    RevokeRequested,
    /// A guarded write sent without waiting finished (`ZKL_EVENT_WRITTEN`;
    /// [`Event::request_id`] says which): its results, or why nothing was
    /// applied (with [`Error::failed_op`]). The write futures of this crate
    /// consume their own answers; these reach the event queue only for
    /// writes whose future was dropped.
    Written(Result<crate::WriteResult, Error>),
    /// The client's statistics document (JSON), every
    /// [`crate::ClientBuilder::stats_interval`].
    Stats(String),
    /// An event type this version of the bindings does not know.
    Unknown(i32),
}

/// An event from the client's queue: see [`Client::next_event`](crate::Client::next_event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// Which handle it is about.
    pub source: Source,
    /// The session state when the event was queued.
    pub session_state: SessionState,
    /// Owner token of the acquire the event answers (0 if not applicable).
    pub owner: u64,
    /// Fencing token of the hold (acquired, elected, suspended, restored,
    /// lost, revoke requested), the leader's term (leader changed); else 0.
    pub fencing_token: u64,
    /// The request id of the asynchronous call the event answers
    /// (`zkl_*_acquire_async`: acquired, elected, not elected, acquire
    /// failed; `zkl_*_release_async`: released; `zkl_*_write_async`:
    /// written); 0 for an event that answers no call (suspended, restored,
    /// lost, revoke requested, an election's own rejoin after a loss, ...).
    /// The futures of this crate take the answers to their own calls by it
    /// (only that of a write whose future was dropped reaches the queue).
    pub request_id: u64,
}

impl Event {
    /// Reads a C event (which the caller still owns and frees).
    ///
    /// # Safety
    /// `ev` must be a valid event from `zkl_client_next_event`.
    pub(crate) unsafe fn from_raw(ev: *const sys::zkl_event) -> Event {
        // SAFETY: the caller guarantees a valid event; every out-pointer is
        // a local, and the data pointer is read while the event lives.
        unsafe { Self::read(ev) }
    }

    unsafe fn read(ev: *const sys::zkl_event) -> Event {
        #![allow(unsafe_op_in_unsafe_fn)]
        let ty = sys::zkl_event_type(ev);
        let error = sys::zkl_event_error(ev);
        let session_state = SessionState::from_raw(sys::zkl_event_session_state(ev));
        let mut owner = 0u64;
        let mut fencing_token = 0u64;
        sys::zkl_event_owner(ev, &mut owner);
        sys::zkl_event_fencing_token(ev, &mut fencing_token);
        let mut lock: *mut sys::zkl_lock = std::ptr::null_mut();
        let mut election: *mut sys::zkl_election = std::ptr::null_mut();
        let mut observer: *mut sys::zkl_observer = std::ptr::null_mut();
        sys::zkl_event_lock(ev, &mut lock);
        sys::zkl_event_election(ev, &mut election);
        sys::zkl_event_observer(ev, &mut observer);
        let mut multilock: *mut sys::zkl_multilock = std::ptr::null_mut();
        sys::zkl_event_multilock(ev, &mut multilock);
        let source = if !lock.is_null() {
            Source::Lock(HandleId(lock as usize))
        } else if !multilock.is_null() {
            Source::MultiLock(HandleId(multilock as usize))
        } else if !election.is_null() {
            Source::Election(HandleId(election as usize))
        } else if !observer.is_null() {
            Source::Observer(HandleId(observer as usize))
        } else {
            Source::Client
        };
        let err = || if error < 0 { Error::from_code(error) } else { ErrorKind::Internal.into() };
        let kind = match ty {
            sys::ZKL_EVENT_SESSION => EventKind::Session,
            sys::ZKL_EVENT_ACQUIRED => EventKind::Acquired,
            sys::ZKL_EVENT_ACQUIRE_FAILED => EventKind::AcquireFailed(err()),
            sys::ZKL_EVENT_SUSPENDED => EventKind::Suspended,
            sys::ZKL_EVENT_RESTORED => EventKind::Restored,
            sys::ZKL_EVENT_LOST => EventKind::Lost(err()),
            sys::ZKL_EVENT_RELEASED => {
                EventKind::Released(if error < 0 { Some(Error::from_code(error)) } else { None })
            }
            sys::ZKL_EVENT_ELECTED => EventKind::Elected,
            sys::ZKL_EVENT_NOT_ELECTED => EventKind::NotElected,
            sys::ZKL_EVENT_LEADER_CHANGED => EventKind::LeaderChanged(event_data(ev)),
            sys::ZKL_EVENT_NO_LEADER => EventKind::NoLeader,
            sys::ZKL_EVENT_REVOKE_REQUESTED => EventKind::RevokeRequested,
            sys::ZKL_EVENT_STATS => EventKind::Stats(event_data(ev)),
            sys::ZKL_EVENT_WRITTEN => {
                let mut ops: *const sys::zkl_ops = std::ptr::null();
                sys::zkl_event_ops(ev, &mut ops);
                let result = crate::WriteResult::from_raw(ops);
                EventKind::Written(crate::write::outcome(error.min(0), result))
            }
            other => EventKind::Unknown(other),
        };
        let mut request_id = 0u64;
        sys::zkl_event_request_id(ev, &mut request_id);
        Event { kind, source, session_state, owner, fencing_token, request_id }
    }
}

/// The event's data as text (empty when none).
///
/// # Safety
/// `ev` must be a valid event.
pub(crate) unsafe fn event_data(ev: *const sys::zkl_event) -> String {
    let mut data: *const std::ffi::c_char = std::ptr::null();
    let mut len = 0usize;
    // SAFETY: valid event; the data lives as long as the event.
    unsafe {
        sys::zkl_event_data(ev, &mut data, &mut len);
        if data.is_null() || len == 0 {
            return String::new();
        }
        String::from_utf8_lossy(std::slice::from_raw_parts(data.cast::<u8>(), len)).into_owned()
    }
}

/// Hands a LOG event (pull form) to the `log` crate: target `zkl::<component>`
/// ("zkl", "zookeeper", "tls", "sasl").
///
/// # Safety
/// `ev` must be a valid LOG event.
pub(crate) unsafe fn forward_log(ev: *const sys::zkl_event) {
    let mut level = 0;
    let mut component: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: valid event; the component lives as long as the event.
    let (component, message) = unsafe {
        sys::zkl_event_log(ev, &mut level, &mut component);
        let c = if component.is_null() {
            "zkl".into()
        } else {
            std::ffi::CStr::from_ptr(component).to_string_lossy()
        };
        (c.into_owned(), event_data(ev))
    };
    log_line(level, &component, &message);
}

pub(crate) fn log_line(level: i32, component: &str, message: &str) {
    let level = match level {
        sys::ZKL_LOG_ERROR => log::Level::Error,
        sys::ZKL_LOG_WARN => log::Level::Warn,
        sys::ZKL_LOG_INFO => log::Level::Info,
        _ => log::Level::Debug,
    };
    let target = format!("zkl::{component}");
    log::log!(target: &target, level, "{message}");
}
