// The shared file pointer: one offset (in etypes of the view) all ranks of
// a file move together. It lives in a small file beside the data file, so
// it is shared wherever the data file is (one host or a cluster file
// system), and every update is a read and a write of it under an fcntl
// lock. Rank 0 names it at open and removes it at close; the first rank to
// need it creates it (an empty one holds 0).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "io/file.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

// Opens the pointer's file on first use; 0 or an errno.
int open_pointer(File& file) {
  if (file.shared_fd >= 0) return 0;
  file.shared_fd = ::open(file.shared_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  return file.shared_fd >= 0 ? 0 : errno;
}

// Moves the pointer by `delta` (or to `delta` when `absolute`) and returns
// where it was, atomically for all ranks; 0 or an errno.
int update_pointer(File& file, MPI_Offset delta, bool absolute, MPI_Offset& old) {
  // fcntl locks exclude other processes only: threads of this one take turns here.
  static std::mutex threads;
  std::lock_guard<std::mutex> turn(threads);
  if (const int error = open_pointer(file); error != 0) return error;
  if (const int error = lock_range(file.shared_fd, F_WRLCK, 0, sizeof(MPI_Offset)); error != 0) return error;
  old = 0;
  int error = 0;
  const ssize_t got = ::pread(file.shared_fd, &old, sizeof(old), 0);
  if (got < 0) error = errno;
  if (got >= 0 && got != static_cast<ssize_t>(sizeof(old))) old = 0;  // a new pointer
  const MPI_Offset next = absolute ? delta : old + delta;
  if (error == 0 && (delta != 0 || absolute) && ::pwrite(file.shared_fd, &next, sizeof(next), 0) != sizeof(next)) {
    error = errno != 0 ? errno : EIO;
  }
  (void)lock_range(file.shared_fd, F_UNLCK, 0, sizeof(MPI_Offset));
  return error;
}

int raise_pointer_error(File& file, const char* function, int error) {
  return raise_file(&file, error_class_of_errno(error), function, "shared file pointer %s: %s",
                    file.shared_path.c_str(), std::strerror(error));
}

// Etypes `count` elements of `datatype` cover; -1 (error raised) when the
// arguments are refused.
MPI_Offset etypes_of(const char* function, File& file, const void* buf, MPI_Count count, MPI_Datatype datatype, bool write,
                     int& error) {
  std::shared_ptr<const DerivedType> type;
  error = check_access(function, file, buf, count, datatype, write, type);
  if (error != MPI_SUCCESS) return -1;
  return static_cast<MPI_Offset>(type->size * static_cast<std::size_t>(count) / file.view.etype_size);
}

// Independent access at the shared pointer, moved past it first.
int shared_access(const char* function, MPI_File fh, Where, void* buf, MPI_Count count, MPI_Datatype datatype, bool write,
                  MPI_Status* status) {
  File* file = nullptr;
  if (const int error = find_file_checked(function, fh, file); error != MPI_SUCCESS) return error;
  int error = MPI_SUCCESS;
  const MPI_Offset etypes = etypes_of(function, *file, buf, count, datatype, write, error);
  if (error != MPI_SUCCESS) return error;
  MPI_Offset start = 0;
  if (const int failure = update_pointer(*file, etypes, false, start); failure != 0) {
    return raise_pointer_error(*file, function, failure);
  }
  return independent_access(function, fh, at_shared(start), buf, count, datatype, write, status);
}

}  // namespace

int ordered_access(const char* function, MPI_File fh, Where, void* buf, MPI_Count count, MPI_Datatype datatype, bool write,
                   MPI_Status* status) {
  File* file = nullptr;
  if (const int error = find_file_checked(function, fh, file); error != MPI_SUCCESS) return error;
  int error = MPI_SUCCESS;
  const MPI_Offset etypes = etypes_of(function, *file, buf, count, datatype, write, error);
  int size = 0, rank = 0;
  PMPI_Comm_size(file->comm, &size);
  PMPI_Comm_rank(file->comm, &rank);
  MPI_Offset mine[2] = {etypes, error};
  std::vector<MPI_Offset> all(static_cast<std::size_t>(2 * size));
  if (PMPI_Allgather(mine, 2, MPI_OFFSET, all.data(), 2, MPI_OFFSET, file->comm) != MPI_SUCCESS) {
    return raise_file(file, MPI_ERR_OTHER, function, "exchange of counts failed");
  }
  MPI_Offset before = 0, total = 0;
  for (int r = 0; r < size; ++r) {
    if (all[2 * r + 1] != MPI_SUCCESS) {
      if (error != MPI_SUCCESS) return error;
      return raise_file(file, MPI_ERR_OTHER, function, "rank %d's arguments were refused", r);
    }
    if (r < rank) before += all[2 * r];
    total += all[2 * r];
  }
  MPI_Offset start[2] = {0, 0};  // where the pointer was, and rank 0's errno
  if (rank == 0) start[1] = update_pointer(*file, total, false, start[0]);
  if (PMPI_Bcast(start, 2, MPI_OFFSET, 0, file->comm) != MPI_SUCCESS) start[1] = EIO;
  if (start[1] != 0) return raise_pointer_error(*file, function, static_cast<int>(start[1]));
  return collective_access(function, fh, at_shared(start[0] + before), buf, count, datatype, write, status);
}

