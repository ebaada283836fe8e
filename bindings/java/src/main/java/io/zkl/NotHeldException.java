package io.zkl;

/** Release (or fencing token) of a lock that is not held (ZKL_ENOTHELD). */
public class NotHeldException extends ZklException {
  public NotHeldException(String message) {
    super(ZklNativeConstants.ZKL_ENOTHELD, message);
  }
}
