package io.zkl;

import java.util.Optional;

/** Leader changes seen by a {@link ZklObserver}; runs on the dispatching thread. */
@FunctionalInterface
public interface LeaderListener {
  /** {@code leader} is the leader's participant id, empty when there is none. */
  void onLeaderChanged(ZklObserver observer, Optional<String> leader);
}
