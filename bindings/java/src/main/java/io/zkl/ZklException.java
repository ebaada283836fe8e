package io.zkl;

/**
 * Base of every exception of this binding: a failed libzkl call. Unchecked.
 * {@link #code()} is the C error code ({@code ZKL_E*}, negative) and
 * {@link #error()} the same as an enum. Subclasses name the common cases;
 * the other codes arrive as a plain ZklException.
 */
public class ZklException extends RuntimeException {
  private final int code;
  private int failedOperation = -1;

  public ZklException(int code, String message) {
    super(message);
    this.code = code;
  }

  public ZklException(int code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  /** The C error code, e.g. -4 for ZKL_ETIMEDOUT. */
  public int code() {
    return code;
  }

  public ZklError error() {
    return ZklError.of(code);
  }

  /**
   * A guarded write that failed because of one of its operations
   * (NodeExistsException, BadVersionException, NotFoundException,
   * NotEmptyException, AuthException): that operation's index in the
   * {@link Ops}; empty otherwise.
   */
  public java.util.OptionalInt failedOperation() {
    return failedOperation >= 0 ? java.util.OptionalInt.of(failedOperation) : java.util.OptionalInt.empty();
  }

  /** Records which operation of a guarded write failed (this, for chaining). */
  ZklException failedAt(java.util.OptionalInt index) {
    failedOperation = index.orElse(-1);
    return this;
  }

  /** The exception for an error code; {@code what} says what failed. */
  public static ZklException of(int code, String what) {
    return of(code, what, null);
  }

  /**
   * The exception for an error code: {@code what} says what failed and
   * {@code reason} (libzkl's, when it gave one; else the code's text) why.
   */
  static ZklException of(int code, String what, String reason) {
    String msg = (what == null || what.isEmpty() ? "" : what + ": ")
        + (reason == null || reason.isEmpty() ? ZklNative.zkl_strerror(code) : reason)
        + " (" + ZklError.of(code).name() + ")";
    return create(code, msg);
  }

  /**
   * A new exception of the same class, code and message, caused by {@code e}:
   * rethrown on a waiting thread, it shows that thread's stack too.
   */
  static ZklException copyOf(ZklException e) {
    ZklException c = create(e.code(), e.getMessage());
    c.failedOperation = e.failedOperation;
    c.initCause(e);
    return c;
  }

  private static ZklException create(int code, String msg) {
    switch (code) {
      case ZklNativeConstants.ZKL_EINVAL: return new InvalidArgumentException(code, msg);
      case ZklNativeConstants.ZKL_EBADPATH: return new BadPathException(msg);
      case ZklNativeConstants.ZKL_EBADHANDLE: return new ClosedException(code, msg);
      case ZklNativeConstants.ZKL_ETIMEDOUT: return new ZklTimeoutException(msg);
      case ZklNativeConstants.ZKL_EAGAIN: return new WouldBlockException(msg);
      case ZklNativeConstants.ZKL_ECANCELED: return new AcquireCanceledException(msg);
      case ZklNativeConstants.ZKL_ENOTHELD: return new NotHeldException(msg);
      case ZklNativeConstants.ZKL_ENOTOWNER: return new NotOwnerException(msg);
      case ZklNativeConstants.ZKL_EBUSY: return new BusyException(msg);
      case ZklNativeConstants.ZKL_EDEADLK: return new DeadlockException(msg);
      case ZklNativeConstants.ZKL_ECLOSED: return new ClosedException(code, msg);
      case ZklNativeConstants.ZKL_ECONNECTION: return new ConnectionException(code, msg);
      case ZklNativeConstants.ZKL_ESESSION: return new SessionLostException(msg);
      case ZklNativeConstants.ZKL_ELOST: return new LockLostException(code, msg);
      case ZklNativeConstants.ZKL_EMISMATCH: return new MismatchException(msg);
      case ZklNativeConstants.ZKL_EAUTH: return new AuthException(msg);
      case ZklNativeConstants.ZKL_ETOOBIG: return new InvalidArgumentException(code, msg);
      case ZklNativeConstants.ZKL_ENOTFOUND: return new NotFoundException(msg);
      case ZklNativeConstants.ZKL_EEXISTS: return new NodeExistsException(msg);
      case ZklNativeConstants.ZKL_EBADVERSION: return new BadVersionException(msg);
      case ZklNativeConstants.ZKL_ENOTEMPTY: return new NotEmptyException(msg);
      case ZklNativeConstants.ZKL_ESTALE: return new StaleTokenException(msg);
      case ZklNativeConstants.ZKL_EINDOUBT: return new WriteInDoubtException(msg);
      default: return new ZklException(code, msg);
    }
  }

  /** Throws for a negative code, returns it otherwise. */
  static int check(int rc, String what) {
    if (rc < 0) throw of(rc, what);
    return rc;
  }
}
