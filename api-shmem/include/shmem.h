/* Tern's OpenSHMEM interface: OpenSHMEM 1.5, with the deprecated names the
 * 1.5 specification still lists (start_pes, shmalloc, shmem_int_add,
 * *_to_all, shmem_broadcast64, ...), which existing programs still call.
 *
 * The typed families are declared from the type tables below (X-macros), so
 * one table row gives every operation on that type. C11 programs also get
 * the generic macros (shmem_put, shmem_atomic_fetch_add, ...); C++ programs
 * get the same names as overloads (see the end of this file). */
#ifndef TERN_SHMEM_H
#define TERN_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- Library constants */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 64
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "Tern OpenSHMEM"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define TERN_SHMEM 1

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_CTX_PRIVATE (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* pSync/pWrk sizes for the active-set collectives. Tern keeps its own
 * synchronization state, so pSync is only checked for being symmetric. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 16
#define SHMEM_BARRIER_SYNC_SIZE 16
#define SHMEM_BCAST_SYNC_SIZE 16
#define SHMEM_COLLECT_SYNC_SIZE 16
#define SHMEM_REDUCE_SYNC_SIZE 16
#define SHMEM_ALLTOALL_SYNC_SIZE 16
#define SHMEM_ALLTOALLS_SYNC_SIZE 16
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 16
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* --- Handles */
typedef struct tern_shmem_team *shmem_team_t;
typedef struct tern_shmem_ctx *shmem_ctx_t;

typedef struct {
  int num_contexts;
} shmem_team_config_t;

extern shmem_team_t SHMEM_TEAM_WORLD;
extern shmem_team_t SHMEM_TEAM_SHARED;
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
extern shmem_ctx_t SHMEM_CTX_DEFAULT;
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* --- Type tables: X(C type, TYPENAME) */
#define TERN_SHMEM_RMA_TYPES(X)                                                                      \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char) X(signed char, schar) \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned char, uchar)        \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                         \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)            \
  X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
  X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Standard AMO types: every atomic. */
#define TERN_SHMEM_AMO_STANDARD_TYPES(X)                                                         \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32)       \
  X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
/* Extended AMO types: fetch, set and swap only. */
#define TERN_SHMEM_AMO_EXTENDED_TYPES(X) X(float, float) X(double, double)
/* Bitwise AMO types: and, or, xor. */
#define TERN_SHMEM_AMO_BITWISE_TYPES(X)                                                             \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) \
  X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Point-to-point synchronization types: wait_until and test. */
#define TERN_SHMEM_P2P_TYPES(X)                                                                 \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort)     \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)                \
  X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)   \
  X(ptrdiff_t, ptrdiff)

/* Team reductions: and/or/xor; max/min; sum/prod. */
#define TERN_SHMEM_BITWISE_REDUCE_TYPES(X)                                                        \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)            \
  X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
  X(size_t, size)
#define TERN_SHMEM_COMPARE_REDUCE_TYPES(X)                                                       \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)                  \
  X(long long, longlong) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar) X(unsigned short, ushort) \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)                 \
  X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)        \
  X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(float, float)   \
  X(double, double) X(long double, longdouble)
#define TERN_SHMEM_ARITH_REDUCE_TYPES(X) TERN_SHMEM_COMPARE_REDUCE_TYPES(X)

/* Complex sum and product reductions: C, and C++ with the GNU complex types
 * (layout-compatible with std::complex). */
#if !defined(__cplusplus)
#define TERN_SHMEM_COMPLEX_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)
#elif defined(__GNUC__)
#define TERN_SHMEM_COMPLEX_TYPES(X) X(__complex__ double, complexd) X(__complex__ float, complexf)
#endif

/* Active-set reductions (*_to_all). */
#define TERN_SHMEM_TO_ALL_BITWISE_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define TERN_SHMEM_TO_ALL_COMPARE_TYPES(X)                                                 \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(float, float)         \
  X(double, double) X(long double, longdouble)
#define TERN_SHMEM_TO_ALL_ARITH_TYPES(X) TERN_SHMEM_TO_ALL_COMPARE_TYPES(X)

