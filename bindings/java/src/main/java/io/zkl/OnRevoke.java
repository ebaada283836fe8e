package io.zkl;

/** What a holder does when someone asks it to let go ({@code ZKL_REVOKE_*}, see {@link ZklClient#revoke}). */
public enum OnRevoke {
  /** Revocation requests are not watched (default; no extra request per hold). */
  IGNORE(ZklNativeConstants.ZKL_REVOKE_IGNORE),
  /** Listeners hear {@code onRevokeRequested}; the holder decides. */
  NOTIFY(ZklNativeConstants.ZKL_REVOKE_NOTIFY),
  /** The event, then zkl releases by itself: onLost with error EREVOKED. */
  RELEASE(ZklNativeConstants.ZKL_REVOKE_RELEASE);

  final int code;

  OnRevoke(int code) {
    this.code = code;
  }
}
