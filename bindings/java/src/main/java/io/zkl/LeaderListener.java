package io.zkl;

import java.util.Optional;

/** Leader changes seen by a {@link ZklObserver}; runs on the client's dispatcher thread. */
@FunctionalInterface
public interface LeaderListener {
  /**
   * {@code leader} is the leader's participant id and {@code term} its
   * fencing token; both empty when nobody leads.
   */
  void onLeaderChanged(ZklObserver observer, Optional<String> leader, Optional<FencingToken> term);
}