/* Sizes of the sized RMA routines: X(bits) */
#define TERN_SHMEM_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* --- Library setup, exit, and query */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);

/* Deprecated library names. */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);
int shmem_num_pes(void); /* not standard; kept for old codes */
void globalexit(int status);

/* --- Teams */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                        long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);

/* --- Contexts */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* --- Memory management */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void *shmem_align(size_t alignment, size_t size);
void shmem_free(void *ptr);
void *shmem_malloc_with_hints(size_t size, long hints);
void *shmalloc(size_t size);
void shfree(void *ptr);
void *shrealloc(void *ptr, size_t size);
void *shmemalign(size_t alignment, size_t size);

/* --- RMA */
#define TERN_SHMEM_DECLARE_RMA(T, N)                                                                          \
  void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                                       \
  void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);                  \
  void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                                       \
  void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);                  \
  void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);                                   \
  void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);              \
  void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);                                   \
  void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);              \
  void shmem_##N##_p(T *dest, T value, int pe);                                                                \
  void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                                           \
  T shmem_##N##_g(const T *source, int pe);                                                                    \
  T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                                               \
  void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);        \
  void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,           \
                            size_t nelems, int pe);                                                            \
  void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);        \
  void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,           \
                            size_t nelems, int pe);                                                            \
  void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,    \
                              int sig_op, int pe);                                                             \
  void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,                    \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);                    \
  void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,                 \
                                  uint64_t signal, int sig_op, int pe);                                        \
  void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,                \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
TERN_SHMEM_RMA_TYPES(TERN_SHMEM_DECLARE_RMA)

#define TERN_SHMEM_DECLARE_SIZED(B)                                                                            \
  void shmem_put##B(void *dest, const void *source, size_t nelems, int pe);                                    \
  void shmem_ctx_put##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);               \
  void shmem_get##B(void *dest, const void *source, size_t nelems, int pe);                                    \
  void shmem_ctx_get##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);               \
  void shmem_put##B##_nbi(void *dest, const void *source, size_t nelems, int pe);                              \
  void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);         \
  void shmem_get##B##_nbi(void *dest, const void *source, size_t nelems, int pe);                              \
  void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);         \
  void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);     \
  void shmem_ctx_iput##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,        \
                         size_t nelems, int pe);                                                               \
  void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);     \
  void shmem_ctx_iget##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,        \
                         size_t nelems, int pe);                                                               \
  void shmem_put##B##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,                \
                             uint64_t signal, int sig_op, int pe);                                             \
  void shmem_ctx_put##B##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,               \
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);                     \
  void shmem_put##B##_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,            \
                                 uint64_t signal, int sig_op, int pe);                                         \
  void shmem_ctx_put##B##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,           \
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
TERN_SHMEM_SIZES(TERN_SHMEM_DECLARE_SIZED)

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                         int sig_op, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                             int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* --- Atomic memory operations */
#define TERN_SHMEM_DECLARE_AMO_EXTENDED(T, N)                                                        \
  T shmem_##N##_atomic_fetch(const T *source, int pe);                                              \
  T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);                         \
  void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);                             \
  void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe);        \
  void shmem_##N##_atomic_set(T *dest, T value, int pe);                                            \
  void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);                       \
  T shmem_##N##_atomic_swap(T *dest, T value, int pe);                                              \
  T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);                         \
  void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);                             \
  void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
TERN_SHMEM_AMO_STANDARD_TYPES(TERN_SHMEM_DECLARE_AMO_EXTENDED)
TERN_SHMEM_AMO_EXTENDED_TYPES(TERN_SHMEM_DECLARE_AMO_EXTENDED)

#define TERN_SHMEM_DECLARE_AMO_STANDARD(T, N)                                                               \
  T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                                     \
  T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe);                \
  void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe);                    \
  void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond, T value, int pe); \
  T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                                         \
  T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);                                    \
  void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                                        \
  void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe);                   \
  void shmem_##N##_atomic_inc(T *dest, int pe);                                                            \
  void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);                                       \
  T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                                                \
  T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);                           \
  void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);                               \
  void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);          \
  void shmem_##N##_atomic_add(T *dest, T value, int pe);                                                   \
  void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);
