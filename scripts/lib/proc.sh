# Sourced by scripts/zk-server and scripts/zk-netns: how their owner
# watchers (ZK_OWNER_PID) and zk-server's pause look at a process.
# shellcheck shell=bash

# proc_stat PID: sets STAT_STATE (R, S, T, Z, ...) and STAT_START (its start
# time, in clock ticks after boot) from /proc/PID/stat; false once PID is
# gone. Builtins only: an owner watcher must never take a failed fork (of a
# `cat`, on a machine short of processes) for "the owner is gone".
proc_stat() {
  local line fields
  { IFS= read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
  local -
  set -f
  # shellcheck disable=SC2206  # the fields after "(comm) ": no globbing (set -f)
  fields=(${line##*) })
  STAT_STATE=${fields[0]:-} STAT_START=${fields[19]:-}
}

proc_state() {  # single-letter state from /proc/PID/stat (R, S, T, Z, ...; X: gone)
  if proc_stat "$1"; then echo "$STAT_STATE"; else echo X; fi
}

# owner_gone PID START: true once PID has exited (gone, or a zombie) or is
# another process now (the pid reused: its start time is not START). An
# unreadable stat of a pid still listed in /proc is not taken for gone.
owner_gone() {
  proc_stat "$1" || { [[ ! -e /proc/$1 ]]; return; }
  [[ $STAT_STATE == [ZX] || $STAT_START != "$2" ]]
}
