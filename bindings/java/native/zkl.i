/*
 * SWIG interface for the Java binding: JNI glue generated from zkl.h.
 *
 * The generated classes (ZklNative, ZklNativeJNI, ZklNativeConstants) are
 * package-private in io.zkl; the public API is the hand-written layer there.
 *
 * Conventions of this mapping:
 *  - Opaque handles (zkl_client *, zkl_lock *, ...) are Java longs; the C
 *    library checks every handle, so a stale value gives ZKL_EBADHANDLE.
 *  - Out-parameters (T **out, uint64_t *out, ...) are Java arrays of length
 *    >= 1 that receive the value in element 0.
 *  - uint64_t is a Java long (same 64 bits; owner and fencing tokens).
 *  - Strings go in as UTF-8 byte arrays (not JNI's modified UTF-8); the Java
 *    layer encodes them and rejects embedded NULs itself.
 *  - Callbacks: every handle made by the zklj_* helpers below gets the C
 *    trampolines zklj_event_cb / zklj_log_cb, which call the static Java
 *    methods io.zkl.Dispatch.onEvent / onLog. They run only inside
 *    zkl_client_dispatch, which the binding calls on its one dispatcher
 *    thread per client (a Java thread: GetEnv finds it attached). The
 *    options structs are filled by the zklj_* helpers (the C side owns
 *    their memory); the pull form (zkl_client_next_event) is not wrapped.
 */
%module(jniclassname="ZklNativeJNI") ZklNative

%pragma(java) moduleclassmodifiers="final class"
%pragma(java) jniclassclassmodifiers="final class"
%pragma(java) jniclasscode=%{
  static {
    NativeLoader.load();
  }
%}
%javaconst(1);

%{
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zkl.h>
%}

/* ---- integers ---------------------------------------------------------- */
%apply long long { uint64_t, int64_t };
%apply int { int32_t };
%apply long long { uint32_t };

/* ---- opaque handles as jlong ------------------------------------------- */
%define ZKL_HANDLE(T)
%typemap(jni) T *, const T * "jlong"
%typemap(jtype) T *, const T * "long"
%typemap(jstype) T *, const T * "long"
%typemap(javain) T *, const T * "$javainput"
%typemap(javaout) T *, const T * { return $jnicall; }
%typemap(in) T *, const T * %{ $1 = ($1_ltype)(intptr_t)$input; %}
%typemap(out) T *, const T * %{ $result = (jlong)(intptr_t)$1; %}

%typemap(jni) T **out "jlongArray"
%typemap(jtype) T **out "long[]"
%typemap(jstype) T **out "long[]"
%typemap(javain) T **out "$javainput"
%typemap(in) T **out (T *tmp = NULL) %{
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "out array of length >= 1 required");
    return $null;
  }
  $1 = &tmp;
%}
%typemap(argout) T **out %{
  { jlong v = (jlong)(intptr_t)tmp$argnum; (*jenv)->SetLongArrayRegion(jenv, $input, 0, 1, &v); }
%}
%enddef

ZKL_HANDLE(zkl_client)
ZKL_HANDLE(zkl_lock)
ZKL_HANDLE(zkl_election)
ZKL_HANDLE(zkl_observer)
ZKL_HANDLE(zkl_multilock)
ZKL_HANDLE(zkl_event)
ZKL_HANDLE(zkl_participants)
ZKL_HANDLE(zkl_ops)

/* ---- scalar out-parameters as long[] ----------------------------------- */
%define ZKL_LONG_OUT(CTYPE)
%typemap(jni) CTYPE *out "jlongArray"
%typemap(jtype) CTYPE *out "long[]"
%typemap(jstype) CTYPE *out "long[]"
%typemap(javain) CTYPE *out "$javainput"
%typemap(in) CTYPE *out (CTYPE tmp = 0) %{
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "out array of length >= 1 required");
    return $null;
  }
  $1 = &tmp;
%}
%typemap(argout) CTYPE *out %{
  { jlong v = (jlong)tmp$argnum; (*jenv)->SetLongArrayRegion(jenv, $input, 0, 1, &v); }
%}
%enddef
ZKL_LONG_OUT(uint64_t)
ZKL_LONG_OUT(int64_t)
ZKL_LONG_OUT(int32_t)

