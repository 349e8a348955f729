// MPI_Info objects (info.cpp): ordered (key, value) string pairs behind
// int handles, for the calls that take hints (MPI_Comm_set_info, ...).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mpi.h"

namespace tern::mpi {

using InfoEntries = std::vector<std::pair<std::string, std::string>>;

// Copies the entries of `handle` into `entries`; false when `handle` names
// no info object (MPI_INFO_NULL included).
[[nodiscard]] bool info_entries(MPI_Info handle, InfoEntries& entries);
// A new info object holding `entries`; MPI_INFO_NULL when out of handles.
[[nodiscard]] MPI_Info make_info(InfoEntries entries);
// Sets each of `from`'s keys in `into` (MPI_*_set_info: new keys added,
// existing ones given the new value, the others kept).
void merge_info(InfoEntries& into, const InfoEntries& from);

}  // namespace tern::mpi
