package io.zkl;

/** A copy of one native event, as the C trampoline hands it over. */
final class Event {
  final int type;
  final int error;
  final int sessionState;
  final long owner;
  final long fencingToken;
  /** LEADER_CHANGED: the leader's id; STATS: the JSON; else null. */
  final byte[] data;
  /**
   * The request id of the asynchronous call the event answers (an acquire
   * or campaign: ACQUIRED, ACQUIRE_FAILED, ELECTED, NOT_ELECTED; a release:
   * RELEASED; a write: WRITTEN); 0 for an event that answers no call.
   */
  final long requestId;
  /** WRITTEN: the write's results; else null. */
  final WriteResult written;

  Event(int type, int error, int sessionState, long owner, long fencingToken, byte[] data, long requestId,
        WriteResult written) {
    this.type = type;
    this.error = error;
    this.sessionState = sessionState;
    this.owner = owner;
    this.fencingToken = fencingToken;
    this.data = data;
    this.requestId = requestId;
    this.written = written;
  }

  FencingToken token() {
    return new FencingToken(fencingToken);
  }
}
