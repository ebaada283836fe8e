/*
 * zkl elect: run CMD only while elected leader.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <zkl.h>

#include "../client.h"
#include "../options.h"
#include "../supervise.h"
#include "../util.h"
#include "cmds.h"

const char elect_help[] =
    "Usage: zkl elect [OPTIONS] PATH [--] CMD [ARGS...]\n"
    "\n"
    "Joins the leader election PATH and runs CMD only while this process is the\n"
    "leader. CMD gets ZKL_FENCING_TOKEN (the term's token, strictly increasing\n"
    "across leaders), ZKL_ELECTION_PATH and ZKL_ID. If leadership is lost (or its\n"
    "lease, which only the ZooKeeper quorum renews, ran out), CMD gets SIGTERM, then\n"
    "SIGKILL after the grace period; zkl then exits with 75, or with --rejoin\n"
    "waits to be elected again and restarts CMD. When CMD ends by itself, zkl\n"
    "resigns and exits with CMD's status.\n"
    "\n"
    "Election options:\n"
    "  --fair             leadership in arrival order (default; Curator\n"
    "                     LeaderLatch-style nodes)\n"
    "  --unfair           everyone races for one node when the leader goes\n"
    "  --id ID            participant id shown by `zkl leader` (default HOST:PID)\n"
    "  --rejoin           after losing leadership, stop CMD and campaign again\n"
    "  --grace D          time between SIGTERM and SIGKILL (default 10s)\n"
    "  --stop-on-suspend  stop CMD as soon as the connection is lost\n"
    "  --foreground       run CMD in zkl's process group (see zkl lock --help)\n"
    "\n"
    "%s"
    "\n"
    "Exit status:\n"
    "  CMD's status       CMD ran and ended by itself (128+N if killed by signal N)\n"
    "  75                 leadership was lost while CMD ran; CMD was stopped\n"
    "  125                zkl failed (bad usage, path or duration, cannot connect)\n"
    "  126, 127           CMD could not be executed / was not found\n"
    "  128+N              zkl got signal N while waiting to be elected\n"
    "\n"
    "Example (a leader-only daemon on every machine; one runs at a time):\n"
    "  zkl elect --rejoin --id \"$(hostname)\" /services/scheduler -- scheduler\n";

static int leave(zkl_election *e, zkl_client *c, int code) {
  zkl_election_destroy(e);
  zkl_client_destroy(c);
  return code;
}

int cmd_elect(int argc, char **argv) {
  struct common co;
  struct run_opts ro;
  common_init(&co);
  parse_run("elect ", argc, argv, &co, &ro, 1, elect_help);
  char *id = ro.id ? (char *)ro.id : default_id();

  int sfd = setup_signals();
  zkl_client *c = client_new(&co);
  zkl_election_options eo;
  zkl_election_options_init(&eo, ZKL_ELECTION_OPTIONS_VERSION);
  eo.kind = ro.kind;
  eo.id = id;
  zkl_election *e = NULL;
  int rc = zkl_election_new(c, ro.path, &eo, &e);
  if (rc != 0) {
    zkl_client_destroy(c);
    bad_path(ro.path, rc);
  }
  wait_connected(c, &co, sfd);
  rc = zkl_election_acquire_async(e, -1);
  if (rc < 0) {
    char why[1200];
    why_failed(c, rc, why, sizeof why);
    zkl_client_destroy(c);
    die(EXIT_ZKL, "cannot join the election %s: %s", ro.path, why);
  }
  info("joined the election %s as '%s'", ro.path, id);

  int zfd = zkl_client_fd(c);
  struct child ch;
  child_init(&ch, ro.foreground);
  struct lease lease = {0, 0, -1};
  int running = 0;   /* CMD started in the current term and not yet reaped */
  int lost = 0;      /* the current CMD is being stopped because of a loss */
  int want_start = 0;
  uint64_t token = 0;

  for (;;) {
    if (want_start && !running) {
      want_start = 0;
      if (zkl_election_is_leader(e) == 1 && zkl_election_fencing_token(e, &token) == 0) {
        info("elected leader of %s, fencing token %" PRIu64, ro.path, token);
        char *extra[] = {xasprintf("ZKL_FENCING_TOKEN=%" PRIu64, token),
                         xasprintf("ZKL_ELECTION_PATH=%s", ro.path), xasprintf("ZKL_ID=%s", id), NULL};
        int src = child_start(&ch, ro.cmd, extra);
        if (src != 0) return leave(e, c, src);
        running = 1;
        lost = 0;
        lease_start(&lease);
      }
    }

    int signals = supervise_wait(zfd, sfd, earliest(ch.kill_at, lease_wakeup(&lease)), &ch);

    /* The lease truth first: after a freeze, before the events explain it. */
    if (running && !lost) {
      int64_t ms = 0;
      int vrc = zkl_election_valid_for(e, &ms);
      if (lease_lapsed(&lease, vrc, ms)) {
        error_msg("leadership of %s is no longer provable (its lease lapsed without word from "
                  "the ZooKeeper quorum): stopping the command", ro.path);
        lost = 1;
        supervise_stop(&lease, &ch, ro.grace_ms);
      }
    }

    if (signals) {
      struct signalfd_siginfo si;
      for (int sig; (sig = read_signal(sfd, &si)) != 0;) {
        if (sig == SIGCHLD) {
          if (running && child_reap(&ch)) {
            running = 0;
            lease_end(&lease);
            /* CMD ended by itself: its job is done; resign. */
            if (!lost) return leave(e, c, child_exit_code(&ch));
            if (!ro.rejoin) {
              error_msg("the command was stopped because leadership was lost (exit %d)", EXIT_LOST);
              return leave(e, c, EXIT_LOST);
            }
            info("the command stopped; campaigning again (--rejoin)");
            lost = 0;
            want_start = 1; /* if elected again meanwhile */
          }
          continue;
        }
        if (!running) {
          info("got signal %d (%s) while not leader: leaving the election", sig, strsignal(sig));
          return leave(e, c, 128 + sig);
        }
        child_forward(&ch, &si);
      }
    }

    zkl_event *ev = NULL;
    while (zkl_client_next_event(c, &ev) == 0) {
      int type = zkl_event_type(ev);
      int err = zkl_event_error(ev);
      switch (type) {
        case ZKL_EVENT_SESSION:
          info("session %s", session_state_name(zkl_event_session_state(ev)));
          break;
        case ZKL_EVENT_ELECTED:
          if (!running || lost) want_start = 1;
          else lease_restored(&lease); /* elected again in the same term */
          break;
        case ZKL_EVENT_RESTORED:
          lease_restored(&lease);
          info("reconnected in time: still the leader");
          /* CMD was stopped when the lease ran out (--rejoin): the same
           * term is proven again, so it runs again with the same token. */
          if (!running) want_start = 1;
          break;
        case ZKL_EVENT_NOT_ELECTED:
          info("not the leader: waiting in line");
          break;
        case ZKL_EVENT_SUSPENDED:
          lease_suspended(&lease);
          if (running && !lost && ro.stop_on_suspend) {
            error_msg("connection to ZooKeeper lost: leadership may be lost; stopping the command "
                      "(--stop-on-suspend)");
            lost = 1;
            supervise_stop(&lease, &ch, ro.grace_ms);
          } else {
            info("leadership may be lost (disconnected, or not confirmed by the quorum in time): "
                 "waiting until its lease ends for the session to be confirmed again");
          }
          break;
        case ZKL_EVENT_LOST:
          want_start = 0;
          if (running && !lost) {
            error_msg("leadership of %s lost (%s): stopping the command", ro.path, zkl_strerror(err));
            lost = 1;
            supervise_stop(&lease, &ch, ro.grace_ms);
          } else {
            info("lost the place in the election (%s); rejoining", zkl_strerror(err));
          }
          break;
        default:
          break;
      }
      zkl_event_free(ev);
    }
  }
}
