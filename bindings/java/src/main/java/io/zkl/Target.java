package io.zkl;

import java.util.concurrent.atomic.AtomicBoolean;

/** A native handle that receives events: lock, election or observer. */
abstract class Target {
  final ZklClient client;
  /** The user_data id that routes this handle's events to it. */
  final long id;
  volatile long handle;
  final AtomicBoolean closed = new AtomicBoolean();

  Target(ZklClient client) {
    this.client = client;
    this.id = client.newTargetId();
  }

  /** The native handle; ClosedException once closed. */
  final long h() {
    if (closed.get()) throw new ClosedException(what() + " is closed");
    return handle;
  }

  abstract String what();

  /** Delivers one event of this handle (on the dispatching thread). */
  abstract void onEvent(Event e);

  /** The client is closing: end everything pending and free the native handle. */
  abstract void clientClosed(ClosedException e);
}