TERN_SHMEM_AMO_STANDARD_TYPES(TERN_SHMEM_DECLARE_AMO_STANDARD)

#define TERN_SHMEM_DECLARE_AMO_BITWISE_OP(T, N, OP)                                               \
  T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);                                     \
  T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);                \
  void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe);                  \
  void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe); \
  void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                                        \
  void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);
#define TERN_SHMEM_DECLARE_AMO_BITWISE(T, N) \
  TERN_SHMEM_DECLARE_AMO_BITWISE_OP(T, N, and) \
  TERN_SHMEM_DECLARE_AMO_BITWISE_OP(T, N, or) TERN_SHMEM_DECLARE_AMO_BITWISE_OP(T, N, xor)
TERN_SHMEM_AMO_BITWISE_TYPES(TERN_SHMEM_DECLARE_AMO_BITWISE)

/* Deprecated AMO names (int, long, longlong; fetch/set/swap also float, double). */
#define TERN_SHMEM_DECLARE_AMO_DEPRECATED(T, N)            \
  T shmem_##N##_cswap(T *dest, T cond, T value, int pe); \
  T shmem_##N##_finc(T *dest, int pe);                   \
  void shmem_##N##_inc(T *dest, int pe);                 \
  T shmem_##N##_fadd(T *dest, T value, int pe);          \
  void shmem_##N##_add(T *dest, T value, int pe);
#define TERN_SHMEM_DECLARE_AMO_DEPRECATED_EXT(T, N) \
  T shmem_##N##_fetch(const T *source, int pe);     \
  void shmem_##N##_set(T *dest, T value, int pe);   \
  T shmem_##N##_swap(T *dest, T value, int pe);
#define TERN_SHMEM_DEPRECATED_AMO_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
TERN_SHMEM_DEPRECATED_AMO_TYPES(TERN_SHMEM_DECLARE_AMO_DEPRECATED)
TERN_SHMEM_DEPRECATED_AMO_TYPES(TERN_SHMEM_DECLARE_AMO_DEPRECATED_EXT)
TERN_SHMEM_DECLARE_AMO_DEPRECATED_EXT(float, float)
TERN_SHMEM_DECLARE_AMO_DEPRECATED_EXT(double, double)

/* --- Collectives (team based) */
int shmem_team_sync(shmem_team_t team);
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems);
#define TERN_SHMEM_DECLARE_COLL(T, N)                                                                      \
  int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root);     \
  int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);                    \
  int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);                   \
  int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);                   \
  int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                            size_t nelems);
TERN_SHMEM_RMA_TYPES(TERN_SHMEM_DECLARE_COLL)

#define TERN_SHMEM_DECLARE_REDUCE(T, N, OP) \
  int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define TERN_SHMEM_DECLARE_REDUCE_BITWISE(T, N) \
  TERN_SHMEM_DECLARE_REDUCE(T, N, and) TERN_SHMEM_DECLARE_REDUCE(T, N, or) TERN_SHMEM_DECLARE_REDUCE(T, N, xor)
#define TERN_SHMEM_DECLARE_REDUCE_COMPARE(T, N) \
  TERN_SHMEM_DECLARE_REDUCE(T, N, max) TERN_SHMEM_DECLARE_REDUCE(T, N, min)
#define TERN_SHMEM_DECLARE_REDUCE_ARITH(T, N) \
  TERN_SHMEM_DECLARE_REDUCE(T, N, sum) TERN_SHMEM_DECLARE_REDUCE(T, N, prod)
TERN_SHMEM_BITWISE_REDUCE_TYPES(TERN_SHMEM_DECLARE_REDUCE_BITWISE)
TERN_SHMEM_COMPARE_REDUCE_TYPES(TERN_SHMEM_DECLARE_REDUCE_COMPARE)
TERN_SHMEM_ARITH_REDUCE_TYPES(TERN_SHMEM_DECLARE_REDUCE_ARITH)
#ifdef TERN_SHMEM_COMPLEX_TYPES
TERN_SHMEM_COMPLEX_TYPES(TERN_SHMEM_DECLARE_REDUCE_ARITH)
#endif

