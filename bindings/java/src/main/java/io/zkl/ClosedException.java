package io.zkl;

/**
 * The client or handle is closed (ZKL_ECLOSED), or the native handle is gone
 * (ZKL_EBADHANDLE: used after close()).
 */
public class ClosedException extends ZklException {
  public ClosedException(int code, String message) {
    super(code, message);
  }

  public ClosedException(String message) {
    super(ZklNativeConstants.ZKL_ECLOSED, message);
  }
}
