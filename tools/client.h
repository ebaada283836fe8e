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
/* Creates the client (and wipes the secrets in co: the library copied them);
 * on failure says why (zkl_client_create's message) and exits 125. */
zkl_client *client_new(struct common *co);
/* " (SERVER (LAYER): REASON; ...)": why connecting fails, server by server
 * (zkl_client_connect_error), written to buf; "" when the library keeps
 * no failure. */
const char *connect_detail(zkl_client *c, char *buf, size_t len);
/* zkl_strerror(rc), for a connection failure (ZKL_ECONNECTION,
 * ZKL_ETIMEDOUT, ZKL_ESESSION) with connect_detail; written to buf. */
const char *why_failed(zkl_client *c, int rc, char *buf, size_t len);
/* Waits until the session is up; a signal ends zkl with 128+N, the connect
 * timeout or a rejected connection with an error (exit 125). */
void wait_connected(zkl_client *c, const struct common *co, int sfd);
/* setup_signals + client_new + wait_connected. */
zkl_client *connect_for_query(struct common *co, int *sfd);

#endif
