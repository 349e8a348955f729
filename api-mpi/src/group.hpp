// Groups, communicator construction and the reduction operations beyond the
// predefined arithmetic ones (MAXLOC/MINLOC on value-index pairs, user ops).
#pragma once

#include <cstddef>
#include <vector>

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

// --- Operations (ops.cpp): MPI_MAXLOC, MPI_MINLOC and MPI_Op_create's.
[[nodiscard]] bool extended_op_valid(MPI_Op op) noexcept;
// As apply_op, for ops above MPI_BXOR.
[[nodiscard]] int apply_extended_op(MPI_Op op, MPI_Datatype type, const void* in, void* inout,
                                    std::size_t count) noexcept;
// Whether `op` is a live MPI_Op_create operation.
[[nodiscard]] bool is_user_op(MPI_Op op) noexcept;
// Calls a user operation's function once on `count` instances of `type` in
// their own layout (derived types included); MPI_ERR_OP when not a user op.
[[nodiscard]] int call_user_op(MPI_Op op, MPI_Datatype type, void* in, void* inout, int count) noexcept;
// Whether the reduction may combine operands in any order.
[[nodiscard]] bool op_commutative(MPI_Op op) noexcept;

// --- Groups (group.cpp): ordered sets of job ranks.
// The members of a valid group handle (MPI_GROUP_EMPTY included); null otherwise.
[[nodiscard]] const std::vector<unsigned>* find_group(MPI_Group handle);
// A new group handle for `members`; MPI_GROUP_NULL when out of handles.
[[nodiscard]] MPI_Group make_group(std::vector<unsigned> members);
// This process's job rank.
[[nodiscard]] unsigned my_job_rank() noexcept;

}  // namespace tern::mpi
