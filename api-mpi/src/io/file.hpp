// MPI-IO: open files behind int handles, their views, and the pieces the
// I/O calls share. A file is a POSIX descriptor per process; data moves with
// pread/pwrite, so any local or shared file system that keeps POSIX
// semantics between the processes serves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "datatype/derived.hpp"
#include "io/datarep.hpp"
#include "info/info.hpp"
#include "mpi.h"

namespace tern::mpi {

// Where a file's data lies: from byte `disp`, tiles of `filetype` (its
// extent apart), counted in etypes.
struct FileView {
  MPI_Offset disp = 0;
  MPI_Datatype etype = MPI_BYTE;
  MPI_Datatype filetype = MPI_BYTE;
  std::size_t etype_size = 1;
  std::shared_ptr<const DerivedType> filetype_map;  // held: the handle may be freed
  // The file holds "external32" data: big-endian, the standard's sizes. The
  // view's types then have the same layout in both (MPI_File_set_view
  // refuses others), and accesses convert through the packed buffer.
  bool external32 = false;
  // A representation of the program's (MPI_Register_datarep), null
  // otherwise: the same layout too, values converted by its callbacks.
  std::shared_ptr<const UserDatarep> user_datarep;
};

struct File {
  int fd = -1;
  int amode = 0;
  MPI_Comm comm = MPI_COMM_NULL;  // a private duplicate of the opening communicator
  MPI_Errhandler errhandler = MPI_ERRORS_RETURN;
  std::string path;
  InfoEntries hints;
  FileView view;
  MPI_Offset position = 0;  // individual file pointer, in etypes of the view
  bool atomic = false;      // MPI_File_set_atomicity: each access locks its span
  std::string shared_path;  // the shared file pointer's file (shared.cpp)
  int shared_fd = -1;       // open on first use
  // A split collective begun and not yet ended (split.cpp): its outcome.
  bool split_active = false;
  int split_error = MPI_SUCCESS;
  MPI_Status split_status{};
};

// The file `handle` names, or null.
[[nodiscard]] File* find_file(MPI_File handle);
// Raises `error_class` from `function` on `file`'s handler (null: the
// handler of MPI_FILE_NULL, as the standard wants for errors without a file).
int raise_file(const File* file, int error_class, const char* function, const char* format, ...)
    __attribute__((format(printf, 4, 5)));
// find_file with the MPI_Init and handle checks every call makes.
int find_file_checked(const char* function, MPI_File handle, File*& file);
// The MPI error class of a failed system call's errno.
[[nodiscard]] int error_class_of_errno(int error) noexcept;

// --- Views (view.cpp)
// One contiguous piece of an access: `length` bytes at file offset `file`,
// `data` bytes into the access's packed data.
struct FileSegment {
  MPI_Offset file;
  MPI_Offset data;
  MPI_Offset length;
};
// The file pieces of `bytes` bytes of data starting `data_start` bytes into
// the view's data stream, adjacent pieces merged.
void view_segments(const FileView& view, MPI_Offset data_start, MPI_Offset bytes, std::vector<FileSegment>& out);
// The absolute byte offset of view position `offset` (in etypes).
[[nodiscard]] MPI_Offset view_byte_offset(const FileView& view, MPI_Offset offset);

// --- Data movement shared by independent and collective calls (independent.cpp)
// The user's buffer as one packed run of bytes: the buffer itself for a
// contiguous type, a temporary otherwise (packed for writes, unpacked into
// the user's buffer by finish() for reads).
class PackedBuffer {
 public:
  PackedBuffer() = default;
  PackedBuffer(const PackedBuffer&) = delete;
  PackedBuffer& operator=(const PackedBuffer&) = delete;
  ~PackedBuffer();
  // The access's data as one run: the user's buffer itself, or a temporary
  // packed from it (writes), in external32 form for such a view. An error
  // class raised for `function` (no memory, no external32 form, a value too
  // wide for it).
  // `datatype`: the handle `type` describes, for a user representation's
  // callbacks.
  int prepare(const char* function, File& file, std::shared_ptr<const DerivedType> type, MPI_Datatype datatype,
              void* user, std::size_t count, bool write);
  [[nodiscard]] char* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
  // Reads: scatters the first `received` bytes into the user's buffer;
  // the error code of a user representation's read callback.
  [[nodiscard]] int finish(std::size_t received) noexcept;
  // What `moved` bytes of the run are in the user's memory: the status's
  // count (external32 sizes differ from native ones).
  [[nodiscard]] std::size_t native_bytes(std::size_t moved) const noexcept;

