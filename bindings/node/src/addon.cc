// zkl Node-API addon: a thin layer over the C ABI (zkl.h).
//
// - zkl handles cross into JavaScript as BigInt values. They are checked by
//   the library on every call, so a stale value gives ZKL_EBADHANDLE, never
//   a crash.
// - Each client's event fd is watched by a uv_poll_t on Node's own loop; its
//   callback pulls every pending event (zkl_client_next_event) and hands the
//   batch to one JavaScript function, on the JavaScript thread. The poll
//   handle is unref'd unless JavaScript says that something is pending
//   (clientRef), so an idle client does not keep the process alive.
// - Calls that block for a round trip (close, election release, inspect,
//   revoke, fence check, proclaim)
//   run as napi_async_work on libuv's thread pool and return a Promise;
//   every other call is non-blocking and synchronous.
// - Functions return negative ZKL_E* codes as numbers; lib/index.js turns
//   them into ZklError exceptions. Wrong JavaScript types throw TypeError.
// - An operations list of a guarded write (zkl_ops, a plain owned object,
//   not a checked handle) crosses as an external freed by the garbage
//   collector. The *_write_async calls copy it and return a request id;
//   the WRITTEN event that answers carries that id and the results.
// - The *_acquire_async and *_release_async calls return a request id (> 0)
//   too, or a negative code; each event object carries `requestId`, the id
//   of the call it answers (0 for none), by which lib/ settles the call.
#define NAPI_VERSION 8
#include <node_api.h>
#include <uv.h>
#include <zkl.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

#define CHECK_NAPI(env, call)                                   \
  do {                                                          \
    if ((call) != napi_ok) {                                    \
      ThrowLastError(env);                                      \
      return nullptr;                                           \
    }                                                           \
  } while (0)

void ThrowLastError(napi_env env) {
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (pending) return;
  const napi_extended_error_info *info = nullptr;
  napi_get_last_error_info(env, &info);
  napi_throw_error(env, "ZKL_ENAPI",
                   info && info->error_message ? info->error_message : "Node-API call failed");
}

napi_value Int(napi_env env, int64_t v) {
  napi_value out;
  napi_create_int64(env, v, &out);
  return out;
}

napi_value Big(napi_env env, uint64_t v) {
  napi_value out;
  napi_create_bigint_uint64(env, v, &out);
  return out;
}

napi_value Str(napi_env env, const char *s, size_t len) {
  napi_value out;
  napi_create_string_utf8(env, s, len, &out);
  return out;
}

napi_value Undefined(napi_env env) {
  napi_value out;
  napi_get_undefined(env, &out);
  return out;
}

napi_value Null(napi_env env) {
  napi_value out;
  napi_get_null(env, &out);
  return out;
}

// Reads the call's arguments; missing ones are undefined.
template <size_t N>
bool Args(napi_env env, napi_callback_info info, napi_value (&argv)[N]) {
  size_t argc = N;
  return napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) == napi_ok;
}

bool IsType(napi_env env, napi_value v, napi_valuetype t) {
  napi_valuetype got;
  return napi_typeof(env, v, &got) == napi_ok && got == t;
}

// A JavaScript string as UTF-8. `has_nul` tells whether it contains U+0000,
// which a C string cannot carry (the caller rejects it).
bool GetString(napi_env env, napi_value v, std::string *out, bool *has_nul = nullptr) {
  size_t len = 0;
  if (napi_get_value_string_utf8(env, v, nullptr, 0, &len) != napi_ok) {
    napi_throw_type_error(env, nullptr, "expected a string");
    return false;
  }
  out->assign(len, '\0');
  size_t copied = 0;
  napi_get_value_string_utf8(env, v, &(*out)[0], len + 1, &copied);
  out->resize(copied);
  if (has_nul) *has_nul = std::memchr(out->data(), '\0', out->size()) != nullptr;
  return true;
}

// An optional string: undefined/null leave `present` false.
bool GetOptString(napi_env env, napi_value obj, const char *key, std::string *out, bool *present) {
  *present = false;
  napi_value v;
  if (napi_get_named_property(env, obj, key, &v) != napi_ok) return false;
  if (IsType(env, v, napi_undefined) || IsType(env, v, napi_null)) return true;
  bool nul = false;
  if (!GetString(env, v, out, &nul)) return false;
  if (nul) {
    std::string msg = std::string(key) + " must not contain NUL";
    napi_throw_type_error(env, nullptr, msg.c_str());
    return false;
  }
  *present = true;
  return true;
}

bool GetOptInt(napi_env env, napi_value obj, const char *key, int32_t *out) {
  napi_value v;
  if (napi_get_named_property(env, obj, key, &v) != napi_ok) return false;
  if (IsType(env, v, napi_undefined) || IsType(env, v, napi_null)) return true;
  if (napi_get_value_int32(env, v, out) != napi_ok) {
    std::string msg = std::string(key) + " must be a number";
    napi_throw_type_error(env, nullptr, msg.c_str());
    return false;
  }
  return true;
}

bool GetU64(napi_env env, napi_value v, uint64_t *out) {
  bool lossless = false;
  if (napi_get_value_bigint_uint64(env, v, out, &lossless) != napi_ok || !lossless) {
    napi_throw_type_error(env, nullptr, "expected a BigInt in [0, 2^64)");
    return false;
  }
  return true;
}

bool GetI64(napi_env env, napi_value v, int64_t *out) {
  if (napi_get_value_int64(env, v, out) != napi_ok) {
    napi_throw_type_error(env, nullptr, "expected a number");
    return false;
  }
  return true;
}

bool GetI32(napi_env env, napi_value v, int32_t *out) {
  if (napi_get_value_int32(env, v, out) != napi_ok) {
    napi_throw_type_error(env, nullptr, "expected a number");
    return false;
  }
  return true;
}

template <typename T>
bool GetHandle(napi_env env, napi_value v, T **out) {
  uint64_t id = 0;
  if (!GetU64(env, v, &id)) return false;
  *out = reinterpret_cast<T *>(static_cast<uintptr_t>(id));
  return true;
}

template <typename T>
napi_value HandleValue(napi_env env, T *h) {
  return Big(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h)));
}

// ---------------------------------------------------------------------------
// Client context: the zkl client, its uv_poll_t and the JavaScript callback.
// ---------------------------------------------------------------------------

struct ClientCtx;

