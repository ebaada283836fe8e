package io.zkl;

/** The mode of a node {@link Ops#create} makes ({@code ZKL_CREATE_*}, from zkl.h). */
public enum CreateMode {
  /** A plain node. */
  PERSISTENT(ZklNativeConstants.ZKL_CREATE_PERSISTENT),
  /** Dies with this client's session. */
  EPHEMERAL(ZklNativeConstants.ZKL_CREATE_EPHEMERAL),
  /** A sequence number is appended to the name: {@link WriteResult#path} has it. */
  SEQUENTIAL(ZklNativeConstants.ZKL_CREATE_SEQUENTIAL),
  /** Both. */
  EPHEMERAL_SEQUENTIAL(ZklNativeConstants.ZKL_CREATE_EPHEMERAL | ZklNativeConstants.ZKL_CREATE_SEQUENTIAL);

  final int flags;

  CreateMode(int flags) {
    this.flags = flags;
  }

  /** The {@code ZKL_CREATE_*} flags. */
  public int flags() {
    return flags;
  }
}