 private:
  bool external32_ = false;
  std::shared_ptr<const UserDatarep> user_datarep_;
  MPI_Datatype datatype_ = MPI_DATATYPE_NULL;
  std::size_t external_instance_ = 0;  // external32 bytes of one instance
  std::shared_ptr<const DerivedType> type_;
  void* user_ = nullptr;
  std::size_t count_ = 0;
  char* data_ = nullptr;
  char* temp_ = nullptr;
  std::size_t bytes_ = 0;
};

// Where an access starts: an explicit offset (etypes), or the individual
// file pointer (advanced by what moved).
struct Where {
  bool at_pointer;
  MPI_Offset offset;
  bool shared;  // the shared file pointer's place: all MPI_MODE_SEQUENTIAL allows
};
inline constexpr Where kAtPointer{true, 0, false};
[[nodiscard]] inline Where at(MPI_Offset offset) noexcept { return Where{false, offset, false}; }
[[nodiscard]] inline Where at_shared(MPI_Offset offset) noexcept { return Where{false, offset, true}; }
// MPI_ERR_UNSUPPORTED_OPERATION (raised) when `file` was opened with
// MPI_MODE_SEQUENTIAL, where only the shared file pointer may move.
int check_not_sequential(const char* function, File& file);

// One access of `count` elements of `datatype` at `where`: independent
// (independent.cpp), or collective over the file's ranks by two-phase
// aggregation (collective.cpp). Errors are raised on the file.
using AccessFunction = int (*)(const char* function, MPI_File fh, Where where, void* buf, MPI_Count count,
                               MPI_Datatype datatype, bool write, MPI_Status* status);
int independent_access(const char* function, MPI_File fh, Where where, void* buf, MPI_Count count, MPI_Datatype datatype,
                       bool write, MPI_Status* status);
int collective_access(const char* function, MPI_File fh, Where where, void* buf, MPI_Count count, MPI_Datatype datatype,
                      bool write, MPI_Status* status);
// Collective access in rank order from the shared file pointer, which ends
// past all of it (shared.cpp).
int ordered_access(const char* function, MPI_File fh, Where where, void* buf, MPI_Count count, MPI_Datatype datatype,
                   bool write, MPI_Status* status);
// The non-blocking forms: `run` does the access now and `request` is one
// done at once (the standard lets an operation complete before its start
// call returns).
int access_now(AccessFunction run, const char* function, MPI_File fh, Where where, void* buf, MPI_Count count,
               MPI_Datatype datatype, bool write, MPI_Request* request);

// The checks every data access makes: count, datatype (committed), buffer,
// and the access mode; sets `type`. `write` says which way data goes.
int check_access(const char* function, File& file, const void* buf, MPI_Count count, MPI_Datatype datatype, bool write,
                 std::shared_ptr<const DerivedType>& type);
// Moves `segments` (ascending in the file) between the file and `data` with
// pread/pwrite, under a lock of their span in atomic mode; `done` gets the
// bytes moved before the end of file (reads) or an error. Returns 0 or an
// errno.
int transfer_segments(const File& file, const std::vector<FileSegment>& segments, char* data, bool write,
                      std::size_t& done);
// An fcntl lock of `type` (F_RDLCK, F_WRLCK, F_UNLCK) on a byte range,
// waiting for it; 0 or an errno.
int lock_range(int fd, short type, MPI_Offset start, MPI_Offset length);
// Where MPI_File_seek's (offset, whence) points, in etypes of the view, from
// `current` (MPI_SEEK_CUR); MPI_SEEK_END is the data the file holds.
int seek_target(const char* function, MPI_File fh, File& file, MPI_Offset offset, int whence, MPI_Offset current,
                MPI_Offset& target);
// --- Shared file pointer (shared.cpp): a small file beside the data file
// holds it, updated under an fcntl lock, made on first use. Open names it
// (collective), close removes it, set_view resets it.
void name_shared_pointer(File& file, int rank);
int reset_shared_pointer(File& file, int rank);
void remove_shared_pointer(File& file, int rank);
// Collective: the byte offset the shared pointer points at (set_view's
// MPI_DISPLACEMENT_CURRENT), once every rank is done moving it.
int shared_pointer_bytes(const char* function, File& file, MPI_Offset& bytes);
// A status reporting `bytes` moved.
void file_status(MPI_Status* status, std::size_t bytes);

}  // namespace tern::mpi
