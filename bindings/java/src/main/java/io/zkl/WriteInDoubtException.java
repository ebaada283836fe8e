package io.zkl;

/**
 * The connection broke while a guarded write was in flight (ZKL_EINDOUBT):
 * it may or may not have been applied. Read back before retrying.
 */
public class WriteInDoubtException extends ZklException {
  public WriteInDoubtException(String message) {
    super(ZklNativeConstants.ZKL_EINDOUBT, message);
  }
}
