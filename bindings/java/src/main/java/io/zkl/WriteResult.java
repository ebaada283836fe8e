package io.zkl;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What a guarded write did, operation by operation: the path each create
 * made (with its sequence number) and the data version after each create
 * (0) or set. A failed write throws instead; its exception's
 * {@link ZklException#failedOperation()} says which operation failed.
 */
public final class WriteResult {
  private final int failed;
  private final String[] paths;
  private final int[] versions;

  WriteResult(int failed, String[] paths, int[] versions) {
    this.failed = failed;
    this.paths = paths;
    this.versions = versions;
  }

  /** From the arrays the JNI trampoline hands over (null paths: none). */
  static WriteResult of(int failed, byte[][] paths, int[] versions) {
    int n = paths == null ? 0 : paths.length;
    String[] p = new String[n];
    for (int i = 0; i < n; i++) {
      p[i] = paths[i] == null ? null : new String(paths[i], StandardCharsets.UTF_8);
    }
    return new WriteResult(failed, p, versions == null ? new int[n] : versions.clone());
  }

  /** Reads the results of a native list. */
  static WriteResult ofNative(long ops) {
    int n = Math.max(ZklNative.zkl_ops_count(ops), 0);
    String[] p = new String[n];
    int[] v = new int[n];
    long[] out = new long[1];
    for (int i = 0; i < n; i++) {
      int len = ZklNative.zkl_ops_path(ops, i, null);
      if (len >= 0) {
        byte[] buf = new byte[len + 1];
        ZklNative.zkl_ops_path(ops, i, buf);
        p[i] = new String(buf, 0, len, StandardCharsets.UTF_8);
      }
      v[i] = ZklNative.zkl_ops_version(ops, i, out) == 0 ? (int) out[0] : -1;
    }
    return new WriteResult(ZklNative.zkl_ops_failed(ops), p, v);
  }

  /** The number of operations. */
  public int size() {
    return paths.length;
  }

  /**
   * The index of the operation that failed; empty when every operation was
   * applied, or the write failed for no one operation's reason.
   */
  public OptionalInt failed() {
    return failed >= 0 ? OptionalInt.of(failed) : OptionalInt.empty();
  }

  /** The path operation {@code i} created; empty for the other operations. */
  public Optional<String> path(int i) {
    return Optional.ofNullable(paths[i]);
  }

  /** The data version after operation {@code i} (a create: 0, a set); empty for the others. */
  public OptionalInt version(int i) {
    return versions[i] >= 0 ? OptionalInt.of(versions[i]) : OptionalInt.empty();
  }

  @Override
  public String toString() {
    return "WriteResult[failed=" + failed + ", paths=" + Arrays.toString(paths) + ", versions="
        + Arrays.toString(versions) + "]";
  }
}