/* valid_for: int64_t *ms, same mapping. */
%typemap(jni) int64_t *ms "jlongArray"
%typemap(jtype) int64_t *ms "long[]"
%typemap(jstype) int64_t *ms "long[]"
%typemap(javain) int64_t *ms "$javainput"
%typemap(in) int64_t *ms (int64_t tmp = 0) %{
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "out array of length >= 1 required");
    return $null;
  }
  $1 = &tmp;
%}
%typemap(argout) int64_t *ms %{
  { jlong v = (jlong)tmp$argnum; (*jenv)->SetLongArrayRegion(jenv, $input, 0, 1, &v); }
%}

/* Statistics JSON (malloc'd by zkl): copied out into element 0 of a
 * byte[][] and freed with zkl_free. */
%typemap(jni) (char **json, size_t *len) "jobjectArray"
%typemap(jtype) (char **json, size_t *len) "byte[][]"
%typemap(jstype) (char **json, size_t *len) "byte[][]"
%typemap(javain) (char **json, size_t *len) "$javainput"
%typemap(in) (char **json, size_t *len) (char *tjson = NULL, size_t tlen = 0) %{
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "out array of length >= 1 required");
    return $null;
  }
  $1 = &tjson;
  $2 = &tlen;
%}
%typemap(argout) (char **json, size_t *len) %{
  if (result == 0 && tjson$argnum) {
    jbyteArray arr = (*jenv)->NewByteArray(jenv, (jsize)tlen$argnum);
    if (arr) {
      (*jenv)->SetByteArrayRegion(jenv, arr, 0, (jsize)tlen$argnum, (const jbyte *)tjson$argnum);
      (*jenv)->SetObjectArrayElement(jenv, $input, 0, arr);
      (*jenv)->DeleteLocalRef(jenv, arr);
    }
  }
  zkl_free(tjson$argnum);
%}


/* Multi-lock members: long[] of lock handles. */
%typemap(jni) (const long long *members, int32_t n) "jlongArray"
%typemap(jtype) (const long long *members, int32_t n) "long[]"
%typemap(jstype) (const long long *members, int32_t n) "long[]"
%typemap(javain) (const long long *members, int32_t n) "$javainput"
%typemap(in) (const long long *members, int32_t n) %{
  if (!$input) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "members required");
    return $null;
  }
  $2 = (int32_t)(*jenv)->GetArrayLength(jenv, $input);
  $1 = ($1_ltype)(*jenv)->GetLongArrayElements(jenv, $input, NULL);
%}
%typemap(freearg) (const long long *members, int32_t n) %{
  if ($1) (*jenv)->ReleaseLongArrayElements(jenv, $input, (jlong *)$1, JNI_ABORT);
%}

/* The JNIEnv of the calling Java thread, for zklj_init. */
%typemap(in, numinputs=0) JNIEnv *jenv_here %{ $1 = jenv; %}

/* user_data: an opaque id chosen by the Java layer, carried as a pointer. */
%typemap(jni) void *user_data "jlong"
%typemap(jtype) void *user_data "long"
%typemap(jstype) void *user_data "long"
%typemap(javain) void *user_data "$javainput"
%typemap(in) void *user_data %{ $1 = (void *)(intptr_t)$input; %}

%typemap(jni) void **out "jlongArray"
%typemap(jtype) void **out "long[]"
%typemap(jstype) void **out "long[]"
%typemap(javain) void **out "$javainput"
%typemap(in) void **out (void *tmp = NULL) %{
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "out array of length >= 1 required");
    return $null;
  }
  $1 = &tmp;
%}
%typemap(argout) void **out %{
  { jlong v = (jlong)(intptr_t)tmp$argnum; (*jenv)->SetLongArrayRegion(jenv, $input, 0, 1, &v); }
%}


/* ---- strings in: NUL-terminated UTF-8 byte[] (null allowed) ------------- */
%typemap(jni) const char * "jbyteArray"
%typemap(jtype) const char * "byte[]"
%typemap(jstype) const char * "byte[]"
%typemap(javain) const char * "$javainput"
%typemap(in) const char * %{
  $1 = NULL;
  if ($input) {
    jsize n = (*jenv)->GetArrayLength(jenv, $input);
    char *s = (char *)malloc((size_t)n + 1);
    if (!s) {
      SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "zkl: out of memory");
      return $null;
    }
    (*jenv)->GetByteArrayRegion(jenv, $input, 0, n, (jbyte *)s);
    s[n] = '\0';
    $1 = s;
  }
