/*
 * capi.i: SWIG interface for zkl.h, the low-level module zkl.capi.
 *
 * A direct wrapping of the C API. Only the conversions Python needs are
 * added here (typemaps); the idiomatic layer is pure Python (zkl/*.py).
 *
 *  - Every call returns its int result code; out-parameters are appended,
 *    so `rc, lock = zkl_lock_new(client, path, opts)`.
 *  - Handles are SWIG pointer objects; int(handle) is the handle's number.
 *  - Strings with an embedded NUL byte are rejected (ValueError) before C
 *    sees a truncated string.
 *  - The GIL is released around every C call (swig -threads), so blocking
 *    calls (zkl_lock_acquire, zkl_client_wait, ...) do not stall other
 *    Python threads.
 *  - C callbacks are not wrapped: the Python layer uses the pull form
 *    (zkl_client_next_event) and runs Python callbacks on the thread that
 *    pulls. The callback fields of the options structs are not exposed and
 *    zkl_client_dispatch (which would discard events without callbacks) is
 *    not wrapped. Log lines reach the pull form as ZKL_EVENT_LOG events
 *    when the client has a log callback: zkl_client_options.set_log_events()
 *    installs one that is never called (the pull form does not call
 *    callbacks), so the lines are queued instead of printed to stderr.
 *  - Statistics (zkl_*_stats) come back as str; the C buffer is freed
 *    with zkl_free here.
 *  - Node data in (zkl_ops_create/set, zkl_election_proclaim) is bytes;
 *    zkl_ops_path(ops, i, size) returns (length, bytes), as
 *    zkl_observer_leader does; zkl_event_ops gives the event's borrowed
 *    results (read them before zkl_event_free).
 */
%module(package="zkl") capi

%{
#include <stdlib.h>
#include <string.h>
#include <zkl.h>
%}

%include <stdint.i>

/* ---- strings in: reject embedded NUL ---------------------------------- */

%typemap(in) const char * (char *buf = 0, size_t size = 0, int alloc = 0) {
  if ($input == Py_None) {
    $1 = NULL;
  } else {
    int res = SWIG_AsCharPtrAndSize($input, &buf, &size, &alloc);
    if (!SWIG_IsOK(res)) {
      SWIG_exception_fail(SWIG_ArgError(res), "in method '$symname', argument $argnum must be str");
    }
    if (buf && size > 0 && strlen(buf) + 1 != size) {
      if (alloc == SWIG_NEWOBJ) { free(buf); buf = 0; }
      PyErr_SetString(PyExc_ValueError, "in method '$symname': string argument $argnum contains a NUL byte");
      SWIG_fail;
    }
    $1 = buf;
  }
}
%typemap(freearg) const char * {
  if (alloc$argnum == SWIG_NEWOBJ) free(buf$argnum);
}
%typemap(typecheck, precedence=SWIG_TYPECHECK_STRING) const char * {
  $1 = ($input == Py_None || PyUnicode_Check($input)) ? 1 : 0;
}

/* Struct members of type const char * own a malloc'ed copy, freed when it
 * is replaced and when the options struct is deleted. (This runs with the
 * GIL released: no Python API here; out of memory leaves NULL, which the
 * C API then rejects with ZKL_EINVAL.) */
%typemap(memberin) const char * {
  zkl_py_free_secret($1);  /* wiped: it may be a secret */
  $1 = NULL;
  if ($input) {
    size_t n = strlen($input) + 1;
    char *copy = (char *)malloc(n);
    if (copy) {
      memcpy(copy, $input, n);
      $1 = copy;
    }
  }
}

/* ---- handle out-parameters -------------------------------------------- */

%define ZKL_HANDLE_OUT(TYPE)
%typemap(in, numinputs=0) TYPE **out (TYPE *handle_out = NULL) { $1 = &handle_out; }
%typemap(argout) TYPE **out {
  PyObject *o;
  if (handle_out$argnum) {
    o = SWIG_NewPointerObj(SWIG_as_voidptr(handle_out$argnum), $descriptor(TYPE *), 0);
  } else {
    o = Py_None;
    Py_INCREF(o);
  }
  $result = SWIG_Python_AppendOutput($result, o);
}
%enddef
ZKL_HANDLE_OUT(zkl_client)
ZKL_HANDLE_OUT(zkl_lock)
ZKL_HANDLE_OUT(zkl_multilock)
ZKL_HANDLE_OUT(zkl_election)
ZKL_HANDLE_OUT(zkl_observer)
ZKL_HANDLE_OUT(zkl_event)
ZKL_HANDLE_OUT(zkl_participants)
ZKL_HANDLE_OUT(zkl_ops)