// What the JavaScript external points to. The context may go first (client
// destroyed); the box then holds null. The box is freed by the external's
// finalizer, the context by its poll handle's close callback.
struct ClientBox {
  ClientCtx *ctx = nullptr;
};

struct ClientCtx {
  napi_env env = nullptr;
  zkl_client *client = nullptr;
  uv_poll_t poll;
  bool polling = false;
  bool destroyed = false;
  napi_ref on_events = nullptr;
  napi_async_context async_ctx = nullptr;
  napi_async_cleanup_hook_handle cleanup = nullptr;
  ClientBox *box = nullptr;
};

// A guarded write's results: {failed: index | null, paths: [string | null],
// versions: [number | null]} (one entry per operation).
napi_value OpsResults(napi_env env, const zkl_ops *ops) {
  napi_value o, paths, versions;
  napi_create_object(env, &o);
  int n = zkl_ops_count(ops);
  if (n < 0) n = 0;
  napi_create_array_with_length(env, static_cast<size_t>(n), &paths);
  napi_create_array_with_length(env, static_cast<size_t>(n), &versions);
  std::vector<char> buf(256);
  for (int i = 0; i < n; ++i) {
    int len = zkl_ops_path(ops, static_cast<size_t>(i), buf.data(), buf.size());
    if (len >= 0 && static_cast<size_t>(len) >= buf.size()) {
      buf.resize(static_cast<size_t>(len) + 1);
      len = zkl_ops_path(ops, static_cast<size_t>(i), buf.data(), buf.size());
    }
    napi_set_element(env, paths, static_cast<uint32_t>(i),
                     len >= 0 ? Str(env, buf.data(), static_cast<size_t>(len)) : Null(env));
    int32_t version = 0;
    napi_set_element(env, versions, static_cast<uint32_t>(i),
                     zkl_ops_version(ops, static_cast<size_t>(i), &version) == ZKL_OK ? Int(env, version)
                                                                                   : Null(env));
  }
  int failed = zkl_ops_failed(ops);
  napi_set_named_property(env, o, "failed", failed >= 0 ? Int(env, failed) : Null(env));
  napi_set_named_property(env, o, "paths", paths);
  napi_set_named_property(env, o, "versions", versions);
  return o;
}

// Builds a JavaScript object from one event.
napi_value EventObject(napi_env env, const zkl_event *ev) {
  napi_value o;
  napi_create_object(env, &o);
  void *ud = nullptr;
  zkl_event_user_data(ev, &ud);
  uint64_t owner = 0, token = 0;
  zkl_event_owner(ev, &owner);
  zkl_event_fencing_token(ev, &token);
  const char *data = nullptr;
  size_t len = 0;
  zkl_event_data(ev, &data, &len);
  napi_set_named_property(env, o, "type", Int(env, zkl_event_type(ev)));
  napi_set_named_property(env, o, "uid",
                          Int(env, static_cast<int64_t>(reinterpret_cast<uintptr_t>(ud))));
  napi_set_named_property(env, o, "error", Int(env, zkl_event_error(ev)));
  napi_set_named_property(env, o, "state", Int(env, zkl_event_session_state(ev)));
  napi_set_named_property(env, o, "owner", Big(env, owner));
  napi_set_named_property(env, o, "token", Big(env, token));
  napi_set_named_property(env, o, "data", data ? Str(env, data, len) : Null(env));
  uint64_t request_id = 0;
  zkl_event_request_id(ev, &request_id);
  napi_set_named_property(env, o, "requestId", Int(env, static_cast<int64_t>(request_id)));
  if (zkl_event_type(ev) == ZKL_EVENT_WRITTEN) {
    const zkl_ops *ops = nullptr;
    zkl_event_ops(ev, &ops);
    napi_set_named_property(env, o, "ops", ops ? OpsResults(env, ops) : Null(env));
  }
  if (zkl_event_type(ev) == ZKL_EVENT_LOG) {
    int level = 0;
    const char *component = nullptr;
    zkl_event_log(ev, &level, &component);
    napi_set_named_property(env, o, "level", Int(env, level));
    napi_set_named_property(env, o, "component",
                            Str(env, component ? component : "", NAPI_AUTO_LENGTH));
  }
  return o;
}

// Pulls up to `budget` pending events into a JavaScript array.
napi_value CollectEvents(napi_env env, ClientCtx *ctx, int budget, uint32_t *count) {
  napi_value arr;
  napi_create_array(env, &arr);
  *count = 0;
  while (budget-- > 0 && !ctx->destroyed) {
    zkl_event *ev = nullptr;
    if (zkl_client_next_event(ctx->client, &ev) != ZKL_OK) break;
    napi_set_element(env, arr, (*count)++, EventObject(env, ev));
    zkl_event_free(ev);
  }
  return arr;
}

void OnPoll(uv_poll_t *handle, int status, int /*events*/) {
  auto *ctx = static_cast<ClientCtx *>(handle->data);
  if (ctx->destroyed) return;
  if (status < 0) {
    // The eventfd is stable for the client's life; an error here means it
    // is unusable. Stop rather than spin; events can still be drained.
    uv_poll_stop(&ctx->poll);
    return;
  }
  napi_env env = ctx->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  uint32_t count = 0;
  // A bounded batch: the fd stays readable (level-triggered) if more remain.
  napi_value batch = CollectEvents(env, ctx, 1024, &count);
  napi_value fn = nullptr;
  if (count > 0 && napi_get_reference_value(env, ctx->on_events, &fn) == napi_ok && fn) {
    napi_value recv, result;
    napi_get_global(env, &recv);
    // make_callback: runs the microtask queue afterwards, so promises
    // settled by these events resolve now (as with any libuv callback).
    napi_make_callback(env, ctx->async_ctx, recv, fn, 1, &batch, &result);
    bool pending = false;
    if (napi_is_exception_pending(env, &pending) == napi_ok && pending) {
      napi_value exc;
      napi_get_and_clear_last_exception(env, &exc);
      napi_fatal_exception(env, exc);
    }
  }
  napi_close_handle_scope(env, scope);
}

void OnPollClosed(uv_handle_t *handle) {
  auto *ctx = static_cast<ClientCtx *>(handle->data);
  if (ctx->cleanup) napi_remove_async_cleanup_hook(ctx->cleanup);
  delete ctx;
}

