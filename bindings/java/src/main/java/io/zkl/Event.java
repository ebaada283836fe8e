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
  /** WRITTEN: the request id of the write it answers; else 0. */
  final long requestId;
  /** WRITTEN: the write's results; else null. */
  final WriteResult written;

  Event(int type, int error, int sessionState, long owner, long fencingToken, byte[] data) {
    this(type, error, sessionState, owner, fencingToken, data, 0, null);
  }

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
