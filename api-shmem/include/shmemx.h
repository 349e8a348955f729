/* Tern's OpenSHMEM extensions: what Tern offers beyond OpenSHMEM 1.5, and
 * the extensions of other implementations that programs written for them
 * call (Sandia OpenSHMEM's signed bitwise reductions), so that a program
 * that includes <shmemx.h> builds unchanged.
 *
 *   shmemx_wtime()     seconds of a monotonic clock, for timing; only
 *                      differences mean anything
 *   shmemx_nodename()  the name of the host this PE runs on (a string the
 *                      library owns)
 *   shmem_{short,int,long,longlong}_{and,or,xor}_reduce
 *                      team reductions of the signed integer types, which
 *                      the specification gives to the unsigned and fixed
 *                      width types only (their *_to_all forms are in
 *                      shmem.h, as the specification lists them) */
#ifndef TERN_SHMEMX_H
#define TERN_SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TERN_SHMEMX 1

double shmemx_wtime(void);
char *shmemx_nodename(void);

/* Signed integer types for the bitwise team reductions: X(type, name) */
#define TERN_SHMEMX_SIGNED_BITWISE_REDUCE_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
TERN_SHMEMX_SIGNED_BITWISE_REDUCE_TYPES(TERN_SHMEM_DECLARE_REDUCE_BITWISE)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TERN_SHMEMX_H */
