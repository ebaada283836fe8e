package io.zkl;

import java.util.ArrayList;
import java.util.List;

/**
 * The operations of one guarded write ({@link ZklLock#write},
 * {@link ZklMultiLock#write}, {@link ZklElection#write}), built by chaining:
 *
 * <pre>{@code
 * Ops ops = new Ops()
 *     .create("/locks/job/state", "v1".getBytes(UTF_8))
 *     .set("/locks/job/state", "v2".getBytes(UTF_8), 0)
 *     .check("/locks/job/config", Ops.ANY_VERSION);
 * }</pre>
 *
 * <p>Every path must lie strictly below the lock's (or election's) path,
 * e.g. {@code /locks/job/state} for the lock {@code /locks/job}:
 * {@link BadPathException} otherwise, and nothing is sent. An operation
 * libzkl refuses (a malformed path, a bad version, more than
 * {@link #MAX_BYTES}) makes the write fail with that error before anything
 * is sent. A list may be written again: each write has its own results. Not
 * thread-safe while being built.
 */
public final class Ops {
  /** The version that matches whatever version the node has ({@code ZKL_ANY_VERSION}). */
  public static final int ANY_VERSION = ZklNativeConstants.ZKL_ANY_VERSION;
  /** The most one write's operations may carry, paths and data together ({@code ZKL_OPS_MAX_BYTES}). */
  public static final int MAX_BYTES = ZklNativeConstants.ZKL_OPS_MAX_BYTES;

  private static final int CREATE = 0;
  private static final int SET = 1;
  private static final int DELETE = 2;
  private static final int CHECK = 3;

  private static final class Op {
    final int kind;
    final String path;
    final byte[] data;
    final int arg;

    Op(int kind, String path, byte[] data, int arg) {
      this.kind = kind;
      this.path = path;
      this.data = data;
      this.arg = arg;
    }
  }

  private final List<Op> ops = new ArrayList<>();

  /** Creates a persistent node {@code path} with {@code data} (NodeExistsException when it exists). */
  public Ops create(String path, byte[] data) {
    return create(path, data, CreateMode.PERSISTENT);
  }

  /** Creates {@code path} with {@code data} (null: none) in {@code mode}. */
  public Ops create(String path, byte[] data, CreateMode mode) {
    ops.add(new Op(CREATE, path, data, mode.flags));
    return this;
  }

  /**
   * Replaces the data of {@code path} if its version is {@code version}
   * ({@link #ANY_VERSION}: whatever it is): BadVersionException, NotFoundException.
   */
  public Ops set(String path, byte[] data, int version) {
    ops.add(new Op(SET, path, data, version));
    return this;
  }

  /**
   * Deletes {@code path} if its version is {@code version} ({@link #ANY_VERSION}:
   * any): BadVersionException, NotFoundException, NotEmptyException.
   */
  public Ops delete(String path, int version) {
    ops.add(new Op(DELETE, path, null, version));
    return this;
  }

  /**
   * Writes nothing: the write fails (BadVersionException, NotFoundException)
   * unless {@code path} exists with {@code version} ({@link #ANY_VERSION}: any).
   */
  public Ops check(String path, int version) {
    ops.add(new Op(CHECK, path, null, version));
    return this;
  }

  /** The number of operations. */
  public int size() {
    return ops.size();
  }

  /** The native list (freed with zkl_ops_free by the caller); {@code what} names errors. */
  long toNative(String what) {
    long[] out = new long[1];
    ZklException.check(ZklNative.zkl_ops_new(out), what);
    long h = out[0];
    try {
      for (Op op : ops) {
        byte[] p = Util.path(op.path);
        int rc;
        switch (op.kind) {
          case CREATE: rc = ZklNative.zkl_ops_create(h, p, op.data, op.arg); break;
          case SET: rc = ZklNative.zkl_ops_set(h, p, op.data, op.arg); break;
          case DELETE: rc = ZklNative.zkl_ops_delete(h, p, op.arg); break;
          default: rc = ZklNative.zkl_ops_check(h, p, op.arg); break;
        }
        ZklException.check(rc, what + ": operation " + Util.quote(op.path));
      }
    } catch (RuntimeException e) {
      ZklNative.zkl_ops_free(h);
      throw e;
    }
    return h;
  }

  @Override
  public String toString() {
    return "Ops[" + ops.size() + " operations]";
  }
}
