/* Generic names over the typed OpenSHMEM routines: C11 _Generic macros for C,
 * overloads for C++. Included by shmem.h, at its end.
 *
 * OpenSHMEM 1.5 gives C11 programs one name per operation (shmem_put,
 * shmem_atomic_fetch_add, shmem_wait_until, shmem_sum_reduce, ...) that
 * picks the typed routine (shmem_TYPENAME_put, ...) from the element type of
 * a pointer argument: dest (source for shmem_g and shmem_atomic_fetch, fetch
 * for the fetching _nbi atomics, ivar(s) for point-to-point synchronization).
 * The RMA and AMO names also take an optional leading shmem_ctx_t and then
 * call shmem_ctx_TYPENAME_*; the collectives take the team first.
 *
 *   C11 and later: function-like macros built on _Generic. The context form
 *     is told apart from the plain one by its argument count (it has one
 *     more). A pointer to a type the operation lacks does not compile.
 *   C++: the same names as inline overloads, with the context forms as
 *     further overloads.
 *   C before C11: nothing; use the typed names.
 *
 * The deprecated generic names that OpenSHMEM 1.3 programs use (shmem_cswap,
 * shmem_swap, shmem_finc, shmem_inc, shmem_fadd, shmem_add, shmem_fetch,
 * shmem_set and shmem_wait) are provided as well, over the types that have
 * typed routines for them.
 *
 * The typed routines are declared in shmem.h from tables that name fixed
 * width and other typedefs (int64_t, size_t, ...). Those are not types of
 * their own: int64_t is long, size_t is unsigned long, ... on Linux. A
 * _Generic listing a type twice does not compile, and C++ overloads on both
 * would be redefinitions, so the generic names are built from the tables
 * below, which list each type once: the C fundamental types the operation
 * supports, plus, where the operation takes an exact-width type whose
 * fundamental type it does not otherwise take (the signed types of the
 * bitwise operations), that exact-width type. A call on an int64_t, size_t,
 * uint32_t, ... pointer reaches the routine of the underlying type, which is
 * the same operation on the same type. */
#ifndef TERN_SHMEM_GENERIC_H
#define TERN_SHMEM_GENERIC_H

#include "shmem.h"

/* --- Type tables: X(C type, TYPENAME, P), each type listed once; P is passed
 * through to X. */

/* Standard RMA types: RMA and team collectives (broadcast, collect, fcollect,
 * alltoall, alltoalls); the same types have max/min and sum/prod reductions. */
#define TERN_SHMEM_GENERIC_RMA_TYPES(X, P)                                               \
  X(float, float, P) X(double, double, P) X(long double, longdouble, P) X(char, char, P) \
  X(signed char, schar, P) X(short, short, P) X(int, int, P) X(long, long, P)            \
  X(long long, longlong, P) X(unsigned char, uchar, P) X(unsigned short, ushort, P)      \
  X(unsigned int, uint, P) X(unsigned long, ulong, P) X(unsigned long long, ulonglong, P)
#define TERN_SHMEM_GENERIC_COMPARE_REDUCE_TYPES(X, P) TERN_SHMEM_GENERIC_RMA_TYPES(X, P)
#if !defined(__cplusplus)
#define TERN_SHMEM_GENERIC_ARITH_REDUCE_TYPES(X, P) \
  TERN_SHMEM_GENERIC_RMA_TYPES(X, P) X(double _Complex, complexd, P) X(float _Complex, complexf, P)
#elif defined(__GNUC__)
#define TERN_SHMEM_GENERIC_ARITH_REDUCE_TYPES(X, P) \
  TERN_SHMEM_GENERIC_RMA_TYPES(X, P) X(__complex__ double, complexd, P) X(__complex__ float, complexf, P)
#else
#define TERN_SHMEM_GENERIC_ARITH_REDUCE_TYPES(X, P) TERN_SHMEM_GENERIC_RMA_TYPES(X, P)
#endif

/* Bitwise reductions (and, or, xor): the unsigned types and int8_t..int64_t. */
#define TERN_SHMEM_GENERIC_BITWISE_REDUCE_TYPES(X, P)                               \
  X(unsigned char, uchar, P) X(unsigned short, ushort, P) X(unsigned int, uint, P)  \
  X(unsigned long, ulong, P) X(unsigned long long, ulonglong, P) X(int8_t, int8, P) \
  X(int16_t, int16, P) X(int32_t, int32, P) X(int64_t, int64, P)