/* zkl_event_ops(ev, &ops): the event's borrowed results (None for events
 * other than WRITTEN), valid as long as the event. */
%typemap(in, numinputs=0) const zkl_ops **out (const zkl_ops *ops_out = NULL) { $1 = ($1_ltype)&ops_out; }
%typemap(argout) const zkl_ops **out {
  PyObject *o;
  if (ops_out$argnum) {
    o = SWIG_NewPointerObj(SWIG_as_voidptr((zkl_ops *)ops_out$argnum), $descriptor(zkl_ops *), 0);
  } else {
    o = Py_None;
    Py_INCREF(o);
  }
  $result = SWIG_Python_AppendOutput($result, o);
}

/* ---- scalar out-parameters -------------------------------------------- */

%typemap(in, numinputs=0) uint64_t *out (uint64_t u64_out = 0) { $1 = &u64_out; }
%typemap(argout) uint64_t *out {
  $result = SWIG_Python_AppendOutput($result, PyLong_FromUnsignedLongLong(u64_out$argnum));
}
%typemap(in, numinputs=0) int64_t *out (int64_t i64_out = 0) { $1 = &i64_out; }
%typemap(argout) int64_t *out {
  $result = SWIG_Python_AppendOutput($result, PyLong_FromLongLong(i64_out$argnum));
}
%apply int64_t *out { int64_t *ms };  /* zkl_*_valid_for: (rc, ms) */
%typemap(in, numinputs=0) int32_t *out (int32_t i32_out = 0) { $1 = &i32_out; }
%typemap(argout) int32_t *out {  /* zkl_ops_version: (rc, version) */
  $result = SWIG_Python_AppendOutput($result, PyLong_FromLong((long)i32_out$argnum));
}
/* zkl_event_user_data: the pointer as an int. */
%typemap(in, numinputs=0) void **out (void *ptr_out = NULL) { $1 = &ptr_out; }
%typemap(argout) void **out {
  $result = SWIG_Python_AppendOutput($result, PyLong_FromVoidPtr(ptr_out$argnum));
}

/* Byte strings owned by the event / participants: copied into bytes. */
%typemap(in, numinputs=0) (const char **data, size_t *len) (const char *bytes_out = NULL, size_t bytes_len = 0) {
  $1 = ($1_ltype)&bytes_out;
  $2 = &bytes_len;
}
%typemap(argout) (const char **data, size_t *len) {
  $result = SWIG_Python_AppendOutput(
      $result, PyBytes_FromStringAndSize(bytes_out$argnum ? bytes_out$argnum : "",
                                         bytes_out$argnum ? (Py_ssize_t)bytes_len$argnum : 0));
}
%typemap(in, numinputs=0) const char **out (const char *str_out = NULL) { $1 = ($1_ltype)&str_out; }
%typemap(argout) const char **out {
  $result = SWIG_Python_AppendOutput(
      $result, PyBytes_FromString(str_out$argnum ? str_out$argnum : ""));
}

/* zkl_client_session_password(c, buf, len): returns (rc, bytes). */
%typemap(in, numinputs=0) (void *buf, size_t len) (unsigned char pw_buf[64]) {
  $1 = pw_buf;
  $2 = sizeof pw_buf;
}
%typemap(argout) (void *buf, size_t len) {
  int n = result > 0 ? (result <= (int)sizeof pw_buf$argnum ? result : (int)sizeof pw_buf$argnum) : 0;
  $result = SWIG_Python_AppendOutput($result, PyBytes_FromStringAndSize((const char *)pw_buf$argnum, n));
}

/* Node data in (zkl_ops_create / zkl_ops_set, zkl_election_proclaim): bytes
 * (None: no data). The bytes object outlives the call (the arguments hold
 * it) and is immutable, so the GIL may be released meanwhile. */
