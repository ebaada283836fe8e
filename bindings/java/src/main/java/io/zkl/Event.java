package io.zkl;

/** A copy of one native event (taken with zkl_client_next_event, then freed). */
final class Event {
  final int type;
  final int error;
  final int sessionState;
  final long owner;
  final long fencingToken;
  final long userData;
  final byte[] data;

  private Event(int type, int error, int sessionState, long owner, long fencingToken, long userData,
                byte[] data) {
    this.type = type;
    this.error = error;
    this.sessionState = sessionState;
    this.owner = owner;
    this.fencingToken = fencingToken;
    this.userData = userData;
    this.data = data;
  }

  /** Reads and frees the native event. */
  static Event take(long ev) {
    try {
      long[] out = new long[1];
      int type = ZklNative.zkl_event_type(ev);
      int error = ZklNative.zkl_event_error(ev);
      int state = ZklNative.zkl_event_session_state(ev);
      ZklNative.zkl_event_owner(ev, out);
      long owner = out[0];
      out[0] = 0;
      ZklNative.zkl_event_fencing_token(ev, out);
      long token = out[0];
      out[0] = 0;
      ZklNative.zkl_event_user_data(ev, out);
      long userData = out[0];
      byte[] data = null;
      if (type == ZklNativeConstants.ZKL_EVENT_LEADER_CHANGED) {
        byte[][] d = new byte[1][];
        ZklNative.zkl_event_data(ev, d);
        data = d[0] == null ? new byte[0] : d[0];
      }
      return new Event(type, error, state, owner, token, userData, data);
    } finally {
      ZklNative.zkl_event_free(ev);
    }
  }
}
