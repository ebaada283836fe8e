package io.zkl;

/**
 * A handle that can hold something on its path: a lock, or leadership of an
 * election. Both report suspension, restoration, revocation requests and
 * loss the same way ({@link HolderListener}).
 */
abstract class Holder<S extends Holder<S, L, K>, L extends HolderListener<S>, K extends Enum<K>>
    extends OnPath<S, L, K> {
  Holder(ZklClient client, String path, K kind) {
    super(client, path, kind);
  }

  /**
   * Tells the listeners of an event every holder reports alike; false for
   * any other event. {@code kind} names the listeners in logs,
   * {@code lostMessage} is the message of a loss that names no cause.
   */
  final boolean tellHolderEvent(Event e, String kind, String lostMessage) {
    S self = self();
    switch (e.type) {
      case ZklNativeConstants.ZKL_EVENT_SUSPENDED:
        tell(kind, l -> l.onSuspended(self));
        return true;
      case ZklNativeConstants.ZKL_EVENT_RESTORED:
        tell(kind, l -> l.onRestored(self, e.token()));
        return true;
      case ZklNativeConstants.ZKL_EVENT_REVOKE_REQUESTED:
        tell(kind, l -> l.onRevokeRequested(self, e.token()));
        return true;
      case ZklNativeConstants.ZKL_EVENT_LOST:
        ZklException cause = lostCause(e, lostMessage);
        tell(kind, l -> l.onLost(self, cause));
        return true;
      default:
        return false;
    }
  }

  @SuppressWarnings("unchecked")
  private S self() {
    return (S) this;
  }
}
