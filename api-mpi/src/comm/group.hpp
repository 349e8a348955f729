// Groups: ordered sets of job ranks (group.cpp), for communicators
// construction (comm.cpp).
#pragma once

#include <vector>

#include "state.hpp"

namespace tern::mpi {

// The members of a valid group handle (MPI_GROUP_EMPTY included); null otherwise.
[[nodiscard]] const std::vector<unsigned>* find_group(MPI_Group handle);
// A new group handle for `members`; MPI_GROUP_NULL when out of handles.
[[nodiscard]] MPI_Group make_group(std::vector<unsigned> members);
// This process's job rank.
[[nodiscard]] unsigned my_job_rank() noexcept;

}  // namespace tern::mpi
