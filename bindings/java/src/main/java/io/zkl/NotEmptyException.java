package io.zkl;

/** A guarded write's delete: the node has children (ZKL_ENOTEMPTY); nothing was applied. */
public class NotEmptyException extends ZklException {
  public NotEmptyException(String message) {
    super(ZklNativeConstants.ZKL_ENOTEMPTY, message);
  }
}