%}
%typemap(freearg) const char * %{ free((char *)$1); %}
/* Static strings out (zkl_strerror, zkl_version_string): ASCII. */
%typemap(jni) const char *zkl_strerror, const char *zkl_version_string "jstring"
%typemap(jtype) const char *zkl_strerror, const char *zkl_version_string "String"
%typemap(jstype) const char *zkl_strerror, const char *zkl_version_string "String"
%typemap(javaout) const char *zkl_strerror, const char *zkl_version_string { return $jnicall; }
%typemap(out) const char *zkl_strerror, const char *zkl_version_string %{
  $result = $1 ? (*jenv)->NewStringUTF(jenv, $1) : NULL;
%}

/* ---- byte buffers ------------------------------------------------------ */
/* In-only data (node data): byte[] (null = none). */
%typemap(jni) (const void *data, size_t data_len) "jbyteArray"
%typemap(jtype) (const void *data, size_t data_len) "byte[]"
%typemap(jstype) (const void *data, size_t data_len) "byte[]"
%typemap(javain) (const void *data, size_t data_len) "$javainput"
%typemap(in) (const void *data, size_t data_len) %{
  $1 = NULL;
  $2 = 0;
  if ($input) {
    $2 = (size_t)(*jenv)->GetArrayLength(jenv, $input);
    $1 = (*jenv)->GetByteArrayElements(jenv, $input, NULL);
  }
%}
%typemap(freearg) (const void *data, size_t data_len) %{
  if ($input && $1) (*jenv)->ReleaseByteArrayElements(jenv, $input, (jbyte *)$1, JNI_ABORT);
%}

/* The same for (const void *data, size_t len): guarded-write operations,
 * the leader's proclaim. */
%typemap(jni) (const void *data, size_t len) "jbyteArray"
%typemap(jtype) (const void *data, size_t len) "byte[]"
%typemap(jstype) (const void *data, size_t len) "byte[]"
%typemap(javain) (const void *data, size_t len) "$javainput"
%typemap(in) (const void *data, size_t len) %{
  $1 = NULL;
  $2 = 0;
  if ($input) {
    $2 = (size_t)(*jenv)->GetArrayLength(jenv, $input);
    $1 = (*jenv)->GetByteArrayElements(jenv, $input, NULL);
  }
%}
%typemap(freearg) (const void *data, size_t len) %{
  if ($input && $1) (*jenv)->ReleaseByteArrayElements(jenv, $input, (jbyte *)$1, JNI_ABORT);
%}

/* Caller buffers filled by C (session password, observer leader, connect
 * error, the message of zklj_client_new). */
%define ZKL_BUF_OUT(PTYPE)
%typemap(jni) (PTYPE buf, size_t len) "jbyteArray"
%typemap(jtype) (PTYPE buf, size_t len) "byte[]"
%typemap(jstype) (PTYPE buf, size_t len) "byte[]"
%typemap(javain) (PTYPE buf, size_t len) "$javainput"
%typemap(in) (PTYPE buf, size_t len) %{
  $1 = NULL;
  $2 = 0;
  if ($input) {
    $2 = (size_t)(*jenv)->GetArrayLength(jenv, $input);
    $1 = (PTYPE)(*jenv)->GetByteArrayElements(jenv, $input, NULL);
  }
%}
%typemap(freearg) (PTYPE buf, size_t len) %{
  if ($input && $1) (*jenv)->ReleaseByteArrayElements(jenv, $input, (jbyte *)$1, 0);
%}
%enddef
ZKL_BUF_OUT(void *)
ZKL_BUF_OUT(char *)

/* Data owned by C, copied out into element 0 of a byte[][]. */
%typemap(jni) (const char **data, size_t *len) "jobjectArray"
%typemap(jtype) (const char **data, size_t *len) "byte[][]"
%typemap(jstype) (const char **data, size_t *len) "byte[][]"
%typemap(javain) (const char **data, size_t *len) "$javainput"
%typemap(in) (const char **data, size_t *len) (const char *tdata = NULL, size_t tlen = 0) %{
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "out array of length >= 1 required");
    return $null;
  }
  $1 = ($1_ltype)&tdata;
  $2 = &tlen;