/* --- Collectives (active sets, deprecated in 1.5 but everywhere) */
void shmem_barrier_all(void);
void shmem_sync_all(void);
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_broadcast32(void *dest, const void *source, size_t nelems, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long *pSync);
void shmem_broadcast64(void *dest, const void *source, size_t nelems, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long *pSync);
void shmem_collect32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,
                     int PE_size, long *pSync);
void shmem_collect64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,
                     int PE_size, long *pSync);
void shmem_fcollect32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,
                      int PE_size, long *pSync);
void shmem_fcollect64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,
                      int PE_size, long *pSync);
void shmem_alltoall32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,
                      int PE_size, long *pSync);
void shmem_alltoall64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,
                      int PE_size, long *pSync);
void shmem_alltoalls32(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                       int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_alltoalls64(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                       int PE_start, int logPE_stride, int PE_size, long *pSync);
#define TERN_SHMEM_DECLARE_TO_ALL(T, N, OP)                                                             \
  void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, \
                                 int PE_size, T *pWrk, long *pSync);
#define TERN_SHMEM_DECLARE_TO_ALL_BITWISE(T, N) \
  TERN_SHMEM_DECLARE_TO_ALL(T, N, and) TERN_SHMEM_DECLARE_TO_ALL(T, N, or) TERN_SHMEM_DECLARE_TO_ALL(T, N, xor)
#define TERN_SHMEM_DECLARE_TO_ALL_COMPARE(T, N) \
  TERN_SHMEM_DECLARE_TO_ALL(T, N, max) TERN_SHMEM_DECLARE_TO_ALL(T, N, min)
#define TERN_SHMEM_DECLARE_TO_ALL_ARITH(T, N) \
  TERN_SHMEM_DECLARE_TO_ALL(T, N, sum) TERN_SHMEM_DECLARE_TO_ALL(T, N, prod)
TERN_SHMEM_TO_ALL_BITWISE_TYPES(TERN_SHMEM_DECLARE_TO_ALL_BITWISE)
TERN_SHMEM_TO_ALL_COMPARE_TYPES(TERN_SHMEM_DECLARE_TO_ALL_COMPARE)
TERN_SHMEM_TO_ALL_ARITH_TYPES(TERN_SHMEM_DECLARE_TO_ALL_ARITH)
#ifdef TERN_SHMEM_COMPLEX_TYPES
TERN_SHMEM_COMPLEX_TYPES(TERN_SHMEM_DECLARE_TO_ALL_ARITH)
#endif

/* --- Memory ordering */
void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);

/* --- Point-to-point synchronization */
#define TERN_SHMEM_DECLARE_P2P(T, N)                                                                          \
  void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                                                 \
  void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);          \
  size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);        \
  size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,    \
                                     T cmp_value);                                                            \
  void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,                 \
                                         const T *cmp_values);                                                      \
  size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,               \
                                           const T *cmp_values);                                                    \
  size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status,      \
                                            int cmp, const T *cmp_values);                                          \
  int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                                        \
  int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);                 \
  size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);              \
  size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,          \
                               T cmp_value);                                                                  \
  int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values);        \
  size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values);     \
  size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,   \
                                      const T *cmp_values);
TERN_SHMEM_P2P_TYPES(TERN_SHMEM_DECLARE_P2P)

/* Deprecated: wait while *ivar == cmp_value. */
#define TERN_SHMEM_DECLARE_WAIT_DEPRECATED(T, N) void shmem_##N##_wait(T *ivar, T cmp_value);
TERN_SHMEM_DECLARE_WAIT_DEPRECATED(short, short)
TERN_SHMEM_DECLARE_WAIT_DEPRECATED(int, int)
TERN_SHMEM_DECLARE_WAIT_DEPRECATED(long, long)
TERN_SHMEM_DECLARE_WAIT_DEPRECATED(long long, longlong)
void shmem_wait(long *ivar, long cmp_value);
void shmem_wait_until(long *ivar, int cmp, long cmp_value);

/* --- Distributed locking */
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* --- Cache management (deprecated no-ops: memory is coherent) */
void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_set_cache_line_inv(void *dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void *dest);

#ifdef __cplusplus
} /* extern "C" */
#endif

#include "shmem_generic.h"

#endif /* TERN_SHMEM_H */
