package io.zkl;

/**
 * The error codes of the C API ({@code ZKL_E*}); {@link #code()} is the C
 * value, taken from the SWIG-generated constants of zkl.h (never retyped).
 */
public enum ZklError {
  OK(ZklNativeConstants.ZKL_OK),
  EINVAL(ZklNativeConstants.ZKL_EINVAL),
  EBADPATH(ZklNativeConstants.ZKL_EBADPATH),
  EBADHANDLE(ZklNativeConstants.ZKL_EBADHANDLE),
  ETIMEDOUT(ZklNativeConstants.ZKL_ETIMEDOUT),
  EAGAIN(ZklNativeConstants.ZKL_EAGAIN),
  ECANCELED(ZklNativeConstants.ZKL_ECANCELED),
  ENOTHELD(ZklNativeConstants.ZKL_ENOTHELD),
  ENOTOWNER(ZklNativeConstants.ZKL_ENOTOWNER),
  EBUSY(ZklNativeConstants.ZKL_EBUSY),
  EDEADLK(ZklNativeConstants.ZKL_EDEADLK),
  ECLOSED(ZklNativeConstants.ZKL_ECLOSED),
  ECONNECTION(ZklNativeConstants.ZKL_ECONNECTION),
  ESESSION(ZklNativeConstants.ZKL_ESESSION),
  ELOST(ZklNativeConstants.ZKL_ELOST),
  EMISMATCH(ZklNativeConstants.ZKL_EMISMATCH),
  EAUTH(ZklNativeConstants.ZKL_EAUTH),
  ETOOBIG(ZklNativeConstants.ZKL_ETOOBIG),
  ENOMEM(ZklNativeConstants.ZKL_ENOMEM),
  EZOOKEEPER(ZklNativeConstants.ZKL_EZOOKEEPER),
  EVERSION(ZklNativeConstants.ZKL_EVERSION),
  ENOTFOUND(ZklNativeConstants.ZKL_ENOTFOUND),
  EINTERNAL(ZklNativeConstants.ZKL_EINTERNAL),
  ERANGE(ZklNativeConstants.ZKL_ERANGE),
  ENOTSUP(ZklNativeConstants.ZKL_ENOTSUP),
  EMAXHOLD(ZklNativeConstants.ZKL_EMAXHOLD),
  EREVOKED(ZklNativeConstants.ZKL_EREVOKED),
  ETLS(ZklNativeConstants.ZKL_ETLS),
  ECERT(ZklNativeConstants.ZKL_ECERT),
  EHOSTNAME(ZklNativeConstants.ZKL_EHOSTNAME),
  ECLIENTCERT(ZklNativeConstants.ZKL_ECLIENTCERT),
  EPROTOCOL(ZklNativeConstants.ZKL_EPROTOCOL),
  EEXISTS(ZklNativeConstants.ZKL_EEXISTS),
  EBADVERSION(ZklNativeConstants.ZKL_EBADVERSION),
  ENOTEMPTY(ZklNativeConstants.ZKL_ENOTEMPTY),
  ESTALE(ZklNativeConstants.ZKL_ESTALE),
  EINDOUBT(ZklNativeConstants.ZKL_EINDOUBT),
  /** A code this binding does not know (a newer libzkl). */
  UNKNOWN(Integer.MIN_VALUE);

  private final int code;

  ZklError(int code) {
    this.code = code;
  }

  /** The C value ({@code ZKL_E*}). */
  public int code() {
    return code;
  }

  /** The library's description of the code ({@code zkl_strerror}). */
  public String description() {
    return ZklNative.zkl_strerror(code);
  }

  public static ZklError of(int code) {
    for (ZklError e : values()) {
      if (e.code == code) return e;
    }
    return UNKNOWN;
  }
}
