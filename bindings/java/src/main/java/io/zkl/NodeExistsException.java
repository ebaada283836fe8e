package io.zkl;

/** A guarded write's create: the node exists (ZKL_EEXISTS); nothing was applied. */
public class NodeExistsException extends ZklException {
  public NodeExistsException(String message) {
    super(ZklNativeConstants.ZKL_EEXISTS, message);
  }
}
