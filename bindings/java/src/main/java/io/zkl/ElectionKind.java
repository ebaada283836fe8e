package io.zkl;

/** Leader election recipes ({@code ZKL_ELECTION_*}). */
public enum ElectionKind {
  /** Sequential nodes: leadership in arrival order. */
  FAIR(ZklNativeConstants.ZKL_ELECTION_FAIR),
  /** One ephemeral node; all participants race for it. */
  NONFAIR(ZklNativeConstants.ZKL_ELECTION_NONFAIR);

  final int code;

  ElectionKind(int code) {
    this.code = code;
  }
}