// Destroys the zkl client and closes the poll handle; `ctx` is freed once
// libuv has closed the handle. `from_hook`: called by the environment's
// teardown (then the cleanup hook is removed by the close callback).
void DestroyCtx(ClientCtx *ctx, bool from_hook) {
  if (ctx->destroyed) return;
  ctx->destroyed = true;
  if (ctx->box) ctx->box->ctx = nullptr;
  ctx->box = nullptr;
  zkl_client_destroy(ctx->client);
  ctx->client = nullptr;
  if (!from_hook) {
    if (ctx->on_events) napi_delete_reference(ctx->env, ctx->on_events);
    if (ctx->async_ctx) napi_async_destroy(ctx->env, ctx->async_ctx);
    if (ctx->cleanup) napi_remove_async_cleanup_hook(ctx->cleanup);
    ctx->cleanup = nullptr;
  }
  ctx->on_events = nullptr;
  ctx->async_ctx = nullptr;
  if (ctx->polling) uv_poll_stop(&ctx->poll);
  uv_close(reinterpret_cast<uv_handle_t *>(&ctx->poll), OnPollClosed);
}

// Environment teardown (process exit, worker exit): close what is left, so
// that the session ends (and its ephemeral nodes go) before the process.
void OnEnvCleanup(napi_async_cleanup_hook_handle handle, void *arg) {
  auto *ctx = static_cast<ClientCtx *>(arg);
  ctx->cleanup = handle;
  DestroyCtx(ctx, true);
}

void FinalizeBox(napi_env /*env*/, void *data, void * /*hint*/) {
  auto *box = static_cast<ClientBox *>(data);
  if (box->ctx) box->ctx->box = nullptr;
  delete box;
}

ClientCtx *GetCtx(napi_env env, napi_value v) {
  void *data = nullptr;
  if (napi_get_value_external(env, v, &data) != napi_ok || !data) {
    napi_throw_type_error(env, nullptr, "expected a client context");
    return nullptr;
  }
  return static_cast<ClientBox *>(data)->ctx;  // null once destroyed
}

// Never called: the addon pulls events (zkl_client_next_event), where log
// lines arrive as ZKL_EVENT_LOG events. Setting a log_cb is what routes log
// lines into the event queue instead of zkl's own stderr printing.
void IgnoreLog(int, const char *, const char *, void *) {}

// Reads an optional nested object `key` of `obj` (undefined/null: absent).
bool GetOptObject(napi_env env, napi_value obj, const char *key, napi_value *out, bool *present) {
  *present = false;
  if (napi_get_named_property(env, obj, key, out) != napi_ok) return false;
  if (IsType(env, *out, napi_undefined) || IsType(env, *out, napi_null)) return true;
  if (!IsType(env, *out, napi_object)) {
    std::string msg = std::string(key) + " must be an object";
    napi_throw_type_error(env, nullptr, msg.c_str());
    return false;
  }
  *present = true;
  return true;
}

// The strings behind a zkl_client_options (it keeps pointers into them).
struct ClientStrings {
  std::string servers, chroot, digest;
  std::string tls_ca, tls_cert, tls_key, tls_key_password;
  std::string sasl_mechanism, sasl_user, sasl_password, sasl_keytab, sasl_ccache,
      sasl_service, sasl_host;
  ~ClientStrings() {  // secrets are wiped, as zkl does
    for (std::string *s : {&digest, &tls_key_password, &sasl_password}) {
      volatile char *p = s->empty() ? nullptr : &(*s)[0];
      for (size_t i = 0; p && i < s->size(); ++i) p[i] = 0;
    }
  }
};

bool OptString(napi_env env, napi_value obj, const char *key, std::string *out, const char **field) {
  bool present = false;
  if (!GetOptString(env, obj, key, out, &present)) return false;
  *field = present ? out->c_str() : nullptr;
  return true;
}

// A failure with libzkl's message: {errno, message}.
napi_value Failure(napi_env env, int rc, const char *message) {
  napi_value out;
  napi_create_object(env, &out);
  napi_set_named_property(env, out, "errno", Int(env, rc));
  napi_set_named_property(env, out, "message", Str(env, message, strlen(message)));
  return out;
}

// clientNew({servers, chroot, sessionTimeout, connectTimeout, lostAfter, io,
//            acl, digestAuth, logLevel, statsInterval, tls: {...},
//            sasl: {...}}, onEvents) -> [context, handle] | {errno, message}
//            (libzkl's message: the option and the reason)
napi_value ClientNew(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!Args(env, info, argv)) return nullptr;
  if (!IsType(env, argv[0], napi_object) || !IsType(env, argv[1], napi_function)) {
    napi_throw_type_error(env, nullptr, "clientNew(options, onEvents)");
    return nullptr;
  }
  ClientStrings st;
  zkl_client_options o;
  zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  napi_value opts = argv[0], tls, sasl;
  bool has_tls = false, has_sasl = false;
  if (!OptString(env, opts, "servers", &st.servers, &o.servers) ||
      !OptString(env, opts, "chroot", &st.chroot, &o.chroot) ||
      !OptString(env, opts, "digestAuth", &st.digest, &o.digest_auth) ||
      !GetOptInt(env, opts, "sessionTimeout", &o.session_timeout_ms) ||
      !GetOptInt(env, opts, "connectTimeout", &o.connect_timeout_ms) ||
      !GetOptInt(env, opts, "lostAfter", &o.lost_after_ms) ||
      !GetOptInt(env, opts, "io", &o.io) ||
      !GetOptInt(env, opts, "acl", &o.acl) ||
      !GetOptInt(env, opts, "logLevel", &o.log_level) ||
      !GetOptInt(env, opts, "statsInterval", &o.stats_interval_ms) ||
      !GetOptObject(env, opts, "tls", &tls, &has_tls) ||
      !GetOptObject(env, opts, "sasl", &sasl, &has_sasl)) {
    return nullptr;
  }
  if (has_tls &&
      (!OptString(env, tls, "ca", &st.tls_ca, &o.tls_ca_file) ||
       !OptString(env, tls, "cert", &st.tls_cert, &o.tls_cert_file) ||
       !OptString(env, tls, "key", &st.tls_key, &o.tls_key_file) ||
       !OptString(env, tls, "keyPassword", &st.tls_key_password, &o.tls_key_password) ||
       !GetOptInt(env, tls, "insecureSkipHostnameCheck", &o.tls_insecure_skip_hostname_check))) {
    return nullptr;
  }
  if (has_sasl &&
      (!OptString(env, sasl, "mechanism", &st.sasl_mechanism, &o.sasl_mechanism) ||
       !OptString(env, sasl, "user", &st.sasl_user, &o.sasl_user) ||
       !OptString(env, sasl, "password", &st.sasl_password, &o.sasl_password) ||
       !OptString(env, sasl, "keytab", &st.sasl_keytab, &o.sasl_keytab) ||
       !OptString(env, sasl, "ccache", &st.sasl_ccache, &o.sasl_ccache) ||
       !OptString(env, sasl, "service", &st.sasl_service, &o.sasl_service) ||
       !OptString(env, sasl, "host", &st.sasl_host, &o.sasl_host))) {
    return nullptr;
  }
  o.log_cb = IgnoreLog;

  zkl_client *client = nullptr;
  char why[512] = "";
  int rc = zkl_client_create(&o, &client, why, sizeof why);
  if (rc < 0) return Failure(env, rc, why);

  auto *ctx = new ClientCtx;
  ctx->env = env;
  ctx->client = client;
  ctx->poll.data = ctx;
  uv_loop_t *loop = nullptr;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok ||
      uv_poll_init(loop, &ctx->poll, zkl_client_fd(client)) != 0) {
    zkl_client_destroy(client);
    delete ctx;
    napi_throw_error(env, "ZKL_ENAPI", "cannot watch the client's event fd");
    return nullptr;
  }
  uv_unref(reinterpret_cast<uv_handle_t *>(&ctx->poll));
  uv_poll_start(&ctx->poll, UV_READABLE, OnPoll);
  ctx->polling = true;
  napi_create_reference(env, argv[1], 1, &ctx->on_events);
  napi_value name = Str(env, "zkl", 3);
  napi_async_init(env, nullptr, name, &ctx->async_ctx);
  napi_add_async_cleanup_hook(env, OnEnvCleanup, ctx, &ctx->cleanup);

  auto *box = new ClientBox{ctx};
  ctx->box = box;
  napi_value ext, out;
  if (napi_create_external(env, box, FinalizeBox, nullptr, &ext) != napi_ok) {
    delete box;
    DestroyCtx(ctx, false);
    ThrowLastError(env);
    return nullptr;
  }
  napi_create_array_with_length(env, 2, &out);
  napi_set_element(env, out, 0, ext);
  napi_set_element(env, out, 1, HandleValue(env, client));
  return out;
}

