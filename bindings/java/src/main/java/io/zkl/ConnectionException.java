package io.zkl;

/** No connection to ZooKeeper right now (ZKL_ECONNECTION), e.g. tryAcquire while disconnected. */
public class ConnectionException extends ZklException {
  public ConnectionException(int code, String message) {
    super(code, message);
  }
}
