// Split collectives (MPI_File_*_all_begin/end, *_ordered_begin/end) and the non-blocking
// collectives (MPI_File_i*_all). Both run the two-phase access at once: the
// begin call does the work and its end returns the outcome; the
// non-blocking forms return a request done at once. The standard allows
// both (an operation may complete when it starts); what is lost is only
// overlap of the I/O with computation.
#include "io/file.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

int split_begin(AccessFunction run, const char* function, MPI_File fh, Where where, void* buf, MPI_Count count,
                MPI_Datatype datatype, bool write) {
  File* file = nullptr;
  if (const int error = find_file_checked(function, fh, file); error != MPI_SUCCESS) return error;
  if (file->split_active) {
    return raise_file(file, MPI_ERR_OTHER, function, "a split collective on this file has begun and not ended");
  }
  file->split_error = run(function, fh, where, buf, count, datatype, write, &file->split_status);
  file->split_active = true;
  return file->split_error;
}

int split_end(const char* function, MPI_File fh, MPI_Status* status) {
  File* file = nullptr;
  if (const int error = find_file_checked(function, fh, file); error != MPI_SUCCESS) return error;
  if (!file->split_active) {
    return raise_file(file, MPI_ERR_OTHER, function, "no split collective on this file has begun");
  }
  file->split_active = false;
  if (status != MPI_STATUS_IGNORE) *status = file->split_status;
  return file->split_error;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern::mpi;

extern "C" {

int PMPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  return split_begin(collective_access, "MPI_File_read_all_begin", fh, kAtPointer, buf, count, datatype, false);
}

int PMPI_File_read_all_end(MPI_File fh, void*, MPI_Status* status) {
  return split_end("MPI_File_read_all_end", fh, status);
}

int PMPI_File_write_all_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  return split_begin(collective_access, "MPI_File_write_all_begin", fh, kAtPointer, const_cast<void*>(buf), count, datatype, true);
}

int PMPI_File_write_all_end(MPI_File fh, const void*, MPI_Status* status) {
  return split_end("MPI_File_write_all_end", fh, status);
}

int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype) {
  return split_begin(collective_access, "MPI_File_read_at_all_begin", fh, at(offset), buf, count, datatype, false);
}

int PMPI_File_read_at_all_end(MPI_File fh, void*, MPI_Status* status) {
  return split_end("MPI_File_read_at_all_end", fh, status);
}

int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype) {
  return split_begin(collective_access, "MPI_File_write_at_all_begin", fh, at(offset), const_cast<void*>(buf), count, datatype, true);
}

int PMPI_File_write_at_all_end(MPI_File fh, const void*, MPI_Status* status) {
  return split_end("MPI_File_write_at_all_end", fh, status);
}

int PMPI_File_read_ordered_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  return split_begin(ordered_access, "MPI_File_read_ordered_begin", fh, kAtPointer, buf, count, datatype, false);
}

int PMPI_File_read_ordered_end(MPI_File fh, void*, MPI_Status* status) {
  return split_end("MPI_File_read_ordered_end", fh, status);
}

int PMPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  return split_begin(ordered_access, "MPI_File_write_ordered_begin", fh, kAtPointer, const_cast<void*>(buf), count,
                     datatype, true);
}

int PMPI_File_write_ordered_end(MPI_File fh, const void*, MPI_Status* status) {
  return split_end("MPI_File_write_ordered_end", fh, status);
}

int PMPI_File_iread_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return access_now(collective_access, "MPI_File_iread_all", fh, kAtPointer, buf, count, datatype, false, request);
}

int PMPI_File_iwrite_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return access_now(collective_access, "MPI_File_iwrite_all", fh, kAtPointer, const_cast<void*>(buf), count,
                    datatype, true, request);
}

int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                           MPI_Request* request) {
  return access_now(collective_access, "MPI_File_iread_at_all", fh, at(offset), buf, count, datatype, false,
                    request);
}

int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                            MPI_Request* request) {
  return access_now(collective_access, "MPI_File_iwrite_at_all", fh, at(offset), const_cast<void*>(buf), count,
                    datatype, true, request);
}

