package io.zkl;

/** The acquire was cancelled (ZKL_ECANCELED), e.g. by a cancelled future or an interrupted thread; no node is left. */
public class AcquireCanceledException extends ZklException {
  public AcquireCanceledException(String message) {
    super(ZklNativeConstants.ZKL_ECANCELED, message);
  }
}
