package io.zkl;

/** Not now (ZKL_EAGAIN): another holder is in the way. tryAcquire returns an empty Optional instead of throwing this. */
public class WouldBlockException extends ZklException {
  public WouldBlockException(String message) {
    super(ZklNativeConstants.ZKL_EAGAIN, message);
  }
}
