package io.zkl;

/**
 * A fencing token: the node's czxid, an unsigned 64-bit number that strictly
 * increases across successive holders of a path (successive leaders of an
 * election). Java's {@code long} is signed, so compare tokens with
 * {@link #compareTo} / {@link #isNewerThan} (unsigned), never with
 * {@code <} on {@link #bits()}; {@link #toString()} prints the unsigned value.
 *
 * @param bits the token's 64 bits (as the C API's uint64_t)
 */
public record FencingToken(long bits) implements Comparable<FencingToken> {
  /** Unsigned comparison: the larger token is the newer hold. */
  @Override
  public int compareTo(FencingToken o) {
    return Long.compareUnsigned(bits, o.bits);
  }

  /** True when this token is strictly newer (larger, unsigned) than {@code o}. */
  public boolean isNewerThan(FencingToken o) {
    return compareTo(o) > 0;
  }

  /** The unsigned decimal value. */
  @Override
  public String toString() {
    return Long.toUnsignedString(bits);
  }

  /** Parses an unsigned decimal value (as {@link #toString()} prints it). */
  public static FencingToken parse(String s) {
    return new FencingToken(Long.parseUnsignedLong(s));
  }
}