// clientRef(ctx, bool): keep the process alive while something is pending.
napi_value ClientRef(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!Args(env, info, argv)) return nullptr;
  ClientCtx *ctx = GetCtx(env, argv[0]);
  bool on = false;
  napi_get_value_bool(env, argv[1], &on);
  if (ctx && !ctx->destroyed) {
    auto *h = reinterpret_cast<uv_handle_t *>(&ctx->poll);
    if (on) uv_ref(h); else uv_unref(h);
  }
  return Undefined(env);
}

// clientDrain(ctx) -> array of every pending event (for close).
napi_value ClientDrain(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!Args(env, info, argv)) return nullptr;
  ClientCtx *ctx = GetCtx(env, argv[0]);
  if (!ctx) {
    napi_value arr;
    napi_create_array(env, &arr);
    return arr;
  }
  uint32_t count = 0;
  return CollectEvents(env, ctx, 1 << 30, &count);
}

napi_value ClientDestroy(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!Args(env, info, argv)) return nullptr;
  ClientCtx *ctx = GetCtx(env, argv[0]);
  if (!ctx) return Int(env, ZKL_EBADHANDLE);
  DestroyCtx(ctx, false);
  return Int(env, ZKL_OK);
}

// A call on a handle alone that answers an int (lockCancel, clientState, ...).
template <typename T, int (*Fn)(T *)>
napi_value HandleCall(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  T *h;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &h)) return nullptr;
  return Int(env, Fn(h));
}

// A call on a handle alone that answers a uint64_t (session id, fencing
// token) as a BigInt, or an error code.
template <typename T, int (*Fn)(T *, uint64_t *)>
napi_value HandleU64(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  T *h;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &h)) return nullptr;
  uint64_t value = 0;
  int rc = Fn(h, &value);
  return rc < 0 ? Int(env, rc) : Big(env, value);
}

// clientSessionPassword(c) -> Buffer (16 bytes) | error code
napi_value ClientSessionPassword(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  zkl_client *c;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c)) return nullptr;
  unsigned char buf[16];
  int n = zkl_client_session_password(c, buf, sizeof buf);
  if (n < 0) return Int(env, n);
  napi_value out;
  void *data = nullptr;
  napi_create_buffer_copy(env, static_cast<size_t>(n), buf, &data, &out);
  std::memset(buf, 0, sizeof buf);
  return out;
}

napi_value ClientSessionTimeout(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  zkl_client *c;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c)) return nullptr;
  return Int(env, zkl_client_session_timeout(c));
}

// clientConnectError(h): zkl_client_wait_connected with a zero timeout
// (does not block): 0 when connected, else why the attempts failed (a TLS
// error, ...) or ZKL_ETIMEDOUT; a failed handshake is no session event.
napi_value ClientConnectError(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  zkl_client *c;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c)) return nullptr;
  return Int(env, zkl_client_wait_connected(c, 0));
}

// clientConnectDetail(h): why libzkl's attempts failed, server by server
// (zkl_client_connect_error's text: "host:port (layer): reason; ..."), ''
// when it keeps no failure.
napi_value ClientConnectDetail(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  zkl_client *c;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c)) return nullptr;
  char buf[1024] = "";
  zkl_client_connect_error(c, buf, sizeof buf);
  return Str(env, buf, strlen(buf));
}

// clientFollowEnsemble(h, on) -> rc (does not block: the read of
// /zookeeper/config is a request like any other).
napi_value ClientFollowEnsemble(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  zkl_client *c;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c)) return nullptr;
  bool on = false;
  napi_get_value_bool(env, argv[1], &on);
  return Int(env, zkl_client_follow_ensemble(c, on ? 1 : 0));
}

// A *_stats JSON document as a string, or an error code.
napi_value StatsValue(napi_env env, int rc, char *json, size_t len) {
  if (rc < 0) return Int(env, rc);
  napi_value v = Str(env, json ? json : "", json ? len : 0);
  zkl_free(json);
  return v;
}

napi_value ClientStats(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  zkl_client *c;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c)) return nullptr;
  char *json = nullptr;
  size_t len = 0;
  int rc = zkl_client_stats(c, &json, &len);
  return StatsValue(env, rc, json, len);
}

// ---------------------------------------------------------------------------
// Blocking calls on the thread pool, answered by a Promise.
// ---------------------------------------------------------------------------

