package io.zkl;

/**
 * A handle on one path, of one kind: a lock, an election participant, an
 * observer.
 *
 * @param <K> its kind ({@link LockKind} or {@link ElectionKind})
 */
abstract class OnPath<S extends OnPath<S, L, K>, L, K extends Enum<K>> extends ListenedTarget<S, L> {
  final String path;
  final K kind;

  OnPath(ZklClient client, String path, K kind) {
    super(client);
    this.path = path;
    this.kind = kind;
  }

  public String path() {
    return path;
  }

  public K kind() {
    return kind;
  }

  /** "fair lock /a", "leader election /b": its kind, {@code noun} and path. */
  final String named(String noun) {
    return kind.name().toLowerCase(java.util.Locale.ROOT) + " " + noun + " " + path;
  }
}
