// What every Fortran entry point needs: the Fortran sentinels, the error
// argument, and the conversions between Fortran's and C's views of statuses,
// logicals, indices and strings.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

// The sentinels are Fortran variables (common blocks of mpif.h and of the mpi
// and mpi_f08 modules) defined here, so that an argument's address says
// whether the program passed MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE,
// MPI_STATUSES_IGNORE, MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY. gfortran names
// common block /name/ name_.
extern "C" {
extern MPI_Fint tern_mpi_bottom_[];
extern MPI_Fint tern_mpi_in_place_[];
extern MPI_Fint tern_mpi_status_ignore_[];
extern MPI_Fint tern_mpi_statuses_ignore_[];
extern MPI_Fint tern_mpi_unweighted_[];
extern MPI_Fint tern_mpi_weights_empty_[];
extern char tern_mpi_argv_null_[];
extern char tern_mpi_argvs_null_[];
extern MPI_Fint tern_mpi_errcodes_ignore_[];
}

// mpi_<name>_ is a weak alias of pmpi_<name>_, as MPI_ names are of PMPI_ ones
// in C, so that a Fortran profiling library can define mpi_<name>_.
#define TERN_FORTRAN_WEAK_ALIAS(name) \
  decltype(pmpi_##name##_) mpi_##name##_ __attribute__((weak, alias("pmpi_" #name "_")));

// `use mpi`'s TYPE(C_PTR) form of an address result (MPI_Alloc_mem,
// MPI_Win_allocate, ...) is another name of the same entry point, with its own
// weak mpi_<name>_cptr_.
#define TERN_FORTRAN_C_PTR_ALIAS(name)                                                    \
  decltype(pmpi_##name##_) pmpi_##name##_cptr_ __attribute__((alias("pmpi_" #name "_"))); \
  decltype(pmpi_##name##_) mpi_##name##_cptr_ __attribute__((weak, alias("pmpi_" #name "_cptr_")));

// mpi_f08's generic MPI_<name> of a call with a large-count form has two
// specific procedures, MPI_<name>_f08 and MPI_<name>_c_f08, each its own
// external name: the first is another name of the int form's entry point,
// with its own weak mpi_<name>_f08_.
#define TERN_FORTRAN_F08_ALIAS(name)                                                    \
  decltype(pmpi_##name##_) pmpi_##name##_f08_ __attribute__((alias("pmpi_" #name "_"))); \
  decltype(pmpi_##name##_) mpi_##name##_f08_ __attribute__((weak, alias("pmpi_" #name "_f08_")));

namespace tern::fortran {

// A Fortran status is MPI_STATUS_SIZE integers holding a C MPI_Status's bytes.
// The layout is mpi.h's (MPI_F_STATUS_SIZE).
inline constexpr int kStatusSize = MPI_F_STATUS_SIZE;

inline void* buffer(void* address) {
  if (address == tern_mpi_bottom_) return MPI_BOTTOM;
  if (address == tern_mpi_in_place_) return MPI_IN_PLACE;
  return address;
}

// A distributed graph's weights (const for the constructors' inputs, not for
// MPI_Dist_graph_neighbors' outputs): an array or one of the two sentinels.
template <typename Int>
Int* weights(Int* array) {
  if (array == tern_mpi_unweighted_) return MPI_UNWEIGHTED;
  if (array == tern_mpi_weights_empty_) return MPI_WEIGHTS_EMPTY;
  return array;
}

// ierror is optional in mpi_f08; an absent optional argument arrives as NULL.
inline void set_error(MPI_Fint* ierror, int rc) {
  if (ierror != nullptr) *ierror = rc;
}

// gfortran's .TRUE. is 1; any other non-zero value is taken as true too.
inline int from_logical(MPI_Fint value) { return value != 0 ? 1 : 0; }
inline MPI_Fint to_logical(int value) { return value != 0 ? 1 : 0; }

inline bool is_status_ignore(const MPI_Fint* status) {
  return status == tern_mpi_status_ignore_ || status == tern_mpi_statuses_ignore_;
}

inline MPI_Status status_from_fortran(const MPI_Fint* status) {
  MPI_Status converted{};
  std::memcpy(&converted, status, sizeof(converted));
  return converted;
}

inline void status_to_fortran(const MPI_Status& status, MPI_Fint* out) {
  std::memcpy(out, &status, sizeof(status));
}

// A status argument: the C call fills a properly aligned MPI_Status, store()
// copies it out unless the program passed MPI_STATUS_IGNORE.
class StatusOut {
 public:
  explicit StatusOut(MPI_Fint* fortran) : fortran_(fortran) {}
  MPI_Status* get() { return is_status_ignore(fortran_) ? MPI_STATUS_IGNORE : &status_; }
  void store() const {
    if (!is_status_ignore(fortran_)) status_to_fortran(status_, fortran_);
  }

 private:
  MPI_Fint* fortran_;
  MPI_Status status_{};
};

// An array of statuses (Waitall, Waitsome, ...), with MPI_STATUSES_IGNORE.
class StatusArrayOut {
 public:
  StatusArrayOut(MPI_Fint* fortran, MPI_Fint count)
      : fortran_(fortran), statuses_(is_status_ignore(fortran) || count <= 0 ? 0 : count) {}
  MPI_Status* get() { return is_status_ignore(fortran_) ? MPI_STATUSES_IGNORE : statuses_.data(); }
  void store() const {
    for (std::size_t i = 0; i < statuses_.size(); ++i) status_to_fortran(statuses_[i], fortran_ + i * kStatusSize);
  }

 private:
  MPI_Fint* fortran_;
  std::vector<MPI_Status> statuses_;
};

// A Fortran attribute callback (MPI_Comm_copy_attr_function, ...): every
// argument by reference, values and extra_state address-sized, ierror last.
// A generalized request's Fortran callbacks (MPI_Grequest_start).
using GrequestQueryFn = void(MPI_Aint* extra_state, MPI_Fint* status, MPI_Fint* ierror);
using GrequestFreeFn = void(MPI_Aint* extra_state, MPI_Fint* ierror);
using GrequestCancelFn = void(MPI_Aint* extra_state, const MPI_Fint* complete, MPI_Fint* ierror);
// A user data representation's Fortran callbacks (MPI_Register_datarep): the
// buffers are addresses (mpif.h and `use mpi` take them by reference,
// mpi_f08 as TYPE(C_PTR) by value: the same pointer either way).
using DatarepConversionFn = void(void* userbuf, const MPI_Fint* datatype, const MPI_Fint* count, void* filebuf,
                                 const MPI_Offset* position, MPI_Aint* extra_state, MPI_Fint* ierror);
// MPI_Register_datarep_c's: the count as an MPI_COUNT_KIND integer.
using DatarepConversionFnC = void(void* userbuf, const MPI_Fint* datatype, const MPI_Count* count, void* filebuf,
                                  const MPI_Offset* position, MPI_Aint* extra_state, MPI_Fint* ierror);
using DatarepExtentFn = void(const MPI_Fint* datatype, MPI_Aint* extent, MPI_Aint* extra_state, MPI_Fint* ierror);
using CopyAttrFn = void(const MPI_Fint* oldobject, const MPI_Fint* keyval, MPI_Aint* extra_state,
                        const MPI_Aint* attribute_val_in, MPI_Aint* attribute_val_out, MPI_Fint* flag,
                        MPI_Fint* ierror);
using DeleteAttrFn = void(const MPI_Fint* object, const MPI_Fint* keyval, const MPI_Aint* attribute_val,
                          MPI_Aint* extra_state, MPI_Fint* ierror);
// MPI-1's forms (MPI_KEYVAL_CREATE's COPY_FUNCTION and DELETE_FUNCTION):
// the same with default INTEGER values and extra_state.
using LegacyCopyFn = void(const MPI_Fint* oldcomm, const MPI_Fint* keyval, MPI_Fint* extra_state,
                          const MPI_Fint* attribute_val_in, MPI_Fint* attribute_val_out, MPI_Fint* flag,
                          MPI_Fint* ierror);
using LegacyDeleteFn = void(const MPI_Fint* comm, const MPI_Fint* keyval, const MPI_Fint* attribute_val,
                            MPI_Fint* extra_state, MPI_Fint* ierror);

// Fortran counts array elements from 1.
inline void index_to_fortran(MPI_Fint* index) {
  if (*index != MPI_UNDEFINED) *index += 1;
}

inline void indices_to_fortran(MPI_Fint* indices, MPI_Fint count) {
  if (count == MPI_UNDEFINED) return;
  for (MPI_Fint i = 0; i < count; ++i) indices[i] += 1;
}

// A C string into a CHARACTER(LEN=length) argument: cut to fit, blank-padded.
inline void store_string(char* out, std::size_t length, const char* text) {
  const std::size_t used = std::min(std::strlen(text), length);
  std::memcpy(out, text, used);
  std::memset(out + used, ' ', length - used);
}

// The C buffer for a string of at most `length` characters and its null.
inline std::size_t c_string_size(MPI_Fint length) { return length > 0 ? static_cast<std::size_t>(length) + 1 : 1; }

// A CHARACTER argument as a C string: Fortran pads with trailing blanks.
inline std::string trimmed(const char* text, std::size_t length) {
  while (length > 0 && text[length - 1] == ' ') --length;
  return std::string(text, length);
}

}  // namespace tern::fortran