%}
%typemap(argout) (const char **data, size_t *len) %{
  if (result == 0 && tdata$argnum) {
    jbyteArray arr = (*jenv)->NewByteArray(jenv, (jsize)tlen$argnum);
    if (!arr) return $null;
    (*jenv)->SetByteArrayRegion(jenv, arr, 0, (jsize)tlen$argnum, (const jbyte *)tdata$argnum);
    (*jenv)->SetObjectArrayElement(jenv, $input, 0, arr);
    (*jenv)->DeleteLocalRef(jenv, arr);
  }
%}

/* A NUL-terminated C string owned by C, copied out as byte[] (participant
 * names). */
%typemap(jni) const char **out "jobjectArray"
%typemap(jtype) const char **out "byte[][]"
%typemap(jstype) const char **out "byte[][]"
%typemap(javain) const char **out "$javainput"
%typemap(in) const char **out (const char *tmp = NULL) %{
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "out array of length >= 1 required");
    return $null;
  }
  $1 = ($1_ltype)&tmp;
%}
%typemap(argout) const char **out %{
  if (result == 0 && tmp$argnum) {
    jsize n = (jsize)strlen(tmp$argnum);
    jbyteArray arr = (*jenv)->NewByteArray(jenv, n);
    if (!arr) return $null;
    (*jenv)->SetByteArrayRegion(jenv, arr, 0, n, (const jbyte *)tmp$argnum);
    (*jenv)->SetObjectArrayElement(jenv, $input, 0, arr);
    (*jenv)->DeleteLocalRef(jenv, arr);
  }
%}

/* ---- what is not wrapped ------------------------------------------------ */
/* Callbacks are the C trampolines below; the pull form is not used. */
%ignore zkl_event_cb;
%ignore zkl_log_cb;
%ignore zkl_client_next_event;
%ignore zkl_event_log;
%ignore zkl_free;
/* Options structs: filled by the zklj_* helpers below. */
%ignore zkl_client_options;
%ignore zkl_lock_options;
%ignore zkl_multilock_options;
%ignore zkl_election_options;
%ignore zkl_observer_options;
%ignore zkl_inspect_options;
%ignore zkl_client_options_init;
%ignore zkl_lock_options_init;
%ignore zkl_multilock_options_init;
%ignore zkl_election_options_init;
%ignore zkl_observer_options_init;
%ignore zkl_inspect_options_init;
%ignore zkl_client_new;
%ignore zkl_client_create;
%ignore zkl_client_options_check;
%ignore zkl_lock_new;
%ignore zkl_multilock_new;
%ignore zkl_election_new;
%ignore zkl_observer_new;
%ignore zkl_inspect;
%ignore zkl_revoke;
%ignore zkl_fence_check;
/* A WRITTEN event's results reach Java through the trampoline (onWritten). */
%ignore zkl_event_ops;
/* Macros that are not constants. */
%ignore ZKL_API;
%ignore ZKL_H;

#define ZKL_API
%include <zkl.h>