struct Work {
  napi_async_work work = nullptr;
  napi_deferred deferred = nullptr;
  std::function<int()> run;                         // on a pool thread
  std::function<napi_value(napi_env, int)> result;  // on the JS thread
  int rc = 0;
};

napi_value Queue(napi_env env, std::function<int()> run,
                 std::function<napi_value(napi_env, int)> result = nullptr) {
  auto *w = new Work;
  w->run = std::move(run);
  w->result = std::move(result);
  napi_value promise;
  napi_create_promise(env, &w->deferred, &promise);
  napi_value name = Str(env, "zkl", 3);
  napi_create_async_work(
      env, nullptr, name,
      [](napi_env, void *data) {
        auto *w = static_cast<Work *>(data);
        w->rc = w->run();
      },
      [](napi_env env, napi_status status, void *data) {
        auto *w = static_cast<Work *>(data);
        napi_value v = status == napi_ok ? (w->result ? w->result(env, w->rc) : Int(env, w->rc))
                                         : Int(env, ZKL_ECANCELED);
        if (!v) v = Int(env, ZKL_ENOMEM);
        napi_resolve_deferred(env, w->deferred, v);
        napi_delete_async_work(env, w->work);
        delete w;
      },
      w, &w->work);
  napi_queue_async_work(env, w->work);
  return promise;
}

napi_value ClientClose(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  zkl_client *c;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c)) return nullptr;
  return Queue(env, [c] { return zkl_client_close(c); });
}

// clientSetServers(h, servers) -> Promise<rc>: on the thread pool, since
// zkl_client_set_servers resolves the names (a DNS query may take seconds).
// A NUL inside gives ZKL_EINVAL (the list would be truncated).
napi_value ClientSetServers(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  zkl_client *c;
  std::string servers;
  bool nul = false;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c) || !GetString(env, argv[1], &servers, &nul)) {
    return nullptr;
  }
  if (nul) return Queue(env, [] { return ZKL_EINVAL; });
  return Queue(env, [c, servers] { return zkl_client_set_servers(c, servers.c_str()); });
}

// ---------------------------------------------------------------------------
// Locks
// ---------------------------------------------------------------------------

// Reads a path argument; a NUL inside gives ZKL_EBADPATH (as any other
// malformed path does in the library).
bool GetPath(napi_env env, napi_value v, std::string *path, int *rc) {
  bool nul = false;
  if (!GetString(env, v, path, &nul)) return false;
  *rc = nul ? ZKL_EBADPATH : ZKL_OK;
  return true;
}

void *Uid(napi_env env, napi_value v) {
  int64_t uid = 0;
  napi_get_value_int64(env, v, &uid);
  return reinterpret_cast<void *>(static_cast<uintptr_t>(uid));
}

// lockNew(client, path, {kind, maxLeases, leases, maxHold, onRevoke},
//         data: Buffer|undefined, uid)
napi_value LockNew(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  zkl_client *c;
  std::string path;
  int rc;
  zkl_lock_options o;
  zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION);
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c) || !GetPath(env, argv[1], &path, &rc)) {
    return nullptr;
  }
  if (!IsType(env, argv[2], napi_object)) {
    napi_throw_type_error(env, nullptr, "lock options must be an object");
    return nullptr;
  }
  int32_t max_hold = 0;
  if (!GetOptInt(env, argv[2], "kind", &o.kind) || !GetOptInt(env, argv[2], "maxLeases", &o.max_leases) ||
      !GetOptInt(env, argv[2], "leases", &o.leases) || !GetOptInt(env, argv[2], "maxHold", &max_hold) ||
      !GetOptInt(env, argv[2], "onRevoke", &o.on_revoke)) {
    return nullptr;
  }
  o.max_hold_ms = max_hold;
  if (rc < 0) return Int(env, rc);
  bool is_buffer = false;
  napi_is_buffer(env, argv[3], &is_buffer);
  if (is_buffer) {
    void *data = nullptr;
    size_t len = 0;
    napi_get_buffer_info(env, argv[3], &data, &len);
    o.data = len ? data : nullptr;
    o.data_len = len;
  } else if (!IsType(env, argv[3], napi_undefined)) {
    napi_throw_type_error(env, nullptr, "lock data must be a Buffer");
    return nullptr;
  }
  o.user_data = Uid(env, argv[4]);
  zkl_lock *l = nullptr;
  rc = zkl_lock_new(c, path.c_str(), &o, &l);
  return rc < 0 ? Int(env, rc) : HandleValue(env, l);
}

// lockAcquireAsync(lock, owner, timeoutMs), multilockAcquireAsync(m, owner, timeoutMs)
template <typename T, int (*Fn)(T *, uint64_t, int64_t)>
napi_value AcquireAsync(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  T *h;
  uint64_t owner;
  int64_t timeout;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &h) || !GetU64(env, argv[1], &owner) ||
      !GetI64(env, argv[2], &timeout)) {
    return nullptr;
  }
  return Int(env, Fn(h, owner, timeout));
}

// lockReleaseAsync(lock, owner), multilockReleaseAsync(m, owner)
template <typename T, int (*Fn)(T *, uint64_t)>
napi_value ReleaseAsync(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  T *h;
  uint64_t owner;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &h) || !GetU64(env, argv[1], &owner)) {
    return nullptr;
  }
  return Int(env, Fn(h, owner));
}

// lockValidFor(lock) -> ms (>= 0) | error code other than ENOTHELD
template <typename T, int (*Fn)(T *, int64_t *)>
napi_value ValidFor(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  T *h;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &h)) return nullptr;
  int64_t ms = 0;
  int rc = Fn(h, &ms);
  if (rc == ZKL_ENOTHELD) return Int(env, 0);
  return rc < 0 ? Int(env, rc) : Int(env, ms);
}

template <typename T, int (*Fn)(T *, char **, size_t *)>
napi_value HandleStats(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  T *h;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &h)) return nullptr;
  char *json = nullptr;
  size_t len = 0;
  int rc = Fn(h, &json, &len);
  return StatsValue(env, rc, json, len);
}

// ---------------------------------------------------------------------------
// Multi-locks (several lock handles of one client, all or none)
// ---------------------------------------------------------------------------