/* Standard AMO types: every atomic. */
#define TERN_SHMEM_GENERIC_AMO_STANDARD_TYPES(X, P)                                  \
  X(int, int, P) X(long, long, P) X(long long, longlong, P) X(unsigned int, uint, P) \
  X(unsigned long, ulong, P) X(unsigned long long, ulonglong, P)
/* Extended AMO types: fetch, set and swap. */
#define TERN_SHMEM_GENERIC_AMO_EXTENDED_TYPES(X, P) \
  TERN_SHMEM_GENERIC_AMO_STANDARD_TYPES(X, P) X(float, float, P) X(double, double, P)
/* Bitwise AMO types: and, or, xor. */
#define TERN_SHMEM_GENERIC_AMO_BITWISE_TYPES(X, P)                                        \
  X(unsigned int, uint, P) X(unsigned long, ulong, P) X(unsigned long long, ulonglong, P) \
  X(int32_t, int32, P) X(int64_t, int64, P)

/* Point-to-point synchronization types: wait_until and test. In C++ the long
 * overload of shmem_wait_until is the deprecated extern "C" routine of that
 * name, so the table comes in two parts. */
#define TERN_SHMEM_GENERIC_P2P_TYPES_BUT_LONG(X, P)                                        \
  X(short, short, P) X(int, int, P) X(long long, longlong, P) X(unsigned short, ushort, P) \
  X(unsigned int, uint, P) X(unsigned long, ulong, P) X(unsigned long long, ulonglong, P)
#define TERN_SHMEM_GENERIC_P2P_TYPES(X, P) X(long, long, P) TERN_SHMEM_GENERIC_P2P_TYPES_BUT_LONG(X, P)

/* Deprecated names: cswap, finc, inc, fadd, add; fetch, set, swap also on
 * float and double; wait (whose long form is an extern "C" routine). */
#define TERN_SHMEM_GENERIC_DEPRECATED_AMO_TYPES(X, P) X(int, int, P) X(long, long, P) X(long long, longlong, P)
#define TERN_SHMEM_GENERIC_DEPRECATED_AMO_EXTENDED_TYPES(X, P) \
  TERN_SHMEM_GENERIC_DEPRECATED_AMO_TYPES(X, P) X(float, float, P) X(double, double, P)
#define TERN_SHMEM_GENERIC_DEPRECATED_WAIT_TYPES_BUT_LONG(X, P) \
  X(short, short, P) X(int, int, P) X(long long, longlong, P)
#define TERN_SHMEM_GENERIC_DEPRECATED_WAIT_TYPES(X, P) \
  X(long, long, P) TERN_SHMEM_GENERIC_DEPRECATED_WAIT_TYPES_BUT_LONG(X, P)

/* Below, OP is the part of a routine's name after its TYPENAME, with the
 * leading underscore (_put, _atomic_fetch_add, _and_reduce, ...): glued onto
 * shmem_TYPENAME it names the typed routine, onto shmem the generic one. The
 * underscore keeps it from being a word a program might #define. */

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* ===================================================================== C11 */

#define TERN_SHMEM_CAT(a, b) TERN_SHMEM_CAT_(a, b)
#define TERN_SHMEM_CAT_(a, b) a##b
#define TERN_SHMEM_FIRST(...) TERN_SHMEM_FIRST_(__VA_ARGS__, ~)
#define TERN_SHMEM_FIRST_(a, ...) a
#define TERN_SHMEM_SECOND(...) TERN_SHMEM_SECOND_(__VA_ARGS__, ~)
#define TERN_SHMEM_SECOND_(a, b, ...) b

/* One association of a generic selection, comma first so that a table makes
 * the whole association list: ", int: shmem_int_put, long: shmem_long_put". */
#define TERN_SHMEM_C11_ASSOC(T, N, OP) , T : shmem_##N##OP
#define TERN_SHMEM_C11_ASSOC_CTX(T, N, OP) , T : shmem_ctx_##N##OP

/* Call the routine of TYPES/OP for the element type of the first or second
 * argument. Dereferencing gives the element type, without qualifiers (the
 * controlling expression of _Generic undergoes lvalue conversion), so int *,
 * const int * and int[] all select the int routine. */
#define TERN_SHMEM_C11_ON_1ST(TYPES, OP, ...) \
  _Generic(*(TERN_SHMEM_FIRST(__VA_ARGS__)) TYPES(TERN_SHMEM_C11_ASSOC, OP))(__VA_ARGS__)
#define TERN_SHMEM_C11_ON_2ND(TYPES, OP, ...) \
  _Generic(*(TERN_SHMEM_SECOND(__VA_ARGS__)) TYPES(TERN_SHMEM_C11_ASSOC, OP))(__VA_ARGS__)
