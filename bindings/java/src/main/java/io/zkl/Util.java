package io.zkl;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

final class Util {
  private Util() {}

  /** UTF-8 bytes (the C side adds the NUL); null stays null. */
  static byte[] cstr(String s, String what) {
    if (s == null) return null;
    if (s.indexOf('\0') >= 0) {
      throw new InvalidArgumentException(ZklNativeConstants.ZKL_EINVAL, what + " contains a NUL character");
    }
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A path as UTF-8; a NUL inside is a bad path (C would see it truncated). */
  static byte[] path(String path) {
    if (path == null) {
      throw new InvalidArgumentException(ZklNativeConstants.ZKL_EINVAL, "path is null");
    }
    if (path.indexOf('\0') >= 0) {
      throw new BadPathException("bad path " + quote(path) + ": contains a NUL character");
    }
    return path.getBytes(StandardCharsets.UTF_8);
  }

  /** Milliseconds for the C API: null or negative = forever (-1). */
  static long millis(Duration timeout) {
    if (timeout == null || timeout.isNegative()) return -1;
    try {
      long ms = timeout.toMillis();
      if (ms == 0 && !timeout.isZero()) return 1;  // do not round a real wait down to a poll
      return ms;
    } catch (ArithmeticException e) {
      return -1;
    }
  }

  static String quote(String s) {
    return "\"" + s.replace("\0", "\\0") + "\"";
  }

  static String utf8(byte[] b) {
    return b == null ? "" : new String(b, StandardCharsets.UTF_8);
  }

  /** The NUL-terminated text C wrote into {@code buf} ("" when none). */
  static String ctext(byte[] buf) {
    int n = 0;
    while (n < buf.length && buf[n] != 0) n++;
    return new String(buf, 0, n, StandardCharsets.UTF_8);
  }
}
