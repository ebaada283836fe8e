package io.zkl;

/** ACL of the nodes a client creates ({@code ZKL_ACL_*}). */
public enum Acl {
  /** world:anyone:all (ZooKeeper's default). */
  OPEN(ZklNativeConstants.ZKL_ACL_OPEN),
  /** Creator (digest auth) all, world read. Requires digest authentication. */
  CREATOR(ZklNativeConstants.ZKL_ACL_CREATOR);

  final int code;

  Acl(int code) {
    this.code = code;
  }
}
