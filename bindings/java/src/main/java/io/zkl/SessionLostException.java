package io.zkl;

/** The ZooKeeper session was lost (ZKL_ESESSION): expired, or disconnected past the client-side deadline. As the cause of a LockLostException or of a listener's onLost, it says why a lock was lost. */
public class SessionLostException extends ZklException {
  public SessionLostException(String message) {
    super(ZklNativeConstants.ZKL_ESESSION, message);
  }
}
