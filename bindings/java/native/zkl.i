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
 *  - Callbacks do not cross into Java: events are pulled with
 *    zkl_client_next_event, so zkl_client_dispatch and the callback fields
 *    of the options structs are not wrapped. The options structs are filled
 *    by the small zklj_* helpers below (the C side owns their memory).
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
ZKL_HANDLE(zkl_event)
ZKL_HANDLE(zkl_participants)

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

/* No callbacks into Java: the observer's cb parameter is always NULL. */
%typemap(in, numinputs=0) zkl_event_cb cb %{ $1 = NULL; %}

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

/* Caller buffers filled by C (session password, observer leader). */
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
/* Callbacks cannot run in Java (pull form instead). */
%ignore zkl_client_dispatch;
%ignore zkl_event_cb;
/* Options structs: filled by the zklj_* helpers below. */
%ignore zkl_client_options;
%ignore zkl_lock_options;
%ignore zkl_election_options;
%ignore zkl_client_options_init;
%ignore zkl_lock_options_init;
%ignore zkl_election_options_init;
%ignore zkl_client_new;
%ignore zkl_lock_new;
%ignore zkl_election_new;
/* Macros that are not constants. */
%ignore ZKL_API;
%ignore ZKL_H;

#define ZKL_API
%include <zkl.h>

/* ---- helpers: options structs filled on the C side ---------------------- */
%inline %{
/* zkl_client_new with the options the Java layer exposes. */
int zklj_client_new(const char *servers, const char *chroot, int32_t session_timeout_ms,
                    int32_t lost_after_ms, const char *digest_auth, int32_t acl,
                    zkl_client **out) {
  zkl_client_options o;
  int rc = zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  if (rc != 0) return rc;
  o.servers = servers;
  o.chroot = chroot;
  if (session_timeout_ms > 0) o.session_timeout_ms = session_timeout_ms;
  o.lost_after_ms = lost_after_ms;
  o.digest_auth = digest_auth;
  o.acl = acl;
  return zkl_client_new(&o, out);
}

/* zkl_lock_new; user_data is the Java layer's id for the handle. */
int zklj_lock_new(zkl_client *c, const char *path, int32_t kind, int32_t max_leases,
                  const void *data, size_t data_len, void *user_data, zkl_lock **out) {
  zkl_lock_options o;
  int rc = zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION);
  if (rc != 0) return rc;
  o.kind = kind;
  o.max_leases = max_leases;
  o.data = data;
  o.data_len = data_len;
  o.user_data = user_data;
  return zkl_lock_new(c, path, &o, out);
}

/* zkl_election_new; user_data is the Java layer's id for the handle. */
int zklj_election_new(zkl_client *c, const char *path, int32_t kind, const char *id,
                      void *user_data, zkl_election **out) {
  zkl_election_options o;
  int rc = zkl_election_options_init(&o, ZKL_ELECTION_OPTIONS_VERSION);
  if (rc != 0) return rc;
  o.kind = kind;
  o.id = id;
  o.user_data = user_data;
  return zkl_election_new(c, path, &o, out);
}
%}
