package io.zkl;

/**
 * A fencing token that is not the current holder's (ZKL_ESTALE): a later
 * holder has the lock, or nobody ({@link ZklClient#fenceCheck}).
 */
public class StaleTokenException extends ZklException {
  public StaleTokenException(String message) {
    super(ZklNativeConstants.ZKL_ESTALE, message);
  }
}