// multilockNew(client, [lock handles], uid) -> handle | error code. An empty
// array gives ZKL_EINVAL (from the library).
napi_value MultilockNew(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  zkl_client *c;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c)) return nullptr;
  bool is_array = false;
  napi_is_array(env, argv[1], &is_array);
  if (!is_array) {
    napi_throw_type_error(env, nullptr, "multi-lock members must be an array");
    return nullptr;
  }
  uint32_t n = 0;
  napi_get_array_length(env, argv[1], &n);
  std::vector<zkl_lock *> members(n);
  for (uint32_t i = 0; i < n; ++i) {
    napi_value v;
    if (napi_get_element(env, argv[1], i, &v) != napi_ok || !GetHandle(env, v, &members[i])) {
      return nullptr;
    }
  }
  zkl_multilock_options o;
  zkl_multilock_options_init(&o, ZKL_MULTILOCK_OPTIONS_VERSION);
  o.user_data = Uid(env, argv[2]);
  zkl_multilock *m = nullptr;
  int rc = zkl_multilock_new(c, n ? members.data() : nullptr, n, &o, &m);
  return rc < 0 ? Int(env, rc) : HandleValue(env, m);
}

// multilockFencingToken(m, path) -> BigInt | error code (ENOTFOUND: no
// member on that path; ENOTHELD)
napi_value MultilockFencingToken(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  zkl_multilock *m;
  std::string path;
  int rc;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &m) || !GetPath(env, argv[1], &path, &rc)) {
    return nullptr;
  }
  if (rc < 0) return Int(env, ZKL_ENOTFOUND);  // a path with NUL is no member's
  uint64_t token = 0;
  rc = zkl_multilock_fencing_token(m, path.c_str(), &token);
  return rc < 0 ? Int(env, rc) : Big(env, token);
}

// ---------------------------------------------------------------------------
// Elections and observers
// ---------------------------------------------------------------------------

// electionNew(client, path, kind, id, uid, onRevoke)
napi_value ElectionNew(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  zkl_client *c;
  std::string path, id;
  int rc;
  bool id_nul = false;
  zkl_election_options o;
  zkl_election_options_init(&o, ZKL_ELECTION_OPTIONS_VERSION);
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c) || !GetPath(env, argv[1], &path, &rc) ||
      !GetI32(env, argv[2], &o.kind) || !GetString(env, argv[3], &id, &id_nul)) {
    return nullptr;
  }
  if (rc < 0) return Int(env, rc);
  if (id_nul) return Int(env, ZKL_EINVAL);
  o.id = id.c_str();
  o.user_data = Uid(env, argv[4]);
  if (!IsType(env, argv[5], napi_undefined) && !GetI32(env, argv[5], &o.on_revoke)) return nullptr;
  zkl_election *e = nullptr;
  rc = zkl_election_new(c, path.c_str(), &o, &e);
  return rc < 0 ? Int(env, rc) : HandleValue(env, e);
}

template <int (*Fn)(zkl_election *)>
napi_value ElectionCall(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  zkl_election *e;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &e)) return nullptr;
  return Int(env, Fn(e));
}

napi_value ElectionAcquireAsync(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  zkl_election *e;
  int64_t timeout;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &e) || !GetI64(env, argv[1], &timeout)) {
    return nullptr;
  }
  return Int(env, zkl_election_acquire_async(e, timeout));
}

// Resigns (blocks for the node's deletion): on the thread pool.
napi_value ElectionRelease(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  zkl_election *e;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &e)) return nullptr;
  return Queue(env, [e] { return zkl_election_release(e); });
}

napi_value ElectionFencingToken(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  zkl_election *e;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &e)) return nullptr;
  uint64_t token = 0;
  int rc = zkl_election_fencing_token(e, &token);
  return rc < 0 ? Int(env, rc) : Big(env, token);
}

// observerNew(client, path, kind, uid)
napi_value ObserverNew(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  zkl_client *c;
  std::string path;
  int rc;
  int32_t kind;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c) || !GetPath(env, argv[1], &path, &rc) ||
      !GetI32(env, argv[2], &kind)) {
    return nullptr;
  }
  if (rc < 0) return Int(env, rc);
  zkl_observer_options opts;
  zkl_observer_options_init(&opts, ZKL_OBSERVER_OPTIONS_VERSION);
  opts.kind = kind;
  opts.user_data = Uid(env, argv[3]);
  zkl_observer *o = nullptr;
  rc = zkl_observer_new(c, path.c_str(), &opts, &o);
  return rc < 0 ? Int(env, rc) : HandleValue(env, o);
}

// observerLeader(o) -> string | null (no leader) | error code
napi_value ObserverLeader(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  zkl_observer *o;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &o)) return nullptr;
  std::vector<char> buf(256);
  for (;;) {
    int n = zkl_observer_leader(o, buf.data(), buf.size());
    if (n == ZKL_ENOTFOUND) return Null(env);
    if (n < 0) return Int(env, n);
    if (static_cast<size_t>(n) < buf.size()) return Str(env, buf.data(), static_cast<size_t>(n));
    buf.resize(static_cast<size_t>(n) + 1);  // the leader changed size: read again
  }
}

// observerTerm(o) -> BigInt | null (no leader) | error code
napi_value ObserverTerm(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  zkl_observer *o;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &o)) return nullptr;
  uint64_t term = 0;
  int rc = zkl_observer_term(o, &term);
  if (rc == ZKL_ENOTFOUND) return Null(env);
  return rc < 0 ? Int(env, rc) : Big(env, term);
}

napi_value ObserverDestroy(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  zkl_observer *o;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &o)) return nullptr;
  return Int(env, zkl_observer_destroy(o));
}

// ---------------------------------------------------------------------------
// Inspection
// ---------------------------------------------------------------------------

// Reads (lockKind, electionKind, timeoutMs) into inspect options.
bool GetInspectOptions(napi_env env, napi_value *argv, zkl_inspect_options *o) {
  zkl_inspect_options_init(o, ZKL_INSPECT_OPTIONS_VERSION);
  return GetI32(env, argv[0], &o->lock_kind) && GetI32(env, argv[1], &o->election_kind) &&
         GetI64(env, argv[2], &o->timeout_ms);
}

