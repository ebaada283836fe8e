package io.zkl;

/** Release by an owner token that does not hold the lock (ZKL_ENOTOWNER). */
public class NotOwnerException extends ZklException {
  public NotOwnerException(String message) {
    super(ZklNativeConstants.ZKL_ENOTOWNER, message);
  }
}
