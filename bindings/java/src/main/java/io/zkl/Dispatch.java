package io.zkl;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Java end of the C trampolines (native/zkl.i): libzkl calls
 * {@link #onEvent} and {@link #onLog} inside zkl_client_dispatch, i.e. on a
 * client's dispatcher thread. Each client and handle registers under an id
 * that the C side carries as user_data.
 */
final class Dispatch {
  /** Receives the events (and log lines) carrying its id. */
  interface Sink {
    void onEvent(Event e);

    default void onLog(int level, String component, String message) {}
  }

  private static final ConcurrentHashMap<Long, Sink> SINKS = new ConcurrentHashMap<>();
  private static final AtomicLong NEXT_ID = new AtomicLong(1);

  static {
    int rc = ZklNative.zklj_init();
    if (rc != 0) throw new ExceptionInInitializerError("zkl: JNI callbacks unavailable (" + rc + ")");
  }

  private Dispatch() {}

  static void ensureInitialized() {
    // the static initializer ran
  }

  static long newId() {
    return NEXT_ID.getAndIncrement();
  }

  static void register(long id, Sink s) {
    SINKS.put(id, s);
  }

  static void unregister(long id) {
    SINKS.remove(id);
  }

  /** Called from C: one event (valid only during this call; copied here). */
  static void onEvent(long userData, int type, int error, int sessionState, long owner, long token,
                      long requestId, byte[] data) {
    Sink s = SINKS.get(userData);
    if (s == null) return;
    try {
      s.onEvent(new Event(type, error, sessionState, owner, token, data, requestId, null));
    } catch (Throwable t) {
      System.getLogger("io.zkl").log(System.Logger.Level.WARNING, "zkl: event delivery failed", t);
    }
  }

  /** Called from C: a WRITTEN event with its request id and the write's results. */
  static void onWritten(long userData, int error, long owner, long token, long requestId, int failed,
                        byte[][] paths, int[] versions) {
    Sink s = SINKS.get(userData);
    if (s == null) return;
    try {
      s.onEvent(new Event(ZklNativeConstants.ZKL_EVENT_WRITTEN, error, 0, owner, token, null, requestId,
          WriteResult.of(failed, paths, versions)));
    } catch (Throwable t) {
      System.getLogger("io.zkl").log(System.Logger.Level.WARNING, "zkl: event delivery failed", t);
    }
  }

  /** Called from C: one log line of the client with id {@code userData}. */
  static void onLog(long userData, int level, byte[] component, byte[] message) {
    Sink s = SINKS.get(userData);
    String c = component == null ? "" : new String(component, StandardCharsets.UTF_8);
    String m = message == null ? "" : new String(message, StandardCharsets.UTF_8);
    try {
      if (s != null) {
        s.onLog(level, c, m);
      } else {
        ZklClient.log(level, c, m);
      }
    } catch (Throwable t) {
      // never unwind into libzkl
    }
  }
}
