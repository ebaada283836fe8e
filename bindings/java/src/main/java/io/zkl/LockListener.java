package io.zkl;

/** What happens to a held lock: the events of {@link HolderListener}. */
public interface LockListener extends HolderListener<ZklLock> {}
