/* Preloaded into ternrun by stuck_server.sh: its PMIx server never finishes
 * shutting down, as once after a client it refused half way. ternrun must
 * end all the same. */
#include <unistd.h>

int PMIx_server_finalize(void) {
  for (;;) pause();
}