// The large-count (_c) forms: the same accesses with MPI_Count counts.
int PMPI_File_read_all_begin_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype) {
  return split_begin(collective_access, "MPI_File_read_all_begin_c", fh, kAtPointer, buf, count, datatype, false);
}

int PMPI_File_write_all_begin_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype) {
  return split_begin(collective_access, "MPI_File_write_all_begin_c", fh, kAtPointer, const_cast<void*>(buf), count, datatype, true);
}

int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype) {
  return split_begin(collective_access, "MPI_File_read_at_all_begin_c", fh, at(offset), buf, count, datatype, false);
}

int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype) {
  return split_begin(collective_access, "MPI_File_write_at_all_begin_c", fh, at(offset), const_cast<void*>(buf), count, datatype, true);
}

int PMPI_File_read_ordered_begin_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype) {
  return split_begin(ordered_access, "MPI_File_read_ordered_begin_c", fh, kAtPointer, buf, count, datatype, false);
}

int PMPI_File_write_ordered_begin_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype) {
  return split_begin(ordered_access, "MPI_File_write_ordered_begin_c", fh, kAtPointer, const_cast<void*>(buf), count,
                     datatype, true);
}

int PMPI_File_iread_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return access_now(collective_access, "MPI_File_iread_all_c", fh, kAtPointer, buf, count, datatype, false, request);
}

int PMPI_File_iwrite_all_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return access_now(collective_access, "MPI_File_iwrite_all_c", fh, kAtPointer, const_cast<void*>(buf), count,
                    datatype, true, request);
}

int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Request* request) {
  return access_now(collective_access, "MPI_File_iread_at_all_c", fh, at(offset), buf, count, datatype, false,
                    request);
}

int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Request* request) {
  return access_now(collective_access, "MPI_File_iwrite_at_all_c", fh, at(offset), const_cast<void*>(buf), count,
                    datatype, true, request);
}

#pragma weak MPI_File_read_all_begin = PMPI_File_read_all_begin
#pragma weak MPI_File_read_all_end = PMPI_File_read_all_end
#pragma weak MPI_File_write_all_begin = PMPI_File_write_all_begin
#pragma weak MPI_File_write_all_end = PMPI_File_write_all_end
#pragma weak MPI_File_read_at_all_begin = PMPI_File_read_at_all_begin
#pragma weak MPI_File_read_at_all_end = PMPI_File_read_at_all_end
#pragma weak MPI_File_write_at_all_begin = PMPI_File_write_at_all_begin
#pragma weak MPI_File_write_at_all_end = PMPI_File_write_at_all_end
#pragma weak MPI_File_read_ordered_begin = PMPI_File_read_ordered_begin
#pragma weak MPI_File_read_ordered_end = PMPI_File_read_ordered_end
#pragma weak MPI_File_write_ordered_begin = PMPI_File_write_ordered_begin
#pragma weak MPI_File_write_ordered_end = PMPI_File_write_ordered_end
#pragma weak MPI_File_iread_all = PMPI_File_iread_all
#pragma weak MPI_File_iwrite_all = PMPI_File_iwrite_all
#pragma weak MPI_File_iread_at_all = PMPI_File_iread_at_all
#pragma weak MPI_File_iwrite_at_all = PMPI_File_iwrite_at_all
#pragma weak MPI_File_read_all_begin_c = PMPI_File_read_all_begin_c
#pragma weak MPI_File_write_all_begin_c = PMPI_File_write_all_begin_c
#pragma weak MPI_File_read_at_all_begin_c = PMPI_File_read_at_all_begin_c
#pragma weak MPI_File_write_at_all_begin_c = PMPI_File_write_at_all_begin_c
#pragma weak MPI_File_read_ordered_begin_c = PMPI_File_read_ordered_begin_c
#pragma weak MPI_File_write_ordered_begin_c = PMPI_File_write_ordered_begin_c
#pragma weak MPI_File_iread_all_c = PMPI_File_iread_all_c
#pragma weak MPI_File_iwrite_all_c = PMPI_File_iwrite_all_c
#pragma weak MPI_File_iread_at_all_c = PMPI_File_iread_at_all_c
#pragma weak MPI_File_iwrite_at_all_c = PMPI_File_iwrite_at_all_c

}  // extern "C"
