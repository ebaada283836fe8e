// The public header compiles as C++ too.
#include <zkl.h>

int zkl_header_check_cxx() {
  zkl_lock_options opts;
  return zkl_lock_options_init(&opts, ZKL_LOCK_OPTIONS_VERSION);
}
