/* Command-line values shared by the MPI and OpenSHMEM benchmark utilities:
 * sizes with K/M/G suffixes, counts, and MIN:MAX size ranges. Plain C with
 * no MPI or SHMEM, so both osu_util.c and osu_oshm_util.c include it (each
 * benchmark is built from its own source and one utility file). */
#ifndef TERN_OSU_ARGS_H
#define TERN_OSU_ARGS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "4096", "64K", "8M", "1G" (binary multiples); 0 on junk or a sign. */
static inline int osu_parse_size(const char *text, size_t *out) {
  char *end = NULL;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 10);
  if (end == text || errno != 0 || text[0] == '-') return 0;
  switch (*end) {
    case 'k': case 'K': value <<= 10; ++end; break;
    case 'm': case 'M': value <<= 20; ++end; break;
    case 'g': case 'G': value <<= 30; ++end; break;
    default: break;
  }
  if (*end != '\0') return 0;
  *out = (size_t)value;
  return 1;
}

/* A count from 0 to 10^9; 0 on junk. */
static inline int osu_parse_count(const char *text, int *out) {
  char *end = NULL;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || value < 0 || value > 1000000000L) return 0;
  *out = (int)value;
  return 1;
}

/* "MAX" or "MIN:MAX" into the range (MIN kept when absent); 0 when bad or MIN > MAX. */
static inline int osu_parse_size_range(const char *text, size_t *min_size, size_t *max_size) {
  char buffer[64];
  snprintf(buffer, sizeof(buffer), "%s", text);
  char *colon = strchr(buffer, ':');
  int ok;
  if (colon != NULL) {
    *colon = '\0';
    ok = osu_parse_size(buffer, min_size) && osu_parse_size(colon + 1, max_size);
  } else {
    ok = osu_parse_size(buffer, max_size);
  }
  return ok && *min_size <= *max_size;
}

#endif