// inspect(client, path, lockKind, electionKind, timeoutMs)
//   -> Promise<array | error code>
napi_value Inspect(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  zkl_client *c;
  std::string path;
  int rc;
  zkl_inspect_options io;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c) || !GetPath(env, argv[1], &path, &rc) ||
      !GetInspectOptions(env, argv + 2, &io)) {
    return nullptr;
  }
  if (rc < 0) {
    return Queue(env, [rc] { return rc; });
  }
  auto holder = std::make_shared<zkl_participants *>(nullptr);
  return Queue(
      env, [c, path, io, holder] { return zkl_inspect(c, path.c_str(), &io, holder.get()); },
      [holder](napi_env env, int rc) -> napi_value {
        zkl_participants *p = *holder;
        if (rc < 0 || !p) return Int(env, rc < 0 ? rc : ZKL_EINTERNAL);
        napi_value arr;
        napi_create_array(env, &arr);
        int n = zkl_participants_count(p);
        for (int i = 0; i < n; ++i) {
          napi_value o;
          napi_create_object(env, &o);
          const char *name = nullptr, *data = nullptr;
          size_t len = 0;
          uint64_t token = 0, session = 0;
          int64_t ctime = 0;
          zkl_participants_name(p, i, &name);
          zkl_participants_data(p, i, &data, &len);
          zkl_participants_fencing_token(p, i, &token);
          zkl_participants_session_id(p, i, &session);
          zkl_participants_ctime_ms(p, i, &ctime);
          napi_value holder_v;
          napi_get_boolean(env, zkl_participants_is_holder(p, i) == 1, &holder_v);
          napi_set_named_property(env, o, "name", Str(env, name ? name : "", NAPI_AUTO_LENGTH));
          napi_set_named_property(env, o, "isHolder", holder_v);
          napi_set_named_property(env, o, "fencingToken", Big(env, token));
          napi_set_named_property(env, o, "sessionId", Big(env, session));
          napi_set_named_property(env, o, "ctime", Int(env, ctime));
          napi_set_named_property(env, o, "data", Str(env, data ? data : "", data ? len : 0));
          napi_set_named_property(env, o, "leases", Int(env, zkl_participants_leases(p, i)));
          napi_set_element(env, arr, static_cast<uint32_t>(i), o);
        }
        zkl_participants_free(p);
        return arr;
      });
}

// revoke(client, path, lockKind, electionKind, timeoutMs, holder|null)
//   -> Promise<number asked | error code>
napi_value Revoke(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  zkl_client *c;
  std::string path, holder;
  int rc;
  zkl_inspect_options io;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c) || !GetPath(env, argv[1], &path, &rc) ||
      !GetInspectOptions(env, argv + 2, &io)) {
    return nullptr;
  }
  if (rc < 0) return Queue(env, [rc] { return rc; });
  bool has_holder = !IsType(env, argv[5], napi_null) && !IsType(env, argv[5], napi_undefined);
  if (has_holder && !GetString(env, argv[5], &holder)) return nullptr;
  return Queue(env, [c, path, io, holder, has_holder] {
    return zkl_revoke(c, path.c_str(), &io, has_holder ? holder.c_str() : nullptr);
  });
}

// fenceCheck(client, path, lockKind, electionKind, timeoutMs, token)
//   -> Promise<0 | error code (ZKL_ESTALE: not a current holder's token)>
napi_value FenceCheck(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  zkl_client *c;
  std::string path;
  int rc;
  zkl_inspect_options io;
  uint64_t token = 0;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &c) || !GetPath(env, argv[1], &path, &rc) ||
      !GetInspectOptions(env, argv + 2, &io) || !GetU64(env, argv[5], &token)) {
    return nullptr;
  }
  if (rc < 0) return Queue(env, [rc] { return rc; });
  return Queue(env, [c, path, io, token] { return zkl_fence_check(c, path.c_str(), &io, token); });
}

// ---------------------------------------------------------------------------
// Guarded writes
// ---------------------------------------------------------------------------

void FinalizeOps(napi_env /*env*/, void *data, void * /*hint*/) {
  zkl_ops_free(static_cast<zkl_ops *>(data));
}

// opsNew() -> external (freed by the garbage collector)
napi_value OpsNew(napi_env env, napi_callback_info /*info*/) {
  zkl_ops *ops = nullptr;
  int rc = zkl_ops_new(&ops);
  if (rc < 0) return Int(env, rc);
  napi_value ext;
  if (napi_create_external(env, ops, FinalizeOps, nullptr, &ext) != napi_ok) {
    zkl_ops_free(ops);
    ThrowLastError(env);
    return nullptr;
  }
  return ext;
}

bool GetOps(napi_env env, napi_value v, zkl_ops **out) {
  void *data = nullptr;
  if (!IsType(env, v, napi_external) || napi_get_value_external(env, v, &data) != napi_ok || !data) {
    napi_throw_type_error(env, nullptr, "expected an operations list");
    return false;
  }
  *out = static_cast<zkl_ops *>(data);
  return true;
}

// Node data: a Buffer (undefined: none). Its bytes are valid during the call.
bool GetData(napi_env env, napi_value v, const void **data, size_t *len) {
  *data = nullptr;
  *len = 0;
  if (IsType(env, v, napi_undefined)) return true;
  bool is_buffer = false;
  napi_is_buffer(env, v, &is_buffer);
  if (!is_buffer) {
    napi_throw_type_error(env, nullptr, "data must be a Buffer");
    return false;
  }
  void *bytes = nullptr;
  napi_get_buffer_info(env, v, &bytes, len);
  *data = *len ? bytes : nullptr;
  return true;
}

// opsCreate(ops, path, data, flags), opsSet(ops, path, data, version) -> rc
template <int (*Fn)(zkl_ops *, const char *, const void *, size_t, int32_t)>
napi_value OpsWithData(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  zkl_ops *ops;
  std::string path;
  int rc;
  const void *data;
  size_t len;
  int32_t arg;
  if (!Args(env, info, argv) || !GetOps(env, argv[0], &ops) || !GetPath(env, argv[1], &path, &rc) ||
      !GetData(env, argv[2], &data, &len) || !GetI32(env, argv[3], &arg)) {
    return nullptr;
  }
  if (rc < 0) return Int(env, rc);
  return Int(env, Fn(ops, path.c_str(), data, len, arg));
}

// opsDelete(ops, path, version), opsCheck(ops, path, version) -> rc
template <int (*Fn)(zkl_ops *, const char *, int32_t)>
napi_value OpsNoData(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  zkl_ops *ops;
  std::string path;
  int rc;
  int32_t version;
  if (!Args(env, info, argv) || !GetOps(env, argv[0], &ops) || !GetPath(env, argv[1], &path, &rc) ||
      !GetI32(env, argv[2], &version)) {
    return nullptr;
  }
  if (rc < 0) return Int(env, rc);
  return Int(env, Fn(ops, path.c_str(), version));
}

