package io.zkl;

/** The wait ran out (ZKL_ETIMEDOUT): the lock was not acquired, nothing is left on the server. */
public class ZklTimeoutException extends ZklException {
  public ZklTimeoutException(String message) {
    super(ZklNativeConstants.ZKL_ETIMEDOUT, message);
  }
}
