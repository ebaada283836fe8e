package io.zkl;

import java.time.Duration;
import java.util.Objects;

/** Options of a lock handle ({@link ZklClient#lock(String, LockOptions)}). */
public final class LockOptions {
  final LockKind kind;
  int maxLeases = 1;
  int leases = 1;
  long maxHoldMs;
  OnRevoke onRevoke = OnRevoke.IGNORE;
  byte[] data;

  private LockOptions(LockKind kind) {
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  public static LockOptions of(LockKind kind) {
    return new LockOptions(kind);
  }

  /** SEMAPHORE: the number of leases (all participants must agree). */
  public LockOptions maxLeases(int n) {
    this.maxLeases = n;
    return this;
  }

  /** SEMAPHORE: leases taken per acquisition, all or none (1..maxLeases; default 1). */
  public LockOptions leases(int n) {
    this.leases = n;
    return this;
  }

  /** A hold ends after this long: zkl releases it and reports onLost with EMAXHOLD (null: no limit). */
  public LockOptions maxHold(Duration d) {
    this.maxHoldMs = d == null ? 0 : Math.max(1, d.toMillis());
    return this;
  }

  /** What a holder does on a revocation request (default IGNORE). */
  public LockOptions onRevoke(OnRevoke r) {
    this.onRevoke = Objects.requireNonNull(r, "onRevoke");
    return this;
  }

  /** Node data (up to 1 MiB), e.g. a holder id shown by {@link ZklClient#inspect}. */
  public LockOptions data(byte[] data) {
    this.data = data;
    return this;
  }
}
