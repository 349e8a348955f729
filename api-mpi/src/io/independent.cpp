// Independent I/O: read/write at an explicit offset or the individual file
// pointer, their non-blocking forms, seek and position. Data is packed into
// one run (unless the memory type is contiguous already), mapped through
// the view into file pieces, and moved with pread/pwrite.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <cstdio>

#include "datatype/external.hpp"
#include "io/file.hpp"
#include "state.hpp"

namespace tern::mpi {

PackedBuffer::~PackedBuffer() { std::free(temp_); }

int PackedBuffer::prepare(const char* function, File& file, std::shared_ptr<const DerivedType> type,
                          MPI_Datatype datatype, void* user, std::size_t count, bool write) {
  bytes_ = type->size * count;
  user_ = user;
  count_ = count;
  external32_ = file.view.external32;
  user_datarep_ = file.view.user_datarep;
  datatype_ = datatype;
  if (user_datarep_ != nullptr) {
    int error = MPI_SUCCESS;
    MPI_Datatype offending = MPI_DATATYPE_NULL;
    if (!datarep_same_layout(*user_datarep_, *type, &error, &offending)) {
      return raise_file(&file, error, function,
                        "datatype %d holds type %d, whose size in data representation \"%s\" differs from its size "
                        "here (or whose extent callback failed)",
                        datatype, offending, user_datarep_->name.c_str());
    }
  }
  if (external32_) {
    bool ok = false;
    external_instance_ = external32_size(*type, &ok);
    if (!ok) {
      return raise_file(&file, MPI_ERR_CONVERSION, function,
                        "the memory datatype holds a type without an external32 form here");
    }
    bytes_ = external_instance_ * count;
  } else if (type->contiguous && user_datarep_ == nullptr) {
    data_ = static_cast<char*>(user);
    return MPI_SUCCESS;
  }
  temp_ = static_cast<char*>(std::malloc(bytes_ == 0 ? 1 : bytes_));
  if (temp_ == nullptr) {
    return raise_file(&file, MPI_ERR_NO_MEM, function, "no memory for %zu bytes of packed data", bytes_);
  }
  data_ = temp_;
  MPI_Datatype bad = MPI_DATATYPE_NULL;
  if (write && external32_ && !external32_pack(*type, count, user, temp_, &bad)) {
    return raise_file(&file, MPI_ERR_CONVERSION, function, "a value of datatype %d does not fit its external32 size",
                      bad);
  }
  if (write && user_datarep_ != nullptr && datarep_converts(*user_datarep_, true)) {
    if (const int error = datarep_convert(*user_datarep_, true, user, datatype, count, temp_); error != MPI_SUCCESS) {
      return raise_file(&file, error, function, "the write conversion of data representation \"%s\" failed",
                        user_datarep_->name.c_str());
    }
  } else if (write && !external32_) {
    pack_data(*type, user, count, temp_);
  }
  type_ = std::move(type);
  return MPI_SUCCESS;
}

int PackedBuffer::finish(std::size_t received) noexcept {
  if (temp_ == nullptr) return MPI_SUCCESS;
  if (user_datarep_ != nullptr && datarep_converts(*user_datarep_, false)) {
    // Whole items only, as for external32.
    if (type_->size == 0) return MPI_SUCCESS;
    return datarep_convert(*user_datarep_, false, user_, datatype_, received / type_->size, temp_);
  }
  if (!external32_) {
    unpack_data(*type_, temp_, received, user_, count_);
    return MPI_SUCCESS;
  }
  // Whole instances only: a read that ended early leaves the rest alone.
  if (external_instance_ != 0) external32_unpack(*type_, received / external_instance_, temp_, user_);
  return MPI_SUCCESS;
}

std::size_t PackedBuffer::native_bytes(std::size_t moved) const noexcept {
  if (!external32_ || external_instance_ == 0 || type_ == nullptr) return moved;
  return moved / external_instance_ * type_->size;
}

int check_access(const char* function, File& file, const void* buf, MPI_Count count, MPI_Datatype datatype, bool write,
                 std::shared_ptr<const DerivedType>& type) {
  if (count < 0) return raise_file(&file, MPI_ERR_COUNT, function, "negative count %lld", count);
  type = describe_type(datatype);
  if (type == nullptr || !type->committed) {
    return raise_file(&file, MPI_ERR_TYPE, function, "datatype %d is not a committed datatype", datatype);
  }
  if (buf == nullptr && count > 0 && type->size > 0) {
    return raise_file(&file, MPI_ERR_BUFFER, function, "null buffer for %lld elements", count);
  }
  const int access = file.amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
  if (write && access == MPI_MODE_RDONLY) {
    return raise_file(&file, MPI_ERR_READ_ONLY, function, "file %s is open read-only", file.path.c_str());
  }
  if (!write && access == MPI_MODE_WRONLY) {
    return raise_file(&file, MPI_ERR_ACCESS, function, "file %s is open write-only", file.path.c_str());
  }
  if (type->size * static_cast<std::size_t>(count) % file.view.etype_size != 0) {
    return raise_file(&file, MPI_ERR_TYPE, function, "%lld elements of datatype %d are no whole number of etypes of %zu bytes",
                      count, datatype, file.view.etype_size);
  }
  return MPI_SUCCESS;
}

int lock_range(int fd, short type, MPI_Offset start, MPI_Offset length) {
  struct flock lock {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  lock.l_start = start;
  lock.l_len = length;
  while (::fcntl(fd, F_SETLKW, &lock) != 0) {
    if (errno != EINTR) return errno;
  }
  return 0;
}

namespace {

int move_segments(int fd, const std::vector<FileSegment>& segments, char* data, bool write, std::size_t& done) {
  for (const FileSegment& segment : segments) {
    MPI_Offset moved = 0;
    while (moved < segment.length) {
      char* at = data + segment.data + moved;
      const auto left = static_cast<std::size_t>(segment.length - moved);
      const ssize_t n = write ? ::pwrite(fd, at, left, segment.file + moved) : ::pread(fd, at, left, segment.file + moved);
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno;
      }
      if (n == 0) return write ? EIO : 0;  // a read ends at the end of the file
      moved += n;
      done += static_cast<std::size_t>(n);
    }
  }
  return 0;
}

}  // namespace

int transfer_segments(const File& file, const std::vector<FileSegment>& segments, char* data, bool write,
                      std::size_t& done) {
  done = 0;
  if (segments.empty()) return 0;
  if (!file.atomic) return move_segments(file.fd, segments, data, write, done);
  // Atomic mode: the access's whole span is locked against the other ranks'.
  const MPI_Offset first = segments.front().file;
  const MPI_Offset length = segments.back().file + segments.back().length - first;
  if (const int error = lock_range(file.fd, write ? F_WRLCK : F_RDLCK, first, length); error != 0) return error;
  const int error = move_segments(file.fd, segments, data, write, done);
  (void)lock_range(file.fd, F_UNLCK, first, length);
  return error;
}

void file_status(MPI_Status* status, std::size_t bytes) {
  empty_status(status);
  if (status != MPI_STATUS_IGNORE) status->tern_bytes = static_cast<MPI_Count>(bytes);
}

int independent_access(const char* function, MPI_File fh, Where where, void* buf, MPI_Count count, MPI_Datatype datatype, bool write,
           MPI_Status* status) {
  File* file = nullptr;
  if (const int error = find_file_checked(function, fh, file); error != MPI_SUCCESS) return error;
  if (!where.shared) {
    if (const int error = check_not_sequential(function, *file); error != MPI_SUCCESS) return error;
  }
  if (where.offset < 0) return raise_file(file, MPI_ERR_ARG, function, "negative offset %lld", where.offset);
  std::shared_ptr<const DerivedType> type;
  if (const int error = check_access(function, *file, buf, count, datatype, write, type); error != MPI_SUCCESS) {
    return error;
  }
  const bool at_pointer = where.at_pointer;
  const MPI_Offset start = at_pointer ? file->position : where.offset;
  PackedBuffer packed;
  if (const int error = packed.prepare(function, *file, type, datatype, buf, static_cast<std::size_t>(count), write);
      error != MPI_SUCCESS) {
    return error;
  }
  std::vector<FileSegment> segments;
  const auto etype_size = static_cast<MPI_Offset>(file->view.etype_size);
  view_segments(file->view, start * etype_size, static_cast<MPI_Offset>(packed.bytes()), segments);
  std::size_t moved = 0;
  const int error = transfer_segments(*file, segments, packed.data(), write, moved);
  const int conversion_error = write ? MPI_SUCCESS : packed.finish(moved);
  if (at_pointer) file->position = start + static_cast<MPI_Offset>(moved) / etype_size;
  file_status(status, packed.native_bytes(moved));
  if (error == 0 && conversion_error != MPI_SUCCESS) {
    return raise_file(file, conversion_error, function, "the read conversion of data representation \"%s\" failed",
                      file->view.user_datarep->name.c_str());
  }
  if (error != 0) {
    return raise_file(file, error_class_of_errno(error), function, "%s %s failed: %s", write ? "writing" : "reading",
                      file->path.c_str(), std::strerror(error));
  }
  return MPI_SUCCESS;
}

int access_now(AccessFunction run, const char* function, MPI_File fh, Where where, void* buf, MPI_Count count,
               MPI_Datatype datatype, bool write, MPI_Request* request) {
  if (g_state == nullptr) return not_initialized(function);
  if (request == nullptr) return raise_file(find_file(fh), MPI_ERR_ARG, function, "null request argument");
  MPI_Status status;
  if (const int error = run(function, fh, where, buf, count, datatype, write, &status); error != MPI_SUCCESS) {
    return error;
  }
  RequestSlot* slot = nullptr;
  const MPI_Request handle = g_state->requests.get(slot);
  if (handle == MPI_REQUEST_NULL) return raise_file(find_file(fh), MPI_ERR_NO_MEM, function, "no request left");
  slot->engine = nullptr;
  slot->kind = RequestKind::Recv;  // a status with a byte count to report
  slot->comm = MPI_COMM_NULL;
  slot->status = status;
  *request = handle;
  return MPI_SUCCESS;
}

int seek_target(const char* function, MPI_File fh, File& file, MPI_Offset offset, int whence, MPI_Offset current,
                MPI_Offset& target) {
  MPI_Offset base = 0;
  switch (whence) {
    case MPI_SEEK_SET: break;
    case MPI_SEEK_CUR: base = current; break;
    case MPI_SEEK_END: {
      // The end in etypes of the view: the data the file's bytes hold.
      MPI_Offset size = 0;
      if (const int error = PMPI_File_get_size(fh, &size); error != MPI_SUCCESS) return error;
      const DerivedType& map = *file.view.filetype_map;
      const MPI_Offset past = std::max<MPI_Offset>(0, size - file.view.disp - map.lb);
      const MPI_Offset tiles = past / map.extent;
      MPI_Offset data = tiles * static_cast<MPI_Offset>(map.size);
      const MPI_Offset tail = past - tiles * map.extent;  // bytes into the last, partial tile
      for (const TypeBlock& block : map.blocks) {
        if (block.offset - map.lb >= tail) break;
        data += std::min<MPI_Offset>(static_cast<MPI_Offset>(block.length), tail - (block.offset - map.lb));
      }
      base = data / static_cast<MPI_Offset>(file.view.etype_size);
      break;
    }
    default: return raise_file(&file, MPI_ERR_ARG, function, "invalid whence %d", whence);
  }
  if (base + offset < 0) {
    return raise_file(&file, MPI_ERR_ARG, function, "offset %lld would put the pointer before the view", offset);
  }
  target = base + offset;
  return MPI_SUCCESS;
}

}  // namespace tern::mpi

