package io.zkl;

/**
 * A guarded write's set, delete or check: the node's version is not the one
 * given (ZKL_EBADVERSION); nothing was applied.
 */
public class BadVersionException extends ZklException {
  public BadVersionException(String message) {
    super(ZklNativeConstants.ZKL_EBADVERSION, message);
  }
}
