package io.zkl;

/** Participants disagree (ZKL_EMISMATCH), e.g. on a semaphore's lease count. */
public class MismatchException extends ZklException {
  public MismatchException(String message) {
    super(ZklNativeConstants.ZKL_EMISMATCH, message);
  }
}
