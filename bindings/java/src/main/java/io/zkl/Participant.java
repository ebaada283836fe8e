package io.zkl;

import java.nio.charset.StandardCharsets;

/**
 * One participant of a lock or election, as read by {@link ZklClient#inspect}.
 *
 * @param name node name
 * @param holder whether it holds (or leads)
 * @param fencingToken its fencing token (the node's czxid)
 * @param sessionId the session that owns the node
 * @param ctimeMillis node creation time (Unix ms)
 * @param leases semaphore leases it takes (1 for other recipes)
 * @param data node data (e.g. holder or participant id)
 */
public record Participant(String name, boolean holder, FencingToken fencingToken, long sessionId,
                          long ctimeMillis, int leases, byte[] data) {
  /** The node data as UTF-8 text. */
  public String dataAsString() {
    return new String(data, StandardCharsets.UTF_8);
  }
}
