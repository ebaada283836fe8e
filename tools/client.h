/*
 * The ZooKeeper client of a zkl command: signals (a signalfd), creating the
 * client from the connection options, waiting for the session.
 */
#ifndef ZKL_TOOLS_CLIENT_H
#define ZKL_TOOLS_CLIENT_H

#include <signal.h>
#include <sys/signalfd.h>

#include <zkl.h>

#include "options.h"

extern sigset_t orig_mask;

/* Blocks the signals zkl handles and returns a signalfd for them. */
int setup_signals(void);
/* Reads one pending signal; 0 if none. */
int read_signal(int sfd, struct signalfd_siginfo *si);
const char *session_state_name(int s);
/* Creates the client (and wipes the secrets in co: the library copied them). */
zkl_client *client_new(struct common *co);
/* Waits until the session is up; a signal ends zkl with 128+N, the connect
 * timeout or a rejected connection with an error (exit 125). */
void wait_connected(zkl_client *c, const struct common *co, int sfd);
/* setup_signals + client_new + wait_connected. */
zkl_client *connect_for_query(struct common *co, int *sfd);

#endif
