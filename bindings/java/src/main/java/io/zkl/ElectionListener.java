package io.zkl;

/**
 * Election events: the outcome of a campaign, and the events of
 * {@link HolderListener} while leading.
 */
public interface ElectionListener extends HolderListener<ZklElection> {
  /** This participant leads. */
  default void onElected(ZklElection election, FencingToken term) {}

  /** Joined; another participant leads. */
  default void onNotElected(ZklElection election) {}
}
