/* Generic names over the typed OpenSHMEM routines: C11 _Generic macros for C,
 * overloads for C++. Included by shmem.h. */
#ifndef TERN_SHMEM_GENERIC_H
#define TERN_SHMEM_GENERIC_H
#endif
