package io.zkl;

/** Nothing there (ZKL_ENOTFOUND): no leader, no such node. */
public class NotFoundException extends ZklException {
  public NotFoundException(String message) {
    super(ZklNativeConstants.ZKL_ENOTFOUND, message);
  }
}
