package io.zkl;

/** A malformed ZooKeeper path (ZKL_EBADPATH): relative, trailing slash, empty or dot segments, NUL or control characters. */
public class BadPathException extends ZklException {
  public BadPathException(String message) {
    super(ZklNativeConstants.ZKL_EBADPATH, message);
  }
}