#define TERN_SHMEM_C11_CTX_ON_2ND(TYPES, OP, ...) \
  _Generic(*(TERN_SHMEM_SECOND(__VA_ARGS__)) TYPES(TERN_SHMEM_C11_ASSOC_CTX, OP))(__VA_ARGS__)

/* An RMA or AMO call of K arguments, or K + 1 with a context first: the
 * selector TERN_SHMEM_C11_ARITY_K returns what lands in the slot after its
 * K + 1 argument slots: the context form when the call's arguments fill
 * them, the plain form when they are one short, and a compile-time error
 * when they are fewer. */
#define TERN_SHMEM_C11_WITH_CTX(K, TYPES, OP, ...)                                          \
  TERN_SHMEM_CAT(TERN_SHMEM_C11_ARITY_, K)                                                  \
  (__VA_ARGS__, TERN_SHMEM_C11_CTX_ON_2ND, TERN_SHMEM_C11_ON_1ST, TERN_SHMEM_C11_BAD_ARITY, \
   TERN_SHMEM_C11_BAD_ARITY, TERN_SHMEM_C11_BAD_ARITY, TERN_SHMEM_C11_BAD_ARITY,            \
   TERN_SHMEM_C11_BAD_ARITY, TERN_SHMEM_C11_BAD_ARITY, TERN_SHMEM_C11_BAD_ARITY, ~)(TYPES, OP, __VA_ARGS__)