void name_shared_pointer(File& file, int rank) {
  // Unique per open: rank 0's host and process, and the time.
  char name[4096] = {};
  if (rank == 0) {
    const std::size_t slash = file.path.rfind('/');
    const std::string directory = slash == std::string::npos ? "." : file.path.substr(0, slash);
    const std::string base = slash == std::string::npos ? file.path : file.path.substr(slash + 1);
    char host[256] = {};
    (void)gethostname(host, sizeof(host) - 1);
    std::snprintf(name, sizeof(name), "%s/.%s.tern-shfp.%s.%d.%.0f", directory.c_str(), base.c_str(), host,
                  static_cast<int>(getpid()), PMPI_Wtime() * 1e6);
  }
  PMPI_Bcast(name, sizeof(name), MPI_CHAR, 0, file.comm);
  file.shared_path = name;
}

int reset_shared_pointer(File& file, int rank) {
  if (rank != 0) return 0;
  // Only a pointer in use has a file to reset; a missing one holds 0.
  const int fd = ::open(file.shared_path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? 0 : errno;
  ::close(fd);
  MPI_Offset old = 0;
  return update_pointer(file, 0, true, old);
}

int shared_pointer_bytes(const char* function, File& file, MPI_Offset& bytes) {
  int rank = 0;
  PMPI_Comm_rank(file.comm, &rank);
  MPI_Offset outcome[2] = {0, 0};  // bytes, errno
  if (PMPI_Barrier(file.comm) != MPI_SUCCESS) outcome[1] = EIO;
  if (rank == 0 && outcome[1] == 0) {
    MPI_Offset etypes = 0;
    outcome[1] = update_pointer(file, 0, false, etypes);
    if (outcome[1] == 0) outcome[0] = view_byte_offset(file.view, etypes);
  }
  if (PMPI_Bcast(outcome, 2, MPI_OFFSET, 0, file.comm) != MPI_SUCCESS) outcome[1] = EIO;
  if (outcome[1] != 0) return raise_pointer_error(file, function, static_cast<int>(outcome[1]));
  bytes = outcome[0];
  return MPI_SUCCESS;
}

void remove_shared_pointer(File& file, int rank) {
  if (file.shared_fd >= 0) ::close(file.shared_fd);
  file.shared_fd = -1;
  if (rank == 0) (void)::unlink(file.shared_path.c_str());
}

}  // namespace tern::mpi

using namespace tern::mpi;

extern "C" {

int PMPI_File_read_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return shared_access("MPI_File_read_shared", fh, kAtPointer, buf, count, datatype, false, status);
}

int PMPI_File_write_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return shared_access("MPI_File_write_shared", fh, kAtPointer, const_cast<void*>(buf), count, datatype, true,
                       status);
}

int PMPI_File_iread_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return access_now(shared_access, "MPI_File_iread_shared", fh, kAtPointer, buf, count, datatype, false, request);
}

int PMPI_File_iwrite_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return access_now(shared_access, "MPI_File_iwrite_shared", fh, kAtPointer, const_cast<void*>(buf), count, datatype,
                    true, request);
}

int PMPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return ordered_access("MPI_File_read_ordered", fh, kAtPointer, buf, count, datatype, false, status);
}

