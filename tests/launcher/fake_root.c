/* Preloaded into a stranger's process by stranger_user.sh: it claims to be
 * root, as PMIx's native security takes the uid a client reports on trust. */
#include <sys/types.h>

uid_t getuid(void) { return 0; }
uid_t geteuid(void) { return 0; }
gid_t getgid(void) { return 0; }
gid_t getegid(void) { return 0; }