#define TERN_SHMEM_C11_BAD_ARITY(TYPES, OP, ...) \
  ((void)sizeof(struct { _Static_assert(0, "shmem" #OP ": wrong number of arguments"); int tern_shmem_unused; }))
#define TERN_SHMEM_C11_ARITY_2(a1, a2, a3, F, ...) F
#define TERN_SHMEM_C11_ARITY_3(a1, a2, a3, a4, F, ...) F
#define TERN_SHMEM_C11_ARITY_4(a1, a2, a3, a4, a5, F, ...) F
#define TERN_SHMEM_C11_ARITY_5(a1, a2, a3, a4, a5, a6, F, ...) F
#define TERN_SHMEM_C11_ARITY_6(a1, a2, a3, a4, a5, a6, a7, F, ...) F
#define TERN_SHMEM_C11_ARITY_7(a1, a2, a3, a4, a5, a6, a7, a8, F, ...) F

#define TERN_SHMEM_C11_RMA(K, OP, ...) TERN_SHMEM_C11_WITH_CTX(K, TERN_SHMEM_GENERIC_RMA_TYPES, OP, __VA_ARGS__)
#define TERN_SHMEM_C11_AMO_STANDARD(K, OP, ...) \
  TERN_SHMEM_C11_WITH_CTX(K, TERN_SHMEM_GENERIC_AMO_STANDARD_TYPES, OP, __VA_ARGS__)
#define TERN_SHMEM_C11_AMO_EXTENDED(K, OP, ...) \
  TERN_SHMEM_C11_WITH_CTX(K, TERN_SHMEM_GENERIC_AMO_EXTENDED_TYPES, OP, __VA_ARGS__)
#define TERN_SHMEM_C11_AMO_BITWISE(K, OP, ...) \
  TERN_SHMEM_C11_WITH_CTX(K, TERN_SHMEM_GENERIC_AMO_BITWISE_TYPES, OP, __VA_ARGS__)
#define TERN_SHMEM_C11_P2P(OP, ...) TERN_SHMEM_C11_ON_1ST(TERN_SHMEM_GENERIC_P2P_TYPES, OP, __VA_ARGS__)

/* --- RMA: ([ctx,] dest, ...), on dest; shmem_g ([ctx,] source, pe), on source. */
#define shmem_put(...) TERN_SHMEM_C11_RMA(4, _put, __VA_ARGS__)
#define shmem_get(...) TERN_SHMEM_C11_RMA(4, _get, __VA_ARGS__)
#define shmem_p(...) TERN_SHMEM_C11_RMA(3, _p, __VA_ARGS__)
#define shmem_g(...) TERN_SHMEM_C11_RMA(2, _g, __VA_ARGS__)
#define shmem_iput(...) TERN_SHMEM_C11_RMA(6, _iput, __VA_ARGS__)
#define shmem_iget(...) TERN_SHMEM_C11_RMA(6, _iget, __VA_ARGS__)
#define shmem_put_nbi(...) TERN_SHMEM_C11_RMA(4, _put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) TERN_SHMEM_C11_RMA(4, _get_nbi, __VA_ARGS__)
#define shmem_put_signal(...) TERN_SHMEM_C11_RMA(7, _put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) TERN_SHMEM_C11_RMA(7, _put_signal_nbi, __VA_ARGS__)

/* --- AMO: ([ctx,] dest, ...), on dest; shmem_atomic_fetch on source; the
 * fetching _nbi forms ([ctx,] fetch, dest, ...) on fetch. */
#define shmem_atomic_fetch(...) TERN_SHMEM_C11_AMO_EXTENDED(2, _atomic_fetch, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) TERN_SHMEM_C11_AMO_EXTENDED(3, _atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_set(...) TERN_SHMEM_C11_AMO_EXTENDED(3, _atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) TERN_SHMEM_C11_AMO_EXTENDED(3, _atomic_swap, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) TERN_SHMEM_C11_AMO_EXTENDED(4, _atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) TERN_SHMEM_C11_AMO_STANDARD(4, _atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) TERN_SHMEM_C11_AMO_STANDARD(5, _atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) TERN_SHMEM_C11_AMO_STANDARD(2, _atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) TERN_SHMEM_C11_AMO_STANDARD(3, _atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_inc(...) TERN_SHMEM_C11_AMO_STANDARD(2, _atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) TERN_SHMEM_C11_AMO_STANDARD(3, _atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) TERN_SHMEM_C11_AMO_STANDARD(4, _atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_add(...) TERN_SHMEM_C11_AMO_STANDARD(3, _atomic_add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) TERN_SHMEM_C11_AMO_BITWISE(3, _atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) TERN_SHMEM_C11_AMO_BITWISE(4, _atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_and(...) TERN_SHMEM_C11_AMO_BITWISE(3, _atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) TERN_SHMEM_C11_AMO_BITWISE(3, _atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) TERN_SHMEM_C11_AMO_BITWISE(4, _atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_or(...) TERN_SHMEM_C11_AMO_BITWISE(3, _atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) TERN_SHMEM_C11_AMO_BITWISE(3, _atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) TERN_SHMEM_C11_AMO_BITWISE(4, _atomic_fetch_xor_nbi, __VA_ARGS__)
#define shmem_atomic_xor(...) TERN_SHMEM_C11_AMO_BITWISE(3, _atomic_xor, __VA_ARGS__)

/* --- Point-to-point synchronization: (ivar(s), ...), on ivar(s). The macro
 * shmem_wait_until hides the deprecated routine shmem_wait_until(long *, int,
 * long) declared in shmem.h; a long ivar goes to shmem_long_wait_until, which
 * does the same. (shmem_wait_until)(...) still names the routine. */
#define shmem_wait_until(...) TERN_SHMEM_C11_P2P(_wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...) TERN_SHMEM_C11_P2P(_wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) TERN_SHMEM_C11_P2P(_wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) TERN_SHMEM_C11_P2P(_wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...) TERN_SHMEM_C11_P2P(_wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...) TERN_SHMEM_C11_P2P(_wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...) TERN_SHMEM_C11_P2P(_wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...) TERN_SHMEM_C11_P2P(_test, __VA_ARGS__)
#define shmem_test_all(...) TERN_SHMEM_C11_P2P(_test_all, __VA_ARGS__)
#define shmem_test_any(...) TERN_SHMEM_C11_P2P(_test_any, __VA_ARGS__)
#define shmem_test_some(...) TERN_SHMEM_C11_P2P(_test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) TERN_SHMEM_C11_P2P(_test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) TERN_SHMEM_C11_P2P(_test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...) TERN_SHMEM_C11_P2P(_test_some_vector, __VA_ARGS__)

/* --- Team collectives: (team, dest, source, ...), on dest. */
#define shmem_broadcast(...) TERN_SHMEM_C11_ON_2ND(TERN_SHMEM_GENERIC_RMA_TYPES, _broadcast, __VA_ARGS__)
#define shmem_collect(...) TERN_SHMEM_C11_ON_2ND(TERN_SHMEM_GENERIC_RMA_TYPES, _collect, __VA_ARGS__)
#define shmem_fcollect(...) TERN_SHMEM_C11_ON_2ND(TERN_SHMEM_GENERIC_RMA_TYPES, _fcollect, __VA_ARGS__)
#define shmem_alltoall(...) TERN_SHMEM_C11_ON_2ND(TERN_SHMEM_GENERIC_RMA_TYPES, _alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) TERN_SHMEM_C11_ON_2ND(TERN_SHMEM_GENERIC_RMA_TYPES, _alltoalls, __VA_ARGS__)
#define shmem_and_reduce(...) TERN_SHMEM_C11_ON_2ND(TERN_SHMEM_GENERIC_BITWISE_REDUCE_TYPES, _and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) TERN_SHMEM_C11_ON_2ND(TERN_SHMEM_GENERIC_BITWISE_REDUCE_TYPES, _or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) TERN_SHMEM_C11_ON_2ND(TERN_SHMEM_GENERIC_BITWISE_REDUCE_TYPES, _xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) TERN_SHMEM_C11_ON_2ND(TERN_SHMEM_GENERIC_COMPARE_REDUCE_TYPES, _max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) TERN_SHMEM_C11_ON_2ND(TERN_SHMEM_GENERIC_COMPARE_REDUCE_TYPES, _min_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...) TERN_SHMEM_C11_ON_2ND(TERN_SHMEM_GENERIC_ARITH_REDUCE_TYPES, _sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) TERN_SHMEM_C11_ON_2ND(TERN_SHMEM_GENERIC_ARITH_REDUCE_TYPES, _prod_reduce, __VA_ARGS__)

/* --- Deprecated generic names (no context forms), on dest (source for
 * shmem_fetch, ivar for shmem_wait, which hides the deprecated routine
 * shmem_wait(long *, long) the way shmem_wait_until does above). */
#define shmem_cswap(...) TERN_SHMEM_C11_ON_1ST(TERN_SHMEM_GENERIC_DEPRECATED_AMO_TYPES, _cswap, __VA_ARGS__)
#define shmem_finc(...) TERN_SHMEM_C11_ON_1ST(TERN_SHMEM_GENERIC_DEPRECATED_AMO_TYPES, _finc, __VA_ARGS__)
#define shmem_inc(...) TERN_SHMEM_C11_ON_1ST(TERN_SHMEM_GENERIC_DEPRECATED_AMO_TYPES, _inc, __VA_ARGS__)
#define shmem_fadd(...) TERN_SHMEM_C11_ON_1ST(TERN_SHMEM_GENERIC_DEPRECATED_AMO_TYPES, _fadd, __VA_ARGS__)
#define shmem_add(...) TERN_SHMEM_C11_ON_1ST(TERN_SHMEM_GENERIC_DEPRECATED_AMO_TYPES, _add, __VA_ARGS__)
#define shmem_fetch(...) TERN_SHMEM_C11_ON_1ST(TERN_SHMEM_GENERIC_DEPRECATED_AMO_EXTENDED_TYPES, _fetch, __VA_ARGS__)
#define shmem_set(...) TERN_SHMEM_C11_ON_1ST(TERN_SHMEM_GENERIC_DEPRECATED_AMO_EXTENDED_TYPES, _set, __VA_ARGS__)
#define shmem_swap(...) TERN_SHMEM_C11_ON_1ST(TERN_SHMEM_GENERIC_DEPRECATED_AMO_EXTENDED_TYPES, _swap, __VA_ARGS__)
#define shmem_wait(...) TERN_SHMEM_C11_ON_1ST(TERN_SHMEM_GENERIC_DEPRECATED_WAIT_TYPES, _wait, __VA_ARGS__)

#endif /* C11 */

#ifdef __cplusplus
/* ===================================================================== C++ */
/* Overloads need C++ linkage, also where a program includes shmem.h inside
 * an extern "C" block. */
extern "C++" {

#define TERN_SHMEM_UNPAREN(...) __VA_ARGS__

/* inline R shmem_OP(PARAMS) calling shmem_N_OP(ARGS); the _CTX variant adds
 * the overload with a leading shmem_ctx_t calling shmem_ctx_N_OP. */
#define TERN_SHMEM_CXX_WRAP(R, OP, N, PARAMS, ARGS) \
  inline R shmem##OP(TERN_SHMEM_UNPAREN PARAMS) { return shmem_##N##OP(TERN_SHMEM_UNPAREN ARGS); }
#define TERN_SHMEM_CXX_WRAP_CTX(R, OP, N, PARAMS, ARGS)            \
  TERN_SHMEM_CXX_WRAP(R, OP, N, PARAMS, ARGS)                      \
  inline R shmem##OP(shmem_ctx_t ctx, TERN_SHMEM_UNPAREN PARAMS) { \
    return shmem_ctx_##N##OP(ctx, TERN_SHMEM_UNPAREN ARGS);        \
  }

/* --- RMA and team collectives */
#define TERN_SHMEM_CXX_RMA_BLOCK(T, N, OP) \
  TERN_SHMEM_CXX_WRAP_CTX(void, OP, N, (T *dest, const T *source, size_t nelems, int pe), (dest, source, nelems, pe))
#define TERN_SHMEM_CXX_RMA_STRIDED(T, N, OP)                                                               \
  TERN_SHMEM_CXX_WRAP_CTX(void, OP, N,                                                                     \
                          (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
                          (dest, source, dst, sst, nelems, pe))
#define TERN_SHMEM_CXX_RMA_SIGNAL(T, N, OP)                                                              \
  TERN_SHMEM_CXX_WRAP_CTX(void, OP, N,                                                                   \
                          (T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                           int sig_op, int pe),                                                          \
                          (dest, source, nelems, sig_addr, signal, sig_op, pe))
#define TERN_SHMEM_CXX_TEAM(T, N, OP)                                                           \
  TERN_SHMEM_CXX_WRAP(int, OP, N, (shmem_team_t team, T *dest, const T *source, size_t nelems), \
                      (team, dest, source, nelems))
#define TERN_SHMEM_CXX_RMA(T, N, P)                                                                    \
  TERN_SHMEM_CXX_RMA_BLOCK(T, N, _put)                                                                 \
  TERN_SHMEM_CXX_RMA_BLOCK(T, N, _get)                                                                 \
  TERN_SHMEM_CXX_RMA_BLOCK(T, N, _put_nbi)                                                             \
  TERN_SHMEM_CXX_RMA_BLOCK(T, N, _get_nbi)                                                             \
  TERN_SHMEM_CXX_WRAP_CTX(void, _p, N, (T *dest, T value, int pe), (dest, value, pe))                  \
  TERN_SHMEM_CXX_WRAP_CTX(T, _g, N, (const T *source, int pe), (source, pe))                           \
  TERN_SHMEM_CXX_RMA_STRIDED(T, N, _iput)                                                              \
  TERN_SHMEM_CXX_RMA_STRIDED(T, N, _iget)                                                              \
  TERN_SHMEM_CXX_RMA_SIGNAL(T, N, _put_signal)                                                         \
  TERN_SHMEM_CXX_RMA_SIGNAL(T, N, _put_signal_nbi)                                                     \
  TERN_SHMEM_CXX_WRAP(int, _broadcast, N, (shmem_team_t team, T *dest, const T *source, size_t nelems, \
                                           int PE_root),                                               \
                      (team, dest, source, nelems, PE_root))                                           \
  TERN_SHMEM_CXX_TEAM(T, N, _collect)                                                                  \
  TERN_SHMEM_CXX_TEAM(T, N, _fcollect)                                                                 \
  TERN_SHMEM_CXX_TEAM(T, N, _alltoall)                                                                 \
  TERN_SHMEM_CXX_WRAP(int, _alltoalls, N, (shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, \
                                           ptrdiff_t sst, size_t nelems),                              \
                      (team, dest, source, dst, sst, nelems))
TERN_SHMEM_GENERIC_RMA_TYPES(TERN_SHMEM_CXX_RMA, ~)

/* --- Reductions: (team, dest, source, nreduce) */
#define TERN_SHMEM_CXX_REDUCE_BITWISE(T, N, P) \
  TERN_SHMEM_CXX_TEAM(T, N, _and_reduce) TERN_SHMEM_CXX_TEAM(T, N, _or_reduce) TERN_SHMEM_CXX_TEAM(T, N, _xor_reduce)
#define TERN_SHMEM_CXX_REDUCE_COMPARE(T, N, P) \
  TERN_SHMEM_CXX_TEAM(T, N, _max_reduce) TERN_SHMEM_CXX_TEAM(T, N, _min_reduce)
#define TERN_SHMEM_CXX_REDUCE_ARITH(T, N, P) \
  TERN_SHMEM_CXX_TEAM(T, N, _sum_reduce) TERN_SHMEM_CXX_TEAM(T, N, _prod_reduce)
TERN_SHMEM_GENERIC_BITWISE_REDUCE_TYPES(TERN_SHMEM_CXX_REDUCE_BITWISE, ~)
TERN_SHMEM_GENERIC_COMPARE_REDUCE_TYPES(TERN_SHMEM_CXX_REDUCE_COMPARE, ~)
TERN_SHMEM_GENERIC_ARITH_REDUCE_TYPES(TERN_SHMEM_CXX_REDUCE_ARITH, ~)

/* --- AMO. The three shapes of the value-taking atomics:
 *   _VALUE       T shmem_OP(T *dest, T value, int pe)             (fetching)
 *   _VALUE_NBI   void shmem_OP(T *fetch, T *dest, T value, int pe)
 *   _VALUE_VOID  void shmem_OP(T *dest, T value, int pe)          (non-fetching) */
#define TERN_SHMEM_CXX_AMO_VALUE(T, N, OP) \
  TERN_SHMEM_CXX_WRAP_CTX(T, OP, N, (T *dest, T value, int pe), (dest, value, pe))
#define TERN_SHMEM_CXX_AMO_VALUE_NBI(T, N, OP) \
  TERN_SHMEM_CXX_WRAP_CTX(void, OP, N, (T *fetch, T *dest, T value, int pe), (fetch, dest, value, pe))
#define TERN_SHMEM_CXX_AMO_VALUE_VOID(T, N, OP) \
  TERN_SHMEM_CXX_WRAP_CTX(void, OP, N, (T *dest, T value, int pe), (dest, value, pe))
#define TERN_SHMEM_CXX_AMO_EXTENDED(T, N, P)                                                                    \
  TERN_SHMEM_CXX_WRAP_CTX(T, _atomic_fetch, N, (const T *source, int pe), (source, pe))                         \
  TERN_SHMEM_CXX_WRAP_CTX(void, _atomic_fetch_nbi, N, (T *fetch, const T *source, int pe), (fetch, source, pe)) \
  TERN_SHMEM_CXX_AMO_VALUE_VOID(T, N, _atomic_set)                                                              \
  TERN_SHMEM_CXX_AMO_VALUE(T, N, _atomic_swap)                                                                  \
  TERN_SHMEM_CXX_AMO_VALUE_NBI(T, N, _atomic_swap_nbi)
#define TERN_SHMEM_CXX_AMO_STANDARD(T, N, P)                                                                       \
  TERN_SHMEM_CXX_WRAP_CTX(T, _atomic_compare_swap, N, (T *dest, T cond, T value, int pe), (dest, cond, value, pe)) \
  TERN_SHMEM_CXX_WRAP_CTX(void, _atomic_compare_swap_nbi, N, (T *fetch, T *dest, T cond, T value, int pe),         \
                          (fetch, dest, cond, value, pe))                                                          \
  TERN_SHMEM_CXX_WRAP_CTX(T, _atomic_fetch_inc, N, (T *dest, int pe), (dest, pe))                                  \
  TERN_SHMEM_CXX_WRAP_CTX(void, _atomic_fetch_inc_nbi, N, (T *fetch, T *dest, int pe), (fetch, dest, pe))          \
  TERN_SHMEM_CXX_WRAP_CTX(void, _atomic_inc, N, (T *dest, int pe), (dest, pe))                                     \
  TERN_SHMEM_CXX_AMO_VALUE(T, N, _atomic_fetch_add)                                                                \
  TERN_SHMEM_CXX_AMO_VALUE_NBI(T, N, _atomic_fetch_add_nbi)                                                        \
  TERN_SHMEM_CXX_AMO_VALUE_VOID(T, N, _atomic_add)
#define TERN_SHMEM_CXX_AMO_BITWISE(T, N, P)                                                                  \
  TERN_SHMEM_CXX_AMO_VALUE(T, N, _atomic_fetch_and)                                                          \
  TERN_SHMEM_CXX_AMO_VALUE_NBI(T, N, _atomic_fetch_and_nbi) TERN_SHMEM_CXX_AMO_VALUE_VOID(T, N, _atomic_and) \
  TERN_SHMEM_CXX_AMO_VALUE(T, N, _atomic_fetch_or)                                                           \
  TERN_SHMEM_CXX_AMO_VALUE_NBI(T, N, _atomic_fetch_or_nbi) TERN_SHMEM_CXX_AMO_VALUE_VOID(T, N, _atomic_or)   \
  TERN_SHMEM_CXX_AMO_VALUE(T, N, _atomic_fetch_xor)                                                          \
  TERN_SHMEM_CXX_AMO_VALUE_NBI(T, N, _atomic_fetch_xor_nbi) TERN_SHMEM_CXX_AMO_VALUE_VOID(T, N, _atomic_xor)
TERN_SHMEM_GENERIC_AMO_EXTENDED_TYPES(TERN_SHMEM_CXX_AMO_EXTENDED, ~)
TERN_SHMEM_GENERIC_AMO_STANDARD_TYPES(TERN_SHMEM_CXX_AMO_STANDARD, ~)
TERN_SHMEM_GENERIC_AMO_BITWISE_TYPES(TERN_SHMEM_CXX_AMO_BITWISE, ~)

/* --- Point-to-point synchronization. shmem_wait_until(long *, int, long) is
 * the deprecated extern "C" routine declared in shmem.h, which does what
 * shmem_long_wait_until does, so it is not defined again here. */
#define TERN_SHMEM_CXX_WAIT_UNTIL(T, N, P) \
  TERN_SHMEM_CXX_WRAP(void, _wait_until, N, (T *ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value))
/* R shmem_OP(T *ivars, size_t nelems, [size_t *indices,] const int *status, int cmp, T cmp_value),
 * and the _vector form, with T *cmp_values. */
#define TERN_SHMEM_CXX_P2P_MANY(T, N, R, OP)                                                                   \
  TERN_SHMEM_CXX_WRAP(R, OP, N, (T *ivars, size_t nelems, const int *status, int cmp, T cmp_value),            \
                      (ivars, nelems, status, cmp, cmp_value))                                                 \
  TERN_SHMEM_CXX_WRAP(R, OP##_vector, N, (T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values), \
                      (ivars, nelems, status, cmp, cmp_values))
#define TERN_SHMEM_CXX_P2P_SOME(T, N, OP)                                                                    \
  TERN_SHMEM_CXX_WRAP(size_t, OP, N,                                                                         \
                      (T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value),   \
                      (ivars, nelems, indices, status, cmp, cmp_value))                                      \
  TERN_SHMEM_CXX_WRAP(size_t, OP##_vector, N,                                                                \
                      (T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values), \
                      (ivars, nelems, indices, status, cmp, cmp_values))
#define TERN_SHMEM_CXX_P2P(T, N, P)                                                           \
  TERN_SHMEM_CXX_P2P_MANY(T, N, void, _wait_until_all)                                        \
  TERN_SHMEM_CXX_P2P_MANY(T, N, size_t, _wait_until_any)                                      \
  TERN_SHMEM_CXX_P2P_SOME(T, N, _wait_until_some)                                             \
  TERN_SHMEM_CXX_WRAP(int, _test, N, (T *ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value)) \
  TERN_SHMEM_CXX_P2P_MANY(T, N, int, _test_all)                                               \
  TERN_SHMEM_CXX_P2P_MANY(T, N, size_t, _test_any)                                            \
  TERN_SHMEM_CXX_P2P_SOME(T, N, _test_some)
TERN_SHMEM_GENERIC_P2P_TYPES_BUT_LONG(TERN_SHMEM_CXX_WAIT_UNTIL, ~)
TERN_SHMEM_GENERIC_P2P_TYPES(TERN_SHMEM_CXX_P2P, ~)

/* --- Deprecated generic names. shmem_wait(long *, long) is the extern "C"
 * routine declared in shmem.h. */
#define TERN_SHMEM_CXX_DEPRECATED_AMO(T, N, P)                                                   \
  TERN_SHMEM_CXX_WRAP(T, _cswap, N, (T *dest, T cond, T value, int pe), (dest, cond, value, pe)) \
  TERN_SHMEM_CXX_WRAP(T, _finc, N, (T *dest, int pe), (dest, pe))                                \
  TERN_SHMEM_CXX_WRAP(void, _inc, N, (T *dest, int pe), (dest, pe))                              \
  TERN_SHMEM_CXX_WRAP(T, _fadd, N, (T *dest, T value, int pe), (dest, value, pe))                \
  TERN_SHMEM_CXX_WRAP(void, _add, N, (T *dest, T value, int pe), (dest, value, pe))
#define TERN_SHMEM_CXX_DEPRECATED_AMO_EXTENDED(T, N, P)                             \
  TERN_SHMEM_CXX_WRAP(T, _fetch, N, (const T *source, int pe), (source, pe))        \
  TERN_SHMEM_CXX_WRAP(void, _set, N, (T *dest, T value, int pe), (dest, value, pe)) \
  TERN_SHMEM_CXX_WRAP(T, _swap, N, (T *dest, T value, int pe), (dest, value, pe))
#define TERN_SHMEM_CXX_DEPRECATED_WAIT(T, N, P) \
  TERN_SHMEM_CXX_WRAP(void, _wait, N, (T *ivar, T cmp_value), (ivar, cmp_value))
TERN_SHMEM_GENERIC_DEPRECATED_AMO_TYPES(TERN_SHMEM_CXX_DEPRECATED_AMO, ~)
TERN_SHMEM_GENERIC_DEPRECATED_AMO_EXTENDED_TYPES(TERN_SHMEM_CXX_DEPRECATED_AMO_EXTENDED, ~)
TERN_SHMEM_GENERIC_DEPRECATED_WAIT_TYPES_BUT_LONG(TERN_SHMEM_CXX_DEPRECATED_WAIT, ~)

} /* extern "C++" */
#endif /* __cplusplus */

#endif /* TERN_SHMEM_GENERIC_H */