using namespace tern::mpi;

extern "C" {

int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                      MPI_Status* status) {
  return independent_access("MPI_File_read_at", fh, at(offset), buf, count, datatype, false, status);
}

int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                       MPI_Status* status) {
  return independent_access("MPI_File_write_at", fh, at(offset), const_cast<void*>(buf), count, datatype, true, status);
}

int PMPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return independent_access("MPI_File_read", fh, kAtPointer, buf, count, datatype, false, status);
}

int PMPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return independent_access("MPI_File_write", fh, kAtPointer, const_cast<void*>(buf), count, datatype, true, status);
}

int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                       MPI_Request* request) {
  return access_now(independent_access, "MPI_File_iread_at", fh, at(offset), buf, count, datatype, false, request);
}

int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                        MPI_Request* request) {
  return access_now(independent_access, "MPI_File_iwrite_at", fh, at(offset), const_cast<void*>(buf), count, datatype, true, request);
}

int PMPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return access_now(independent_access, "MPI_File_iread", fh, kAtPointer, buf, count, datatype, false, request);
}

int PMPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return access_now(independent_access, "MPI_File_iwrite", fh, kAtPointer, const_cast<void*>(buf), count, datatype, true, request);
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  static constexpr const char* kFunction = "MPI_File_seek";
  File* file = nullptr;
  if (const int error = find_file_checked(kFunction, fh, file); error != MPI_SUCCESS) return error;
  if (const int error = check_not_sequential(kFunction, *file); error != MPI_SUCCESS) return error;
  return seek_target(kFunction, fh, *file, offset, whence, file->position, file->position);
}

int PMPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  static constexpr const char* kFunction = "MPI_File_get_position";
  File* file = nullptr;
  if (const int error = find_file_checked(kFunction, fh, file); error != MPI_SUCCESS) return error;
  if (const int error = check_not_sequential(kFunction, *file); error != MPI_SUCCESS) return error;
  if (offset == nullptr) return raise_file(file, MPI_ERR_ARG, kFunction, "null offset argument");
  *offset = file->position;
  return MPI_SUCCESS;
}

// The large-count (_c) forms: the same accesses with MPI_Count counts.
int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Status* status) {
  return independent_access("MPI_File_read_at_c", fh, at(offset), buf, count, datatype, false, status);
}

int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Status* status) {
  return independent_access("MPI_File_write_at_c", fh, at(offset), const_cast<void*>(buf), count, datatype, true, status);
}

int PMPI_File_read_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return independent_access("MPI_File_read_c", fh, kAtPointer, buf, count, datatype, false, status);
}

int PMPI_File_write_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return independent_access("MPI_File_write_c", fh, kAtPointer, const_cast<void*>(buf), count, datatype, true, status);
}

int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Request* request) {
  return access_now(independent_access, "MPI_File_iread_at_c", fh, at(offset), buf, count, datatype, false, request);
}

int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Request* request) {
  return access_now(independent_access, "MPI_File_iwrite_at_c", fh, at(offset), const_cast<void*>(buf), count, datatype, true, request);
}