// lockWriteAsync(lock, owner, ops), multilockWriteAsync(m, owner, ops)
//   -> request id (> 0) | error code (nothing sent)
template <typename T, int (*Fn)(T *, uint64_t, const zkl_ops *)>
napi_value WriteAsync(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  T *h;
  uint64_t owner;
  zkl_ops *ops;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &h) || !GetU64(env, argv[1], &owner) ||
      !GetOps(env, argv[2], &ops)) {
    return nullptr;
  }
  return Int(env, Fn(h, owner, ops));
}

// electionWriteAsync(election, ops) -> request id | error code
napi_value ElectionWriteAsync(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  zkl_election *e;
  zkl_ops *ops;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &e) || !GetOps(env, argv[1], &ops)) {
    return nullptr;
  }
  return Int(env, zkl_election_write_async(e, ops));
}

// electionProclaim(election, data: Buffer) -> Promise<rc>: one round trip,
// on the thread pool (the bytes are copied first).
napi_value ElectionProclaim(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  zkl_election *e;
  const void *data;
  size_t len;
  if (!Args(env, info, argv) || !GetHandle(env, argv[0], &e) || !GetData(env, argv[1], &data, &len)) {
    return nullptr;
  }
  std::string bytes(data ? static_cast<const char *>(data) : "", data ? len : 0);
  return Queue(env, [e, bytes] { return zkl_election_proclaim(e, bytes.data(), bytes.size()); });
}

// ---------------------------------------------------------------------------
// Misc
// ---------------------------------------------------------------------------

napi_value Strerror(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int32_t code;
  if (!Args(env, info, argv) || !GetI32(env, argv[0], &code)) return nullptr;
  return Str(env, zkl_strerror(code), NAPI_AUTO_LENGTH);
}

napi_value Version(napi_env env, napi_callback_info) {
  return Str(env, zkl_version_string(), NAPI_AUTO_LENGTH);
}

napi_value Init(napi_env env, napi_value exports) {
  struct Fn {
    const char *name;
    napi_callback cb;
  };
  const Fn fns[] = {
      {"version", Version},
      {"strerror", Strerror},
      {"clientNew", ClientNew},
      {"clientRef", ClientRef},
      {"clientDrain", ClientDrain},
      {"clientDestroy", ClientDestroy},
      {"clientClose", ClientClose},
      {"clientState", HandleCall<zkl_client, zkl_client_state>},
      {"clientSessionId", HandleU64<zkl_client, zkl_client_session_id>},
      {"clientSessionTimeout", ClientSessionTimeout},
      {"clientSessionPassword", ClientSessionPassword},
      {"clientStats", ClientStats},
      {"clientConnectError", ClientConnectError},
      {"clientConnectDetail", ClientConnectDetail},
      {"clientSetServers", ClientSetServers},
      {"clientFollowEnsemble", ClientFollowEnsemble},
      {"lockNew", LockNew},
      {"lockAcquireAsync", AcquireAsync<zkl_lock, zkl_lock_acquire_async>},
      {"lockReleaseAsync", ReleaseAsync<zkl_lock, zkl_lock_release_async>},
      {"lockCancel", HandleCall<zkl_lock, zkl_lock_cancel>},
      {"lockIsHeld", HandleCall<zkl_lock, zkl_lock_is_held>},
      {"lockHoldCount", HandleCall<zkl_lock, zkl_lock_hold_count>},
      {"lockDestroy", HandleCall<zkl_lock, zkl_lock_destroy>},
      {"lockFencingToken", HandleU64<zkl_lock, zkl_lock_fencing_token>},
      {"lockValidFor", ValidFor<zkl_lock, zkl_lock_valid_for>},
      {"lockStats", HandleStats<zkl_lock, zkl_lock_stats>},
      {"multilockNew", MultilockNew},
      {"multilockAcquireAsync", AcquireAsync<zkl_multilock, zkl_multilock_acquire_async>},
      {"multilockReleaseAsync", ReleaseAsync<zkl_multilock, zkl_multilock_release_async>},
      {"multilockCancel", HandleCall<zkl_multilock, zkl_multilock_cancel>},
      {"multilockIsHeld", HandleCall<zkl_multilock, zkl_multilock_is_held>},
      {"multilockCount", HandleCall<zkl_multilock, zkl_multilock_count>},
      {"multilockDestroy", HandleCall<zkl_multilock, zkl_multilock_destroy>},
      {"multilockFencingToken", MultilockFencingToken},
      {"multilockValidFor", ValidFor<zkl_multilock, zkl_multilock_valid_for>},
      {"electionNew", ElectionNew},
      {"electionAcquireAsync", ElectionAcquireAsync},
      {"electionCancel", ElectionCall<zkl_election_cancel>},
      {"electionValidFor", ValidFor<zkl_election, zkl_election_valid_for>},
      {"electionStats", HandleStats<zkl_election, zkl_election_stats>},
      {"electionIsLeader", ElectionCall<zkl_election_is_leader>},
      {"electionDestroy", ElectionCall<zkl_election_destroy>},
      {"electionRelease", ElectionRelease},
      {"electionFencingToken", ElectionFencingToken},
      {"observerNew", ObserverNew},
      {"observerLeader", ObserverLeader},
      {"observerTerm", ObserverTerm},
      {"observerDestroy", ObserverDestroy},
      {"inspect", Inspect},
      {"revoke", Revoke},
      {"fenceCheck", FenceCheck},
      {"opsNew", OpsNew},
      {"opsCreate", OpsWithData<zkl_ops_create>},
      {"opsSet", OpsWithData<zkl_ops_set>},
      {"opsDelete", OpsNoData<zkl_ops_delete>},
      {"opsCheck", OpsNoData<zkl_ops_check>},
      {"lockWriteAsync", WriteAsync<zkl_lock, zkl_lock_write_async>},
      {"multilockWriteAsync", WriteAsync<zkl_multilock, zkl_multilock_write_async>},
      {"electionWriteAsync", ElectionWriteAsync},
      {"electionProclaim", ElectionProclaim},
  };
  for (const Fn &f : fns) {
    napi_value fn;
    CHECK_NAPI(env, napi_create_function(env, f.name, NAPI_AUTO_LENGTH, f.cb, nullptr, &fn));
    CHECK_NAPI(env, napi_set_named_property(env, exports, f.name, fn));
  }
  return exports;
}

}  // namespace

NAPI_MODULE(zkl, Init)
