package io.zkl;

/** The handle is busy (ZKL_EBUSY): an acquire is pending, or another owner holds it. Use one ZklLock per concurrent contender. */
public class BusyException extends ZklException {
  public BusyException(String message) {
    super(ZklNativeConstants.ZKL_EBUSY, message);
  }
}