%typemap(in) (const void *data, size_t len) {
  char *bytes_in = NULL;
  Py_ssize_t bytes_in_len = 0;
  if ($input != Py_None) {
    if (!PyBytes_Check($input)) SWIG_exception_fail(SWIG_TypeError, "in method '$symname': data must be bytes");
    if (PyBytes_AsStringAndSize($input, &bytes_in, &bytes_in_len) < 0) SWIG_fail;
  }
  $1 = (void *)bytes_in;
  $2 = (size_t)bytes_in_len;
}
%typemap(typecheck, precedence=SWIG_TYPECHECK_STRING) (const void *data, size_t len) {
  $1 = ($input == Py_None || PyBytes_Check($input)) ? 1 : 0;
}

/* zkl_observer_leader(o, buf, len), zkl_client_connect_error(c, buf, len):
 * take the buffer size, return (the result, bytes truncated to size - 1;
 * connect_error writes its text with a negative result, the code). */
%typemap(in) (char *buf, size_t len) {
  unsigned long long n;
  if (!PyLong_Check($input)) SWIG_exception_fail(SWIG_TypeError, "buffer size must be an int");
  n = PyLong_AsUnsignedLongLong($input);
  if (PyErr_Occurred() || n > (1u << 24)) SWIG_exception_fail(SWIG_ValueError, "bad buffer size");
  $2 = (size_t)n;
  $1 = (char *)calloc(1, $2 ? $2 : 1);
  if (!$1) { PyErr_NoMemory(); SWIG_fail; }
}
%typemap(argout) (char *buf, size_t len) {
  size_t n = 0;
  if ($2 > 0) n = strnlen($1, $2 - 1);  /* calloc'ed: "" when nothing was written */
  $result = SWIG_Python_AppendOutput($result, PyBytes_FromStringAndSize($1, (Py_ssize_t)n));
}
%typemap(freearg) (char *buf, size_t len) { free($1); }

/* zkl_client_create / zkl_client_options_check: no buffer argument; the
 * message (why it failed, "" on success) is appended to the result as str:
 * rc, client, message = zkl_client_create(opts). */
%typemap(in, numinputs=0) (char *errbuf, size_t errbuf_size) (char errbuf_out[512]) {
  errbuf_out[0] = '\0';
  $1 = errbuf_out;
  $2 = sizeof errbuf_out;
}
%typemap(argout) (char *errbuf, size_t errbuf_size) {
  $result = SWIG_Python_AppendOutput(
      $result, PyUnicode_DecodeUTF8(errbuf_out$argnum, (Py_ssize_t)strnlen(errbuf_out$argnum, sizeof errbuf_out$argnum), "replace"));
}

/* zkl_client_stats / zkl_lock_stats / zkl_election_stats: (rc, str). */
%typemap(in, numinputs=0) (char **json, size_t *len) (char *json_out = NULL, size_t json_len = 0) {
  $1 = &json_out;
  $2 = &json_len;
}
%typemap(argout) (char **json, size_t *len) {
  PyObject *o;
  if (json_out$argnum) {
    o = PyUnicode_DecodeUTF8(json_out$argnum, (Py_ssize_t)json_len$argnum, "surrogateescape");
  } else {
    o = Py_None;
    Py_INCREF(o);
  }
  $result = SWIG_Python_AppendOutput($result, o);
}
%typemap(freearg) (char **json, size_t *len) { zkl_free(json_out$argnum); }

/* zkl_event_log(ev, &level, &component): (rc, level, component bytes). */
%typemap(in, numinputs=0) (int *level, const char **component) (int lvl_out = 0, const char *comp_out = NULL) {
  $1 = &lvl_out;
  $2 = ($2_ltype)&comp_out;
}
%typemap(argout) (int *level, const char **component) {
  $result = SWIG_Python_AppendOutput($result, PyLong_FromLong(lvl_out$argnum));
  $result = SWIG_Python_AppendOutput($result, PyBytes_FromString(comp_out$argnum ? comp_out$argnum : ""));
}

/* zkl_multilock_new(c, members, n, opts, out): members is a sequence of
 * zkl_lock handles. */
