// shmemx.h: the extensions beyond OpenSHMEM 1.5 that are not collectives
// (the signed bitwise reductions live with the others in coll.cpp).
#include <unistd.h>

#include <climits>
#include <cstring>
#include <ctime>

#include "shmemx.h"

namespace {

// HOST_NAME_MAX leaves out the terminating zero.
char g_nodename[HOST_NAME_MAX + 1];

}  // namespace

extern "C" {

double shmemx_wtime(void) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

char* shmemx_nodename(void) {
  if (g_nodename[0] == '\0') {
    if (gethostname(g_nodename, sizeof(g_nodename)) != 0) std::strcpy(g_nodename, "unknown");
    g_nodename[sizeof(g_nodename) - 1] = '\0';
  }
  return g_nodename;
}

}  // extern "C"
