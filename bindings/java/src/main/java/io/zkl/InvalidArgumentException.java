package io.zkl;

/** An invalid argument (ZKL_EINVAL), or data larger than 1 MiB (ZKL_ETOOBIG). */
public class InvalidArgumentException extends ZklException {
  public InvalidArgumentException(int code, String message) {
    super(code, message);
  }
}
