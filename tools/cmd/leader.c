/*
 * zkl leader: the current leader of an election (--watch: every change).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <zkl.h>

#include "../client.h"
#include "../options.h"
#include "../util.h"
#include "cmds.h"

const char leader_help[] =
    "Usage: zkl leader [OPTIONS] PATH\n"
    "\n"
    "Prints the id of the current leader of the election PATH, without taking\n"
    "part in it.\n"
    "\n"
    "Leader options:\n"
    "  --unfair     the election is an unfair one (zkl elect --unfair)\n"
    "  --fair       the election is a fair one (default)\n"
    "  --watch      keep running and print a line each time the leader changes\n"
    "               (\"-\" when there is none) until interrupted\n"
    "  --terms      add the leader's term (its fencing token, strictly increasing\n"
    "               across leaders) to each line: \"ID TERM\"; with --watch a new\n"
    "               term of the same leader prints a line too, a leaderless\n"
    "               period prints \"- TERM\" (the term that ended) and the next\n"
    "               leader's line ends with how long there was none\n"
    "  --json       one JSON object per line: {\"leader\":ID|null,\"term\":N|null,\n"
    "               \"time_ms\":UNIX_MS} plus, with --watch, \"previous_term\" and\n"
    "               \"leaderless_ms\" (after a period without a leader)\n"
    "\n"
    "%s"
    "\n"
    "Exit status: 0 printed, 1 there is no leader (not with --watch), 125 error.\n";

struct watch_state {
  int terms, json;
  uint64_t prev_term;   /* last leader's term, 0 none */
  int64_t leaderless_since; /* monotonic ms, -1 while a leader is known */
};

static void print_line(struct watch_state *w, const char *id, size_t len, uint64_t term, int watch) {
  int64_t gap = -1;
  if (watch && term && w->leaderless_since >= 0 && w->prev_term) gap = now_ms() - w->leaderless_since;
  if (w->json) {
    printf("{\"leader\":");
    if (term) json_string(stdout, id, len);
    else fputs("null", stdout);
    if (term) printf(",\"term\":%" PRIu64, term);
    else fputs(",\"term\":null", stdout);
    if (watch && w->prev_term) printf(",\"previous_term\":%" PRIu64, w->prev_term);
    if (gap >= 0) printf(",\"leaderless_ms\":%" PRId64, gap);
    printf(",\"time_ms\":%" PRId64 "}\n", wall_ms());
  } else if (!term) {
    if (w->terms && w->prev_term) printf("- %" PRIu64 "\n", w->prev_term);
    else fputs("-\n", stdout);
  } else {
    if (len == 0 && !w->terms) fputc('-', stdout); /* as before: an empty id */
    fwrite(id, 1, len, stdout);
    if (w->terms) {
      printf(" %" PRIu64, term);
      if (gap >= 0) {
        char d[32];
        format_duration(gap, d, sizeof d);
        printf(" (after %s without a leader)", d);
      }
    }
    fputc('\n', stdout);
  }
  fflush(stdout);
  if (term) {
    w->prev_term = term;
    w->leaderless_since = -1;
  } else if (w->leaderless_since < 0) {
    w->leaderless_since = now_ms();
  }
}

static int leader_once(zkl_client *c, const char *path, int kind, const struct common *co,
                       struct watch_state *w) {
  zkl_participants *p = NULL;
  zkl_inspect_options io;
  zkl_inspect_options_init(&io, ZKL_INSPECT_OPTIONS_VERSION);
  io.election_kind = kind;
  io.timeout_ms = co->connect_timeout_ms;
  int rc = zkl_inspect(c, path, &io, &p);
  if (rc != 0) {
    char why[1200];
    why_failed(c, rc, why, sizeof why);
    zkl_client_destroy(c);
    if (rc == ZKL_EBADPATH) bad_path(path, rc);
    die(EXIT_ZKL, "cannot read %s: %s", path, why);
  }
  int status = EXIT_NOLEADER;
  for (int i = 0; i < zkl_participants_count(p); i++) {
    if (zkl_participants_is_holder(p, (size_t)i) != 1) continue;
    const char *data = "";
    size_t len = 0;
    uint64_t term = 0;
    zkl_participants_data(p, (size_t)i, &data, &len);
    zkl_participants_fencing_token(p, (size_t)i, &term);
    print_line(w, data, len, term ? term : 1, 0);
    status = 0;
    break;
  }
  zkl_participants_free(p);
  zkl_client_destroy(c);
  if (status == EXIT_NOLEADER) {
    if (w->json) print_line(w, "", 0, 0, 0);
    error_msg("%s has no leader", path);
  }
  return status;
}

int cmd_leader(int argc, char **argv) {
  struct common co;
  common_init(&co);
  const char *path = NULL;
  int kind = ZKL_ELECTION_FAIR, watch = 0;
  struct watch_state w = {0, 0, 0, -1};
  struct scan s;
  scan_init(&s, argc, argv, "leader ");
  while (next_option(&s, &co, &path, leader_help)) {
    if (is(&s, "--unfair")) {
      no_value(&s);
      kind = ZKL_ELECTION_NONFAIR;
    } else if (is(&s, "--fair")) {
      no_value(&s);
      kind = ZKL_ELECTION_FAIR;
    } else if (is(&s, "--watch")) {
      watch = flag_value(&s);
    } else if (is(&s, "--terms")) {
      w.terms = flag_value(&s);
    } else if (is(&s, "--json")) {
      w.json = flag_value(&s);
    } else {
      unknown_option(&s);
    }
  }
  require_path(&s, path);
  common_finish(&co, s.cmd);

  int sfd;
  zkl_client *c = connect_for_query(&co, &sfd);
  if (!watch) return leader_once(c, path, kind, &co, &w);

  zkl_observer *o = NULL;
  zkl_observer_options oo;
  zkl_observer_options_init(&oo, ZKL_OBSERVER_OPTIONS_VERSION);
  oo.kind = kind;
  int rc = zkl_observer_new(c, path, &oo, &o);
  if (rc != 0) {
    zkl_client_destroy(c);
    bad_path(path, rc);
  }
  int zfd = zkl_client_fd(c);
  for (;;) {
    struct pollfd p[2] = {{zfd, POLLIN, 0}, {sfd, POLLIN, 0}};
    if (poll(p, 2, -1) < 0 && errno != EINTR) die(EXIT_ZKL, "poll: %s", strerror(errno));
    if (p[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      int sig;
      while ((sig = read_signal(sfd, &si)) != 0) {
        if (sig == SIGCHLD) continue;
        zkl_observer_destroy(o);
        zkl_client_destroy(c);
        return sig == SIGINT || sig == SIGTERM ? 0 : 128 + sig;
      }
    }
    zkl_event *ev = NULL;
    while (zkl_client_next_event(c, &ev) == 0) {
      int type = zkl_event_type(ev);
      if (type == ZKL_EVENT_LEADER_CHANGED || type == ZKL_EVENT_NO_LEADER) {
        const char *data = NULL;
        size_t len = 0;
        uint64_t term = 0;
        zkl_event_data(ev, &data, &len);
        zkl_event_fencing_token(ev, &term);
        if (type == ZKL_EVENT_NO_LEADER) term = 0;
        else if (term == 0) term = 1; /* a leader without a known term */
        print_line(&w, data ? data : "", type == ZKL_EVENT_NO_LEADER ? 0 : len, term, 1);
      } else if (type == ZKL_EVENT_SESSION) {
        info("session %s", session_state_name(zkl_event_session_state(ev)));
      }
      zkl_event_free(ev);
    }
  }
}
