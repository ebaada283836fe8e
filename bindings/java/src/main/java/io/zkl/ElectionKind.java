package io.zkl;

/** Leader election recipes ({@code ZKL_ELECTION_*}). */
public enum ElectionKind {
  /** Sequential nodes: leadership in arrival order. */
  FAIR(ZklNativeConstants.ZKL_ELECTION_FAIR),
  /** One ephemeral node; all participants race for it. */
  UNFAIR(ZklNativeConstants.ZKL_ELECTION_UNFAIR);

  final int code;

  ElectionKind(int code) {
    this.code = code;
  }
}