int PMPI_File_write_ordered(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return ordered_access("MPI_File_write_ordered", fh, kAtPointer, const_cast<void*>(buf), count, datatype, true,
                        status);
}

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  static constexpr const char* kFunction = "MPI_File_seek_shared";
  File* file = nullptr;
  if (const int error = find_file_checked(kFunction, fh, file); error != MPI_SUCCESS) return error;
  if (const int error = check_not_sequential(kFunction, *file); error != MPI_SUCCESS) return error;
  int rank = 0;
  PMPI_Comm_rank(file->comm, &rank);
  // Every rank is done with the pointer before rank 0 moves it, and the
  // broadcast of rank 0's outcome holds the others until it has.
  MPI_Offset outcome[2] = {MPI_SUCCESS, 0};  // MPI error class, errno
  if (PMPI_Barrier(file->comm) != MPI_SUCCESS) outcome[1] = EIO;
  if (rank == 0 && outcome[1] == 0) {
    MPI_Offset current = 0, target = 0;
    outcome[1] = update_pointer(*file, 0, false, current);
    if (outcome[1] == 0) outcome[0] = seek_target(kFunction, fh, *file, offset, whence, current, target);
    if (outcome[1] == 0 && outcome[0] == MPI_SUCCESS) outcome[1] = update_pointer(*file, target, true, current);
  }
  if (PMPI_Bcast(outcome, 2, MPI_OFFSET, 0, file->comm) != MPI_SUCCESS) outcome[1] = EIO;
  if (outcome[1] != 0) return raise_pointer_error(*file, kFunction, static_cast<int>(outcome[1]));
  if (outcome[0] != MPI_SUCCESS) {
    return raise_file(file, static_cast<int>(outcome[0]), kFunction, "offset %lld, whence %d refused", offset, whence);
  }
  return MPI_SUCCESS;
}

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  static constexpr const char* kFunction = "MPI_File_get_position_shared";
  File* file = nullptr;
  if (const int error = find_file_checked(kFunction, fh, file); error != MPI_SUCCESS) return error;
  if (offset == nullptr) return raise_file(file, MPI_ERR_ARG, kFunction, "null offset argument");
  if (const int failure = update_pointer(*file, 0, false, *offset); failure != 0) {
    return raise_pointer_error(*file, kFunction, failure);
  }
  return MPI_SUCCESS;
}

// The large-count (_c) forms: the same accesses with MPI_Count counts.
int PMPI_File_read_shared_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return shared_access("MPI_File_read_shared_c", fh, kAtPointer, buf, count, datatype, false, status);
}

int PMPI_File_write_shared_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return shared_access("MPI_File_write_shared_c", fh, kAtPointer, const_cast<void*>(buf), count, datatype, true,
                       status);
}

int PMPI_File_iread_shared_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return access_now(shared_access, "MPI_File_iread_shared_c", fh, kAtPointer, buf, count, datatype, false, request);
}

int PMPI_File_iwrite_shared_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return access_now(shared_access, "MPI_File_iwrite_shared_c", fh, kAtPointer, const_cast<void*>(buf), count, datatype,
                    true, request);
}

int PMPI_File_read_ordered_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return ordered_access("MPI_File_read_ordered_c", fh, kAtPointer, buf, count, datatype, false, status);
}

int PMPI_File_write_ordered_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return ordered_access("MPI_File_write_ordered_c", fh, kAtPointer, const_cast<void*>(buf), count, datatype, true,
                        status);
}

#pragma weak MPI_File_read_shared = PMPI_File_read_shared
#pragma weak MPI_File_write_shared = PMPI_File_write_shared
#pragma weak MPI_File_iread_shared = PMPI_File_iread_shared
#pragma weak MPI_File_iwrite_shared = PMPI_File_iwrite_shared
#pragma weak MPI_File_read_ordered = PMPI_File_read_ordered
#pragma weak MPI_File_write_ordered = PMPI_File_write_ordered
#pragma weak MPI_File_seek_shared = PMPI_File_seek_shared
#pragma weak MPI_File_get_position_shared = PMPI_File_get_position_shared
#pragma weak MPI_File_read_shared_c = PMPI_File_read_shared_c
#pragma weak MPI_File_write_shared_c = PMPI_File_write_shared_c
#pragma weak MPI_File_iread_shared_c = PMPI_File_iread_shared_c
#pragma weak MPI_File_iwrite_shared_c = PMPI_File_iwrite_shared_c
#pragma weak MPI_File_read_ordered_c = PMPI_File_read_ordered_c
#pragma weak MPI_File_write_ordered_c = PMPI_File_write_ordered_c

}  // extern "C"