%typemap(in) (zkl_lock *const *members, size_t n) {
  PyObject *seq = PySequence_Fast($input, "members must be a sequence of lock handles");
  Py_ssize_t i, count;
  if (!seq) SWIG_fail;
  count = PySequence_Fast_GET_SIZE(seq);
  $2 = (size_t)count;
  $1 = (zkl_lock **)calloc(count > 0 ? (size_t)count : 1, sizeof(zkl_lock *));
  if (!$1) { Py_DECREF(seq); PyErr_NoMemory(); SWIG_fail; }
  for (i = 0; i < count; i++) {
    void *p = NULL;
    int res = SWIG_ConvertPtr(PySequence_Fast_GET_ITEM(seq, i), &p, $descriptor(zkl_lock *), 0);
    if (!SWIG_IsOK(res)) {
      Py_DECREF(seq);
      free((void *)$1);
      $1 = NULL;
      SWIG_exception_fail(SWIG_ArgError(res), "members must be zkl_lock handles");
    }
    ((zkl_lock **)$1)[i] = (zkl_lock *)p;
  }
  Py_DECREF(seq);
}
%typemap(freearg) (zkl_lock *const *members, size_t n) { free((void *)$1); }

/* ---- options structs ---------------------------------------------------- */

/* Callbacks cannot be set from Python (see above). */
%ignore zkl_client_options::cb;
%ignore zkl_client_options::user_data;
%ignore zkl_client_options::log_cb;
%ignore zkl_client_options::log_user_data;
%ignore zkl_lock_options::cb;
%ignore zkl_lock_options::user_data;
%ignore zkl_lock_options::data;
%ignore zkl_lock_options::data_len;
%ignore zkl_multilock_options::cb;
%ignore zkl_multilock_options::user_data;
%ignore zkl_election_options::cb;
%ignore zkl_election_options::user_data;
%ignore zkl_observer_options::cb;
%ignore zkl_observer_options::user_data;
%ignore zkl_client_dispatch;
%ignore zkl_free;

%{
/* The log callback of the pull form: never called (zkl_client_next_event
 * does not call callbacks), it only tells zkl to queue log lines as
 * ZKL_EVENT_LOG events instead of printing them to stderr. */
static void zkl_py_log_to_events(int level, const char *component, const char *message,
                                 void *user_data) {
  (void)level; (void)component; (void)message; (void)user_data;
}

static void zkl_py_free_secret(const char *s) {
  if (s) {
    volatile char *p = (volatile char *)s;
    while (*p) *p++ = 0;
    free((char *)s);
  }
}
%}

%extend zkl_client_options {
  /* Log lines as ZKL_EVENT_LOG events (see the top of this file). */
  void set_log_events(int on) {
    $self->log_cb = on ? zkl_py_log_to_events : NULL;
    $self->log_user_data = NULL;
  }
  ~zkl_client_options() {
    free((char *)$self->servers);
    free((char *)$self->chroot);
    zkl_py_free_secret($self->digest_auth);
    free((char *)$self->tls_ca_file);
    free((char *)$self->tls_cert_file);
    free((char *)$self->tls_key_file);
    zkl_py_free_secret($self->tls_key_password);
    free((char *)$self->sasl_mechanism);
    free((char *)$self->sasl_user);
    zkl_py_free_secret($self->sasl_password);
    free((char *)$self->sasl_keytab);
    free((char *)$self->sasl_ccache);
    free((char *)$self->sasl_service);
    free((char *)$self->sasl_host);
    free($self);
  }
}

/* set_data uses the Python API: it keeps the GIL. */
%nothread zkl_lock_options::set_data;
%exception zkl_lock_options::set_data {
  $action
  if (PyErr_Occurred()) SWIG_fail;
}
%extend zkl_lock_options {
  /* Node data: a private copy of `bytes`, freed with the struct. */
  void set_data(PyObject *bytes) {
    char *buf;
    Py_ssize_t n;
    void *copy = NULL;
    if (bytes != Py_None) {
      if (PyBytes_AsStringAndSize(bytes, &buf, &n) < 0) return;
      copy = malloc(n > 0 ? (size_t)n : 1);
      if (!copy) { PyErr_NoMemory(); return; }
      memcpy(copy, buf, (size_t)n);
    } else {
      n = 0;
    }
    free((void *)$self->data);
    $self->data = copy;
    $self->data_len = (size_t)n;
  }
  ~zkl_lock_options() {
    free((void *)$self->data);
    free($self);
  }
}

%extend zkl_election_options {
  ~zkl_election_options() {
    free((char *)$self->id);
    free($self);
  }
}

%include <zkl.h>