/* ---- callbacks: C trampolines into io.zkl.Dispatch ---------------------- */
%{
static JavaVM *zklj_vm;
static jclass zklj_dispatch_cls;
static jmethodID zklj_on_event;
static jmethodID zklj_on_log;
static jmethodID zklj_on_written;
static jclass zklj_bytes_cls;

static JNIEnv *zklj_env(void) {
  JNIEnv *env = NULL;
  if (!zklj_vm || (*zklj_vm)->GetEnv(zklj_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK) return NULL;
  return env;
}

static jbyteArray zklj_bytes(JNIEnv *env, const char *p, size_t n) {
  jbyteArray a;
  if (!p) return NULL;
  a = (*env)->NewByteArray(env, (jsize)n);
  if (a) (*env)->SetByteArrayRegion(env, a, 0, (jsize)n, (const jbyte *)p);
  return a;
}

static void zklj_check(JNIEnv *env) {
  /* A Java exception must not unwind through zkl: report and clear it. */
  if ((*env)->ExceptionCheck(env)) {
    (*env)->ExceptionDescribe(env);
    (*env)->ExceptionClear(env);
  }
}

/* A WRITTEN event: its request id and the write's results (valid only
 * during the callback) are copied into Java arrays. */
static void zklj_written(JNIEnv *env, const zkl_event *ev, void *user_data, uint64_t owner,
                         uint64_t token, uint64_t rid) {
  const zkl_ops *ops = NULL;
  int n = 0, i, failed = -1;
  jobjectArray paths;
  jintArray versions;
  zkl_event_ops(ev, &ops);
  if (ops) {
    n = zkl_ops_count(ops);
    if (n < 0) n = 0;
    failed = zkl_ops_failed(ops);
  }
  paths = (*env)->NewObjectArray(env, (jsize)n, zklj_bytes_cls, NULL);
  versions = (*env)->NewIntArray(env, (jsize)n);
  if (!paths || !versions) {
    zklj_check(env);
    return;
  }
  for (i = 0; i < n; i++) {
    int32_t v = -1;
    int len = zkl_ops_path(ops, (size_t)i, NULL, 0);
    if (len >= 0) {
      char *buf = (char *)malloc((size_t)len + 1);
      if (buf) {
        jbyteArray arr;
        zkl_ops_path(ops, (size_t)i, buf, (size_t)len + 1);
        arr = (*env)->NewByteArray(env, (jsize)len);
        if (arr) {
          (*env)->SetByteArrayRegion(env, arr, 0, (jsize)len, (const jbyte *)buf);
          (*env)->SetObjectArrayElement(env, paths, (jsize)i, arr);
          (*env)->DeleteLocalRef(env, arr);
        }
        free(buf);
      }
    }
    if (zkl_ops_version(ops, (size_t)i, &v) != 0) v = -1;
    (*env)->SetIntArrayRegion(env, versions, (jsize)i, 1, (const jint *)&v);
  }
  (*env)->CallStaticVoidMethod(env, zklj_dispatch_cls, zklj_on_written, (jlong)(intptr_t)user_data,
                               (jint)zkl_event_error(ev), (jlong)owner, (jlong)token, (jlong)rid,
                               (jint)failed, paths, versions);
  zklj_check(env);
  (*env)->DeleteLocalRef(env, paths);
  (*env)->DeleteLocalRef(env, versions);
}

static void zklj_event_cb(const zkl_event *ev, void *user_data) {
  JNIEnv *env = zklj_env();
  uint64_t owner = 0, token = 0, rid = 0;
  const char *d = NULL;
  size_t dl = 0;
  jbyteArray data = NULL;
  if (!env || !zklj_dispatch_cls) return;
  zkl_event_owner(ev, &owner);
  zkl_event_fencing_token(ev, &token);
  zkl_event_request_id(ev, &rid);
  if (zkl_event_type(ev) == ZKL_EVENT_WRITTEN) {
    zklj_written(env, ev, user_data, owner, token, rid);
    return;
  }
  if (zkl_event_data(ev, &d, &dl) == 0 && d && dl > 0) data = zklj_bytes(env, d, dl);
  (*env)->CallStaticVoidMethod(env, zklj_dispatch_cls, zklj_on_event, (jlong)(intptr_t)user_data,
                               (jint)zkl_event_type(ev), (jint)zkl_event_error(ev),
                               (jint)zkl_event_session_state(ev), (jlong)owner, (jlong)token, (jlong)rid,
                               data);
  zklj_check(env);
  if (data) (*env)->DeleteLocalRef(env, data);
}

static void zklj_log_cb(int level, const char *component, const char *message, void *user_data) {
  JNIEnv *env = zklj_env();
  jbyteArray comp, msg;
  if (!env || !zklj_dispatch_cls) return;
  comp = zklj_bytes(env, component ? component : "", component ? strlen(component) : 0);
  msg = zklj_bytes(env, message ? message : "", message ? strlen(message) : 0);
  (*env)->CallStaticVoidMethod(env, zklj_dispatch_cls, zklj_on_log, (jlong)(intptr_t)user_data,
                               (jint)level, comp, msg);
  zklj_check(env);
  if (comp) (*env)->DeleteLocalRef(env, comp);
  if (msg) (*env)->DeleteLocalRef(env, msg);
}
%}

/* ---- helpers: options structs filled on the C side ---------------------- */
%inline %{
/* Called once (io.zkl.Dispatch's static initializer): finds the Java
 * methods the trampolines call. 0, or ZKL_EINTERNAL. */
int zklj_init(JNIEnv *jenv_here) {
  jclass cls;
  if (zklj_dispatch_cls) return 0;
  if ((*jenv_here)->GetJavaVM(jenv_here, &zklj_vm) != 0) return ZKL_EINTERNAL;
  cls = (*jenv_here)->FindClass(jenv_here, "io/zkl/Dispatch");
  if (!cls) return ZKL_EINTERNAL;
  zklj_on_event = (*jenv_here)->GetStaticMethodID(jenv_here, cls, "onEvent", "(JIIIJJJ[B)V");
  zklj_on_log = (*jenv_here)->GetStaticMethodID(jenv_here, cls, "onLog", "(JI[B[B)V");
  zklj_on_written = (*jenv_here)->GetStaticMethodID(jenv_here, cls, "onWritten", "(JIJJJI[[B[I)V");
  if (!zklj_on_event || !zklj_on_log || !zklj_on_written) return ZKL_EINTERNAL;
  {
    jclass b = (*jenv_here)->FindClass(jenv_here, "[B");
    if (!b) return ZKL_EINTERNAL;
    zklj_bytes_cls = (jclass)(*jenv_here)->NewGlobalRef(jenv_here, b);
    if (!zklj_bytes_cls) return ZKL_EINTERNAL;
  }
  zklj_dispatch_cls = (jclass)(*jenv_here)->NewGlobalRef(jenv_here, cls);
  return zklj_dispatch_cls ? 0 : ZKL_EINTERNAL;
}

/* zkl_client_create with the options the Java layer exposes; events and log
 * lines go to the trampolines with user_data (the Java id of the client).
 * On failure buf (a byte[] of len bytes) gets libzkl's message, NUL-ended. */
int zklj_client_new(const char *servers, const char *chroot, int32_t session_timeout_ms,
                    int32_t connect_timeout_ms, int32_t lost_after_ms, int32_t acl,
                    const char *digest_auth,
                    const char *tls_ca_file, const char *tls_cert_file, const char *tls_key_file,
                    const char *tls_key_password, int32_t tls_insecure_skip_hostname_check,
                    const char *sasl_mechanism, const char *sasl_user, const char *sasl_password,
                    const char *sasl_keytab, const char *sasl_ccache, const char *sasl_service,
                    const char *sasl_host, int32_t log_level, int32_t stats_interval_ms,
                    void *user_data, zkl_client **out, char *buf, size_t len) {
  zkl_client_options o;
  int rc = zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  if (rc != 0) return rc;
  o.servers = servers;
  o.chroot = chroot;
  if (session_timeout_ms > 0) o.session_timeout_ms = session_timeout_ms;
  if (connect_timeout_ms > 0) o.connect_timeout_ms = connect_timeout_ms;
  o.lost_after_ms = lost_after_ms;
  o.io = ZKL_IO_THREAD;
  o.acl = acl;
  o.digest_auth = digest_auth;
  o.tls_ca_file = tls_ca_file;
  o.tls_cert_file = tls_cert_file;
  o.tls_key_file = tls_key_file;
  o.tls_key_password = tls_key_password;
  o.tls_insecure_skip_hostname_check = tls_insecure_skip_hostname_check;
  o.sasl_mechanism = sasl_mechanism;
  o.sasl_user = sasl_user;
  o.sasl_password = sasl_password;
  o.sasl_keytab = sasl_keytab;
  o.sasl_ccache = sasl_ccache;
  o.sasl_service = sasl_service;
  o.sasl_host = sasl_host;
  o.cb = zklj_event_cb;
  o.user_data = user_data;
  o.log_cb = zklj_log_cb;
  o.log_user_data = user_data;
  o.log_level = log_level;
  o.stats_interval_ms = stats_interval_ms;
  return zkl_client_create(&o, out, buf, len);
}

/* zkl_lock_new; user_data is the Java layer's id for the handle. */
int zklj_lock_new(zkl_client *c, const char *path, int32_t kind, int32_t max_leases,
                  int32_t leases, int64_t max_hold_ms, int32_t on_revoke,
                  const void *data, size_t data_len, void *user_data, zkl_lock **out) {
  zkl_lock_options o;
  int rc = zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION);
  if (rc != 0) return rc;
  o.kind = kind;
  o.max_leases = max_leases;
  if (leases > 0) o.leases = leases;
  o.max_hold_ms = max_hold_ms;
  o.on_revoke = on_revoke;
  o.data = data;
  o.data_len = data_len;
  o.cb = zklj_event_cb;
  o.user_data = user_data;
  return zkl_lock_new(c, path, &o, out);
}

/* zkl_election_new; user_data is the Java layer's id for the handle. */
int zklj_election_new(zkl_client *c, const char *path, int32_t kind, const char *id,
                      int32_t on_revoke, void *user_data, zkl_election **out) {
  zkl_election_options o;
  int rc = zkl_election_options_init(&o, ZKL_ELECTION_OPTIONS_VERSION);
  if (rc != 0) return rc;
  o.kind = kind;
  o.id = id;
  o.on_revoke = on_revoke;
  o.cb = zklj_event_cb;
  o.user_data = user_data;
  return zkl_election_new(c, path, &o, out);
}

/* zkl_observer_new; user_data is the Java layer's id for the handle. */
int zklj_observer_new(zkl_client *c, const char *path, int32_t kind, void *user_data,
                      zkl_observer **out) {
  zkl_observer_options o;
  int rc = zkl_observer_options_init(&o, ZKL_OBSERVER_OPTIONS_VERSION);
  if (rc != 0) return rc;
  o.kind = kind;
  o.cb = zklj_event_cb;
  o.user_data = user_data;
  return zkl_observer_new(c, path, &o, out);
}

/* zkl_inspect: a lock of lock_kind, or an election of election_kind (> 0). */
int zklj_inspect(zkl_client *c, const char *path, int32_t lock_kind, int32_t election_kind,
                 int64_t timeout_ms, zkl_participants **out) {
  zkl_inspect_options o;
  int rc = zkl_inspect_options_init(&o, ZKL_INSPECT_OPTIONS_VERSION);
  if (rc != 0) return rc;
  if (lock_kind > 0) o.lock_kind = lock_kind;
  o.election_kind = election_kind;
  o.timeout_ms = timeout_ms;
  return zkl_inspect(c, path, &o, out);
}

/* zkl_revoke with the same options as zklj_inspect; holder NULL = all. */
int zklj_revoke(zkl_client *c, const char *path, int32_t lock_kind, int32_t election_kind,
                int64_t timeout_ms, const char *holder) {
  zkl_inspect_options o;
  int rc = zkl_inspect_options_init(&o, ZKL_INSPECT_OPTIONS_VERSION);
  if (rc != 0) return rc;
  if (lock_kind > 0) o.lock_kind = lock_kind;
  o.election_kind = election_kind;
  o.timeout_ms = timeout_ms;
  return zkl_revoke(c, path, &o, holder);
}

/* zkl_fence_check with the same options as zklj_inspect. */
int zklj_fence_check(zkl_client *c, const char *path, int32_t lock_kind, int32_t election_kind,
                     int64_t timeout_ms, uint64_t token) {
  zkl_inspect_options o;
  int rc = zkl_inspect_options_init(&o, ZKL_INSPECT_OPTIONS_VERSION);
  if (rc != 0) return rc;
  if (lock_kind > 0) o.lock_kind = lock_kind;
  o.election_kind = election_kind;
  o.timeout_ms = timeout_ms;
  return zkl_fence_check(c, path, &o, token);
}

/* zkl_multilock_new over n lock handles (a long[] of handles). */
int zklj_multilock_new(zkl_client *c, const long long *members, int32_t n, void *user_data,
                       zkl_multilock **out) {
  zkl_multilock_options o;
  zkl_lock *ls[64];
  int i, rc = zkl_multilock_options_init(&o, ZKL_MULTILOCK_OPTIONS_VERSION);
  if (rc != 0) return rc;
  if (n < 1 || n > 64) return ZKL_ERANGE;
  for (i = 0; i < n; i++) ls[i] = (zkl_lock *)(intptr_t)members[i];
  o.cb = zklj_event_cb;
  o.user_data = user_data;
  return zkl_multilock_new(c, ls, (size_t)n, &o, out);
}
%}