int PMPI_File_iread_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return access_now(independent_access, "MPI_File_iread_c", fh, kAtPointer, buf, count, datatype, false, request);
}

int PMPI_File_iwrite_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return access_now(independent_access, "MPI_File_iwrite_c", fh, kAtPointer, const_cast<void*>(buf), count, datatype, true, request);
}

#pragma weak MPI_File_read_at = PMPI_File_read_at
#pragma weak MPI_File_write_at = PMPI_File_write_at
#pragma weak MPI_File_read = PMPI_File_read
#pragma weak MPI_File_write = PMPI_File_write
#pragma weak MPI_File_iread_at = PMPI_File_iread_at
#pragma weak MPI_File_iwrite_at = PMPI_File_iwrite_at
#pragma weak MPI_File_iread = PMPI_File_iread
#pragma weak MPI_File_iwrite = PMPI_File_iwrite
#pragma weak MPI_File_seek = PMPI_File_seek
#pragma weak MPI_File_get_position = PMPI_File_get_position
#pragma weak MPI_File_read_at_c = PMPI_File_read_at_c
#pragma weak MPI_File_write_at_c = PMPI_File_write_at_c
#pragma weak MPI_File_read_c = PMPI_File_read_c
#pragma weak MPI_File_write_c = PMPI_File_write_c
#pragma weak MPI_File_iread_at_c = PMPI_File_iread_at_c
#pragma weak MPI_File_iwrite_at_c = PMPI_File_iwrite_at_c
#pragma weak MPI_File_iread_c = PMPI_File_iread_c
#pragma weak MPI_File_iwrite_c = PMPI_File_iwrite_c

}  // extern "C"
