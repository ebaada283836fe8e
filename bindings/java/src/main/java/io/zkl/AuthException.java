package io.zkl;

/** Authentication failed or the ACL does not allow it (ZKL_EAUTH). */
public class AuthException extends ZklException {
  public AuthException(String message) {
    super(ZklNativeConstants.ZKL_EAUTH, message);
  }
}
