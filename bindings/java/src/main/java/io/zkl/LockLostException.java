package io.zkl;

/**
 * The lock was lost while held (ZKL_ELOST): the session expired (cause
 * {@link SessionLostException}) or the node was deleted. Thrown by
 * {@link Hold#close()} / release of a hold that had been lost; whatever the
 * lock protected may have been used by another holder meanwhile.
 */
public class LockLostException extends ZklException {
  public LockLostException(int code, String message) {
    super(code, message);
  }

  public LockLostException(String message, Throwable cause) {
    super(ZklNativeConstants.ZKL_ELOST, message, cause);
  }
}
