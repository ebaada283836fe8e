/* Compiled with -std=c99 -pedantic -Werror: the public header is plain C. */
#include <zkl.h>

int zkl_header_check_c(void) {
  zkl_client_options opts;
  return zkl_client_options_init(&opts, ZKL_CLIENT_OPTIONS_VERSION);
}
