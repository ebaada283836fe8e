package io.zkl;

import java.util.concurrent.atomic.AtomicBoolean;

/** A native handle that receives events: lock, election or observer. */
abstract class Target implements Dispatch.Sink {
  final ZklClient client;
  /** The user_data id that routes this handle's events to it. */
  final long id;
  volatile long handle;
  final AtomicBoolean closed = new AtomicBoolean();

  Target(ZklClient client) {
    this.client = client;
    this.id = Dispatch.newId();
  }

  /** The native handle; ClosedException once closed. */
  final long h() {
    if (closed.get()) throw new ClosedException(what() + " is closed");
    return handle;
  }

  abstract String what();

  /** The client is closing: end everything pending and free the native handle. */
  abstract void clientClosed(ClosedException e);

  static void call(String what, Runnable r) {
    try {
      r.run();
    } catch (RuntimeException ex) {
      System.getLogger("io.zkl").log(System.Logger.Level.WARNING, "zkl " + what + " listener threw", ex);
    }
  }
}
