package io.zkl;

/** The error codes of the C API ({@code ZKL_E*}); {@link #code()} is the C value. */
public enum ZklError {
  OK(0),
  EINVAL(-1),
  EBADPATH(-2),
  EBADHANDLE(-3),
  ETIMEDOUT(-4),
  EAGAIN(-5),
  ECANCELED(-6),
  ENOTHELD(-7),
  ENOTOWNER(-8),
  EBUSY(-9),
  EDEADLK(-10),
  ECLOSED(-11),
  ECONNECTION(-12),
  ESESSION(-13),
  ELOST(-14),
  EMISMATCH(-15),
  EAUTH(-16),
  ETOOBIG(-17),
  ENOMEM(-18),
  EZOOKEEPER(-19),
  EVERSION(-20),
  ENOTFOUND(-21),
  EINTERNAL(-22),
  ERANGE(-23),
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
