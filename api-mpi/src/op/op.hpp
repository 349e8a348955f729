// The reduction operations beyond the predefined arithmetic ones of
// datatype/datatype.cpp: MPI_MAXLOC/MPI_MINLOC on value-index pairs and MPI_Op_create's
// user operations (ops.cpp).
#pragma once

#include <cstddef>

#include "state.hpp"

namespace tern::mpi {

// Value-index pairs, laid out as the C structs MPI programs use.
struct PairFloatInt {
  float value;
  int index;
};
struct PairDoubleInt {
  double value;
  int index;
};
struct PairLongInt {
  long value;
  int index;
};
struct PairIntInt {
  int value;
  int index;
};
struct PairShortInt {
  short value;
  int index;
};
struct PairLongDoubleInt {
  long double value;
  int index;
};

[[nodiscard]] bool extended_op_valid(MPI_Op op) noexcept;
// As apply_op, for ops above MPI_BXOR.
[[nodiscard]] int apply_extended_op(MPI_Op op, MPI_Datatype type, const void* in, void* inout,
                                    std::size_t count) noexcept;
// Whether `op` is a live MPI_Op_create operation.
[[nodiscard]] bool is_user_op(MPI_Op op) noexcept;
// Calls a user operation's function once on `count` instances of `type` in
// their own layout (derived types included); MPI_ERR_OP when not a user op,
// MPI_ERR_COUNT for more than INT_MAX instances and an int (MPI_Op_create)
// function.
[[nodiscard]] int call_user_op(MPI_Op op, MPI_Datatype type, void* in, void* inout, MPI_Count count) noexcept;
// Whether the reduction may combine operands in any order.
[[nodiscard]] bool op_commutative(MPI_Op op) noexcept;

}  // namespace tern::mpi
