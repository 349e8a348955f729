// User data representations (MPI_Register_datarep, datarep.cpp): the
// program's conversion callbacks between its memory and the file, for views
// set with the representation's name.
#pragma once

#include <memory>
#include <string>

#include "datatype/derived.hpp"
#include "mpi.h"

namespace tern::mpi {

struct UserDatarep {
  std::string name;
  // The int or the MPI_Count form (MPI_Register_datarep_c), per direction;
  // both null: the direction is native (MPI_CONVERSION_FN_NULL).
  MPI_Datarep_conversion_function* read = nullptr;
  MPI_Datarep_conversion_function* write = nullptr;
  MPI_Datarep_conversion_function_c* read_c = nullptr;
  MPI_Datarep_conversion_function_c* write_c = nullptr;
  MPI_Datarep_extent_function* extent = nullptr;
  void* extra_state = nullptr;
};

// The registered representation `name`; null when none is.
[[nodiscard]] std::shared_ptr<const UserDatarep> find_datarep(const char* name);
// Whether every basic type of `type` takes as many bytes in `rep`'s files
// as in memory (asked of its extent callback): Tern's views keep the memory
// layout, so a representation may change values, not sizes. Otherwise
// MPI_ERR_UNSUPPORTED_DATAREP (or the callback's error) in *error, with the
// offending type in *offending.
[[nodiscard]] bool datarep_same_layout(const UserDatarep& rep, const DerivedType& type, int* error,
                                       MPI_Datatype* offending);
// Converts `count` items of `datatype` between `user` (memory) and `file`
// (packed, file form) with the callbacks; the callback's error code.
[[nodiscard]] int datarep_convert(const UserDatarep& rep, bool write, void* user, MPI_Datatype datatype,
                                  std::size_t count, void* file);
// Whether the direction has a conversion (not MPI_CONVERSION_FN_NULL).
[[nodiscard]] inline bool datarep_converts(const UserDatarep& rep, bool write) {
  return write ? (rep.write != nullptr || rep.write_c != nullptr) : (rep.read != nullptr || rep.read_c != nullptr);
}

}  // namespace tern::mpi
