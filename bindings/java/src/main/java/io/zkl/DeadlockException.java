package io.zkl;

/** Re-acquire of a non-reentrant lock by the owner that holds it (ZKL_EDEADLK). */
public class DeadlockException extends ZklException {
  public DeadlockException(String message) {
    super(ZklNativeConstants.ZKL_EDEADLK, message);
  }
}
