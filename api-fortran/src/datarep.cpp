// MPI_Register_datarep from Fortran: the conversion and extent callbacks
// are Fortran procedures (arguments by reference, the result in ierror), so
// the C representation gets C callbacks whose extra_state is a record of
// the Fortran ones and the program's extra_state. Registrations last as
// long as the process, and so do the records. MPI_CONVERSION_FN_NULL is a
// procedure of its own, never called: its address says "no conversion".
#include "fortran_support.hpp"

using tern::fortran::DatarepConversionFn;
using tern::fortran::DatarepExtentFn;

extern "C" {
void mpi_conversion_fn_null_(void*, const MPI_Fint*, const MPI_Fint*, void*, const MPI_Offset*, MPI_Aint*,
                             MPI_Fint* ierror) {
  *ierror = MPI_SUCCESS;
}
}

namespace {

struct FortranDatarep {
  DatarepConversionFn* read;
  DatarepConversionFn* write;
  DatarepExtentFn* extent;
  MPI_Aint extra_state;
};

int convert(DatarepConversionFn* fn, void* userbuf, MPI_Datatype datatype, int count, void* filebuf,
            MPI_Offset position, FortranDatarep& record) {
  const MPI_Fint datatype_fortran = datatype;
  const MPI_Fint count_fortran = count;
  MPI_Fint ierror = MPI_SUCCESS;
  fn(userbuf, &datatype_fortran, &count_fortran, filebuf, &position, &record.extra_state, &ierror);
  return ierror;
}

int read_trampoline(void* userbuf, MPI_Datatype datatype, int count, void* filebuf, MPI_Offset position,
                    void* extra_state) {
  auto& record = *static_cast<FortranDatarep*>(extra_state);
  return convert(record.read, userbuf, datatype, count, filebuf, position, record);
}

int write_trampoline(void* userbuf, MPI_Datatype datatype, int count, void* filebuf, MPI_Offset position,
                     void* extra_state) {
  auto& record = *static_cast<FortranDatarep*>(extra_state);
  return convert(record.write, userbuf, datatype, count, filebuf, position, record);
}

int extent_trampoline(MPI_Datatype datatype, MPI_Aint* file_extent, void* extra_state) {
  auto& record = *static_cast<FortranDatarep*>(extra_state);
  const MPI_Fint datatype_fortran = datatype;
  MPI_Fint ierror = MPI_SUCCESS;
  record.extent(&datatype_fortran, file_extent, &record.extra_state, &ierror);
  return ierror;
}

bool is_null(DatarepConversionFn* fn) { return fn == nullptr || fn == mpi_conversion_fn_null_; }

}  // namespace

extern "C" {

void pmpi_register_datarep_(const char* datarep, DatarepConversionFn* read_conversion_fn,
                            DatarepConversionFn* write_conversion_fn, DatarepExtentFn* dtype_file_extent_fn,
                            const MPI_Aint* extra_state, MPI_Fint* ierror, std::size_t datarep_len) {
  const std::string name = tern::fortran::trimmed(datarep, datarep_len);
  auto* record = new FortranDatarep{read_conversion_fn, write_conversion_fn, dtype_file_extent_fn, *extra_state};
  MPI_Datarep_conversion_function* read = is_null(read_conversion_fn) ? MPI_CONVERSION_FN_NULL : read_trampoline;
  MPI_Datarep_conversion_function* write = is_null(write_conversion_fn) ? MPI_CONVERSION_FN_NULL : write_trampoline;
  MPI_Datarep_extent_function* extent = dtype_file_extent_fn == nullptr ? nullptr : extent_trampoline;
  const int rc = PMPI_Register_datarep(name.c_str(), read, write, extent, record);
  if (rc != MPI_SUCCESS) delete record;
  tern::fortran::set_error(ierror, rc);
}
TERN_FORTRAN_WEAK_ALIAS(register_datarep)

}  // extern "C"
