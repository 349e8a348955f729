// MPI_Register_datarep (and mpi_f08's MPI_Register_datarep_c) from Fortran:
// the conversion and extent callbacks are Fortran procedures (arguments by
// reference, the result in ierror), so the C representation gets C callbacks
// whose extra_state is a record of the Fortran ones and the program's
// extra_state. Registrations last as long as the process, and so do the
// records. MPI_CONVERSION_FN_NULL(_C) is a procedure of its own, never
// called: its address says "no conversion".
#include "fortran_support.hpp"

using tern::fortran::DatarepConversionFn;
using tern::fortran::DatarepConversionFnC;
using tern::fortran::DatarepExtentFn;

extern "C" {
void mpi_conversion_fn_null_(void*, const MPI_Fint*, const MPI_Fint*, void*, const MPI_Offset*, MPI_Aint*,
                             MPI_Fint* ierror) {
  *ierror = MPI_SUCCESS;
}
void mpi_conversion_fn_null_c_(void*, const MPI_Fint*, const MPI_Count*, void*, const MPI_Offset*, MPI_Aint*,
                               MPI_Fint* ierror) {
  *ierror = MPI_SUCCESS;
}
}

namespace {

// The Fortran callbacks of one registration: Fn the int form's conversion
// procedures, FnC the _c form's.
template <typename Conversion>
struct FortranDatarep {
  Conversion* read;
  Conversion* write;
  DatarepExtentFn* extent;
  MPI_Aint extra_state;
};

// Calls a Fortran conversion with the count in its form's kind.
template <typename Conversion, typename Count, typename FortranCount>
int convert(Conversion* fn, void* userbuf, MPI_Datatype datatype, Count count, void* filebuf, MPI_Offset position,
            FortranDatarep<Conversion>& record) {
  const MPI_Fint datatype_fortran = datatype;
  const auto count_fortran = static_cast<FortranCount>(count);
  MPI_Fint ierror = MPI_SUCCESS;
  fn(userbuf, &datatype_fortran, &count_fortran, filebuf, &position, &record.extra_state, &ierror);
  return ierror;
}

// C conversions of the int form (Count int) or the _c form (MPI_Count).
template <typename Conversion, typename Count, typename FortranCount, bool kRead>
int trampoline(void* userbuf, MPI_Datatype datatype, Count count, void* filebuf, MPI_Offset position,
               void* extra_state) {
  auto& record = *static_cast<FortranDatarep<Conversion>*>(extra_state);
  return convert<Conversion, Count, FortranCount>(kRead ? record.read : record.write, userbuf, datatype, count,
                                                  filebuf, position, record);
}

template <typename Conversion>
int extent_trampoline(MPI_Datatype datatype, MPI_Aint* file_extent, void* extra_state) {
  auto& record = *static_cast<FortranDatarep<Conversion>*>(extra_state);
  const MPI_Fint datatype_fortran = datatype;
  MPI_Fint ierror = MPI_SUCCESS;
  record.extent(&datatype_fortran, file_extent, &record.extra_state, &ierror);
  return ierror;
}

bool is_null(DatarepConversionFn* fn) { return fn == nullptr || fn == mpi_conversion_fn_null_; }
bool is_null(DatarepConversionFnC* fn) { return fn == nullptr || fn == mpi_conversion_fn_null_c_; }

// Registers `name` with C callbacks that call the Fortran ones, through
// `register_c` (the int or the _c form, whose conversions take Count).
template <typename Count, typename FortranCount, typename Conversion, typename CConversion>
int register_fortran(const std::string& name, Conversion* read_fn, Conversion* write_fn, DatarepExtentFn* extent_fn,
                     MPI_Aint extra_state,
                     int (*register_c)(const char*, CConversion*, CConversion*, MPI_Datarep_extent_function*, void*)) {
  auto* record = new FortranDatarep<Conversion>{read_fn, write_fn, extent_fn, extra_state};
  CConversion* read = is_null(read_fn) ? nullptr : trampoline<Conversion, Count, FortranCount, true>;
  CConversion* write = is_null(write_fn) ? nullptr : trampoline<Conversion, Count, FortranCount, false>;
  MPI_Datarep_extent_function* extent = extent_fn == nullptr ? nullptr : extent_trampoline<Conversion>;
  const int rc = register_c(name.c_str(), read, write, extent, record);
  if (rc != MPI_SUCCESS) delete record;
  return rc;
}

}  // namespace

extern "C" {

void pmpi_register_datarep_(const char* datarep, DatarepConversionFn* read_conversion_fn,
                            DatarepConversionFn* write_conversion_fn, DatarepExtentFn* dtype_file_extent_fn,
                            const MPI_Aint* extra_state, MPI_Fint* ierror, std::size_t datarep_len) {
  tern::fortran::set_error(ierror, register_fortran<int, MPI_Fint>(
                                       tern::fortran::trimmed(datarep, datarep_len), read_conversion_fn,
                                       write_conversion_fn, dtype_file_extent_fn, *extra_state, PMPI_Register_datarep));
}
TERN_FORTRAN_WEAK_ALIAS(register_datarep)

void pmpi_register_datarep_c_(const char* datarep, DatarepConversionFnC* read_conversion_fn,
                              DatarepConversionFnC* write_conversion_fn, DatarepExtentFn* dtype_file_extent_fn,
                              const MPI_Aint* extra_state, MPI_Fint* ierror, std::size_t datarep_len) {
  tern::fortran::set_error(ierror, register_fortran<MPI_Count, MPI_Count>(
                                       tern::fortran::trimmed(datarep, datarep_len), read_conversion_fn,
                                       write_conversion_fn, dtype_file_extent_fn, *extra_state, PMPI_Register_datarep_c));
}
TERN_FORTRAN_WEAK_ALIAS(register_datarep_c)

}  // extern "C"
