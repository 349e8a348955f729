// File handles: open, close, delete, sizes, sync, access mode, group, hints,
// error handlers and handle conversion.
#include "io/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <algorithm>

#include "errors/user_errors.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

struct FileTable {
  HandleTable<File, 10> files;
  // MPI_FILE_NULL's handler: the one errors without a file go to, and the
  // one new files start with.
  MPI_Errhandler null_errhandler = MPI_ERRORS_RETURN;
};
FileTable g_files;
constexpr int kMaxFiles = decltype(g_files.files)::kCapacity;

bool valid_errhandler(MPI_Errhandler handler) { return errhandler_accepts(handler, ErrhandlerKind::File); }

// The open(2) flags of an access mode; -1 when the mode is invalid, with
// `why` saying how.
int open_flags(int amode, const char*& why) {
  const int access = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
  const int known = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE |
                    MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL | MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
  why = nullptr;
  if ((amode & ~known) != 0) {
    why = "unknown bits";
  } else if (access != MPI_MODE_RDONLY && access != MPI_MODE_WRONLY && access != MPI_MODE_RDWR) {
    why = "exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR is required";
  } else if (access == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)) != 0) {
    why = "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
  } else if (access == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL) != 0) {
    why = "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL";
  }
  if (why != nullptr) return -1;
  int flags = O_CLOEXEC;
  flags |= access == MPI_MODE_RDONLY ? O_RDONLY : access == MPI_MODE_WRONLY ? O_WRONLY : O_RDWR;
  return flags;
}

// Whether `value` is the same on every rank of `comm` (one allreduce).
bool same_everywhere(MPI_Comm comm, long long value) {
  long long bounds[2] = {value, -value};
  if (PMPI_Allreduce(MPI_IN_PLACE, bounds, 2, MPI_LONG_LONG, MPI_MAX, comm) != MPI_SUCCESS) return false;
  return bounds[0] == -bounds[1];
}

// Opens the file on every rank: rank 0 first (it alone creates), then the
// others. Returns the error class, the same on every rank.
int open_everywhere(MPI_Comm comm, int rank, const char* path, int flags, int amode, int& fd) {
  int error = 0;
  if (rank == 0) {
    int create = (amode & MPI_MODE_CREATE) != 0 ? O_CREAT : 0;
    if ((amode & MPI_MODE_EXCL) != 0) create |= O_EXCL;
    fd = ::open(path, flags | create, 0666);
    if (fd < 0) error = error_class_of_errno(errno);
  }
  if (PMPI_Bcast(&error, 1, MPI_INT, 0, comm) != MPI_SUCCESS) error = MPI_ERR_OTHER;
  if (error != MPI_SUCCESS) return error;
  if (rank != 0) {
    fd = ::open(path, flags);
    if (fd < 0) error = error_class_of_errno(errno);
  }
  int worst = error;
  if (PMPI_Allreduce(&error, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) worst = MPI_ERR_OTHER;
  if (worst != MPI_SUCCESS && fd >= 0) {
    ::close(fd);
    fd = -1;
  }
  return worst;
}

// ROMIO names its file-system drivers in a prefix ("ufs:/scratch/x");
// programs written for it keep them. Tern has one driver: the path follows.
const char* without_driver_prefix(const char* filename) {
  static constexpr const char* kPrefixes[] = {"ufs:", "nfs:", "lustre:", "gpfs:", "xfs:", "panfs:", "pvfs2:"};
  for (const char* prefix : kPrefixes) {
    const std::size_t length = std::strlen(prefix);
    if (std::strncmp(filename, prefix, length) == 0) return filename + length;
  }
  return filename;
}

}  // namespace

File* find_file(MPI_File handle) { return g_files.files.find(handle); }

int raise_file(const File* file, int error_class, const char* function, const char* format, ...) {
  const MPI_Errhandler handler = file != nullptr ? file->errhandler : g_files.null_errhandler;
  if (handler == MPI_ERRORS_RETURN) return error_class;
  if (call_user_errhandler(handler, g_files.files.handle_of(file), error_class)) return error_class;
  char detail[384];
  va_list args;
  va_start(args, format);
  std::vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  // The communicator path prints and aborts; a handler-less stand-in takes it there.
  static Comm fatal;
  return raise(&fatal, error_class, function, "%s", detail);
}

int find_file_checked(const char* function, MPI_File handle, File*& file) {
  if (g_state == nullptr) return not_initialized(function);
  file = find_file(handle);
  if (file == nullptr) return raise_file(nullptr, MPI_ERR_FILE, function, "invalid file handle %d", handle);
  return MPI_SUCCESS;
}

int check_not_sequential(const char* function, File& file) {
  if ((file.amode & MPI_MODE_SEQUENTIAL) == 0) return MPI_SUCCESS;
  return raise_file(&file, MPI_ERR_UNSUPPORTED_OPERATION, function,
                    "%s was opened with MPI_MODE_SEQUENTIAL: only the shared file pointer calls may access it",
                    file.path.c_str());
}

int error_class_of_errno(int error) noexcept {
  switch (error) {
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM: return MPI_ERR_ACCESS;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENOSPC: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case ETXTBSY:
    case EBUSY: return MPI_ERR_FILE_IN_USE;
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP: return MPI_ERR_BAD_FILE;
    case ENOMEM: return MPI_ERR_NO_MEM;
    default: return MPI_ERR_IO;
  }
}

}  // namespace tern::mpi

using namespace tern::mpi;

extern "C" {

int PMPI_File_open(MPI_Comm comm_handle, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  static constexpr const char* kFunction = "MPI_File_open";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = find_comm(comm_handle);
  if (comm == nullptr) return raise_file(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", comm_handle);
  if (comm->inter) return raise_file(nullptr, MPI_ERR_COMM, kFunction, "not defined on an intercommunicator");
  if (filename == nullptr) return raise_file(nullptr, MPI_ERR_ARG, kFunction, "null filename");
  filename = without_driver_prefix(filename);
  if (fh == nullptr) return raise_file(nullptr, MPI_ERR_ARG, kFunction, "null fh argument");
  InfoEntries hints;
  if (info != MPI_INFO_NULL && !info_entries(info, hints)) {
    return raise_file(nullptr, MPI_ERR_INFO, kFunction, "invalid info object %d", info);
  }
  const char* why = nullptr;
  const int flags = open_flags(amode, why);
  if (flags < 0) return raise_file(nullptr, MPI_ERR_AMODE, kFunction, "invalid amode %#x: %s", amode, why);
  if (!same_everywhere(comm_handle, amode)) {
    return raise_file(nullptr, MPI_ERR_NOT_SAME, kFunction, "amode %#x differs between the ranks", amode);
  }
  auto file = std::make_unique<File>();
  if (PMPI_Comm_dup(comm_handle, &file->comm) != MPI_SUCCESS) {
    return raise_file(nullptr, MPI_ERR_OTHER, kFunction, "no communicator for the file");
  }
  const int error = open_everywhere(file->comm, comm->rank, filename, flags, amode, file->fd);
  if (error != MPI_SUCCESS) {
    PMPI_Comm_free(&file->comm);
    char reason[MPI_MAX_ERROR_STRING];
    int length = 0;
    PMPI_Error_string(error, reason, &length);
    return raise_file(nullptr, error, kFunction, "cannot open %s (%s)", filename, reason);
  }
  file->amode = amode;
  file->path = filename;
  name_shared_pointer(*file, comm->rank);
  file->hints = std::move(hints);
  file->errhandler = g_files.null_errhandler;
  file->view.filetype_map = describe_type(MPI_BYTE);
  if ((amode & MPI_MODE_APPEND) != 0) {
    struct stat info_out {};
    if (::fstat(file->fd, &info_out) == 0) file->position = info_out.st_size;
  }
  const int fd = file->fd;
  MPI_Comm dup = file->comm;
  *fh = g_files.files.add(file);
  if (*fh == MPI_FILE_NULL) {
    ::close(fd);
    PMPI_Comm_free(&dup);
    return raise_file(nullptr, MPI_ERR_NO_MEM, kFunction, "too many open files (%d)", kMaxFiles - 1);
  }
  return MPI_SUCCESS;
}

int PMPI_File_close(MPI_File* fh) {
  static constexpr const char* kFunction = "MPI_File_close";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (fh == nullptr) return raise_file(nullptr, MPI_ERR_ARG, kFunction, "null fh argument");
  File* file = nullptr;
  if (const int error = find_file_checked(kFunction, *fh, file); error != MPI_SUCCESS) return error;
  // Every rank's writes are done before the file goes (and, with
  // MPI_MODE_DELETE_ON_CLOSE, before rank 0 removes it).
  int error = PMPI_Barrier(file->comm) == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_OTHER;
  if (::close(file->fd) != 0 && error == MPI_SUCCESS) error = error_class_of_errno(errno);
  int rank = 0;
  PMPI_Comm_rank(file->comm, &rank);
  remove_shared_pointer(*file, rank);
  if ((file->amode & MPI_MODE_DELETE_ON_CLOSE) != 0) {
    if (rank == 0 && ::unlink(file->path.c_str()) != 0 && error == MPI_SUCCESS) error = error_class_of_errno(errno);
    // No rank returns while the file is still there.
    if (PMPI_Barrier(file->comm) != MPI_SUCCESS && error == MPI_SUCCESS) error = MPI_ERR_OTHER;
  }
  for (MPI_Datatype* type : {&file->view.etype, &file->view.filetype}) {
    if (is_derived_handle(*type)) PMPI_Type_free(type);
  }
  PMPI_Comm_free(&file->comm);
  File closed_view;  // errors after the handle is gone still reach the file's handler
  closed_view.errhandler = file->errhandler;
  const std::string path = file->path;
  g_files.files.remove(*fh);
  *fh = MPI_FILE_NULL;
  if (error != MPI_SUCCESS) return raise_file(&closed_view, error, kFunction, "closing %s failed", path.c_str());
  return MPI_SUCCESS;
}

int PMPI_File_delete(const char* filename, MPI_Info info) {
  static constexpr const char* kFunction = "MPI_File_delete";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (filename == nullptr) return raise_file(nullptr, MPI_ERR_ARG, kFunction, "null filename");
  filename = without_driver_prefix(filename);
  InfoEntries ignored;
  if (info != MPI_INFO_NULL && !info_entries(info, ignored)) {
    return raise_file(nullptr, MPI_ERR_INFO, kFunction, "invalid info object %d", info);
  }
  if (::unlink(filename) != 0) {
    const int error = errno;
    return raise_file(nullptr, error_class_of_errno(error), kFunction, "cannot delete %s: %s", filename,
                      std::strerror(error));
  }
  return MPI_SUCCESS;
}

// MPI_File_set_size and MPI_File_preallocate: rank 0 changes the file, the
// broadcast of its result keeps the others until it has.
static int resize(const char* function, MPI_File fh, MPI_Offset size, bool preallocate) {
  File* file = nullptr;
  if (const int error = find_file_checked(function, fh, file); error != MPI_SUCCESS) return error;
  if (size < 0) return raise_file(file, MPI_ERR_ARG, function, "negative size %lld", size);
  if ((file->amode & MPI_MODE_RDONLY) != 0) {
    return raise_file(file, MPI_ERR_READ_ONLY, function, "file %s is open read-only", file->path.c_str());
  }
  if (!same_everywhere(file->comm, size)) {
    return raise_file(file, MPI_ERR_NOT_SAME, function, "size %lld differs between the ranks", size);
  }
  int rank = 0;
  PMPI_Comm_rank(file->comm, &rank);
  int error = 0;
  if (rank == 0) {
    if (preallocate) {
      error = size == 0 ? 0 : ::posix_fallocate(file->fd, 0, size);
    } else if (::ftruncate(file->fd, size) != 0) {
      error = errno;
    }
  }
  if (PMPI_Bcast(&error, 1, MPI_INT, 0, file->comm) != MPI_SUCCESS) error = EIO;
  if (error != 0) {
    return raise_file(file, error_class_of_errno(error), function, "cannot size %s to %lld bytes: %s",
                      file->path.c_str(), size, std::strerror(error));
  }
  return MPI_SUCCESS;
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size) { return resize("MPI_File_set_size", fh, size, false); }

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) { return resize("MPI_File_preallocate", fh, size, true); }

int PMPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  static constexpr const char* kFunction = "MPI_File_get_size";
  File* file = nullptr;
  if (const int error = find_file_checked(kFunction, fh, file); error != MPI_SUCCESS) return error;
  if (size == nullptr) return raise_file(file, MPI_ERR_ARG, kFunction, "null size argument");
  struct stat info {};
  if (::fstat(file->fd, &info) != 0) {
    return raise_file(file, error_class_of_errno(errno), kFunction, "cannot stat %s", file->path.c_str());
  }
  *size = info.st_size;
  return MPI_SUCCESS;
}

int PMPI_File_sync(MPI_File fh) {
  static constexpr const char* kFunction = "MPI_File_sync";
  File* file = nullptr;
  if (const int error = find_file_checked(kFunction, fh, file); error != MPI_SUCCESS) return error;
  int error = ::fsync(file->fd) == 0 ? 0 : errno;
  // Collective: what any rank wrote is on storage when every rank returns.
  int worst = error;
  if (PMPI_Allreduce(&error, &worst, 1, MPI_INT, MPI_MAX, file->comm) != MPI_SUCCESS) worst = EIO;
  if (worst != 0) return raise_file(file, error_class_of_errno(worst), kFunction, "fsync failed: %s", std::strerror(worst));
  return MPI_SUCCESS;
}

int PMPI_File_set_atomicity(MPI_File fh, int flag) {
  static constexpr const char* kFunction = "MPI_File_set_atomicity";
  File* file = nullptr;
  if (const int error = find_file_checked(kFunction, fh, file); error != MPI_SUCCESS) return error;
  if (!same_everywhere(file->comm, flag != 0)) {
    return raise_file(file, MPI_ERR_NOT_SAME, kFunction, "flag %d differs between the ranks", flag);
  }
  file->atomic = flag != 0;
  return MPI_SUCCESS;
}

int PMPI_File_get_atomicity(MPI_File fh, int* flag) {
  File* file = nullptr;
  if (const int error = find_file_checked("MPI_File_get_atomicity", fh, file); error != MPI_SUCCESS) return error;
  if (flag == nullptr) return raise_file(file, MPI_ERR_ARG, "MPI_File_get_atomicity", "null flag argument");
  *flag = file->atomic ? 1 : 0;
  return MPI_SUCCESS;
}

int PMPI_File_get_amode(MPI_File fh, int* amode) {
  File* file = nullptr;
  if (const int error = find_file_checked("MPI_File_get_amode", fh, file); error != MPI_SUCCESS) return error;
  if (amode == nullptr) return raise_file(file, MPI_ERR_ARG, "MPI_File_get_amode", "null amode argument");
  *amode = file->amode;
  return MPI_SUCCESS;
}

int PMPI_File_get_group(MPI_File fh, MPI_Group* group) {
  File* file = nullptr;
  if (const int error = find_file_checked("MPI_File_get_group", fh, file); error != MPI_SUCCESS) return error;
  if (group == nullptr) return raise_file(file, MPI_ERR_ARG, "MPI_File_get_group", "null group argument");
  return PMPI_Comm_group(file->comm, group);
}

int PMPI_File_set_info(MPI_File fh, MPI_Info info) {
  static constexpr const char* kFunction = "MPI_File_set_info";
  File* file = nullptr;
  if (const int error = find_file_checked(kFunction, fh, file); error != MPI_SUCCESS) return error;
  InfoEntries added;
  if (info != MPI_INFO_NULL && !info_entries(info, added)) {
    return raise_file(file, MPI_ERR_INFO, kFunction, "invalid info object %d", info);
  }
  for (auto& [key, value] : added) {
    auto same_key = [&key](const auto& entry) { return entry.first == key; };
    auto found = std::find_if(file->hints.begin(), file->hints.end(), same_key);
    if (found != file->hints.end()) {
      found->second = std::move(value);
    } else {
      file->hints.emplace_back(key, std::move(value));
    }
  }
  return MPI_SUCCESS;
}

int PMPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  static constexpr const char* kFunction = "MPI_File_get_info";
  File* file = nullptr;
  if (const int error = find_file_checked(kFunction, fh, file); error != MPI_SUCCESS) return error;
  if (info_used == nullptr) return raise_file(file, MPI_ERR_ARG, kFunction, "null info_used argument");
  *info_used = make_info(file->hints);
  if (*info_used == MPI_INFO_NULL) return raise_file(file, MPI_ERR_NO_MEM, kFunction, "no info handle left");
  return MPI_SUCCESS;
}

// The error-handler calls take MPI_FILE_NULL too (file: null).
static int find_file_or_null(const char* function, MPI_File fh, File*& file) {
  file = fh == MPI_FILE_NULL ? nullptr : find_file(fh);
  if (fh != MPI_FILE_NULL && file == nullptr) {
    return raise_file(nullptr, MPI_ERR_FILE, function, "invalid file handle %d", fh);
  }
  return MPI_SUCCESS;
}

int PMPI_File_set_errhandler(MPI_File fh, MPI_Errhandler errhandler) {
  static constexpr const char* kFunction = "MPI_File_set_errhandler";
  if (g_state == nullptr) return not_initialized(kFunction);
  File* file = nullptr;
  if (const int error = find_file_or_null(kFunction, fh, file); error != MPI_SUCCESS) return error;
  if (!valid_errhandler(errhandler)) {
    return raise_file(file, MPI_ERR_ERRHANDLER, kFunction, "invalid error handler %d", errhandler);
  }
  (file != nullptr ? file->errhandler : g_files.null_errhandler) = errhandler;
  return MPI_SUCCESS;
}

int PMPI_File_get_errhandler(MPI_File fh, MPI_Errhandler* errhandler) {
  static constexpr const char* kFunction = "MPI_File_get_errhandler";
  if (g_state == nullptr) return not_initialized(kFunction);
  File* file = nullptr;
  if (const int error = find_file_or_null(kFunction, fh, file); error != MPI_SUCCESS) return error;
  if (errhandler == nullptr) return raise_file(file, MPI_ERR_ARG, kFunction, "null errhandler argument");
  *errhandler = file != nullptr ? file->errhandler : g_files.null_errhandler;
  errhandler_retain(*errhandler);
  return MPI_SUCCESS;
}

int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  static constexpr const char* kFunction = "MPI_File_call_errhandler";
  if (g_state == nullptr) return not_initialized(kFunction);
  File* file = nullptr;
  if (const int error = find_file_or_null(kFunction, fh, file); error != MPI_SUCCESS) return error;
  (void)raise_file(file, errorcode, kFunction, "error %d raised by the program", errorcode);
  return MPI_SUCCESS;
}

MPI_Fint PMPI_File_c2f(MPI_File fh) { return fh; }
MPI_File PMPI_File_f2c(MPI_Fint fh) { return fh; }

#pragma weak MPI_File_open = PMPI_File_open
#pragma weak MPI_File_close = PMPI_File_close
#pragma weak MPI_File_delete = PMPI_File_delete
#pragma weak MPI_File_set_size = PMPI_File_set_size
#pragma weak MPI_File_preallocate = PMPI_File_preallocate
#pragma weak MPI_File_get_size = PMPI_File_get_size
#pragma weak MPI_File_sync = PMPI_File_sync
#pragma weak MPI_File_set_atomicity = PMPI_File_set_atomicity
#pragma weak MPI_File_get_atomicity = PMPI_File_get_atomicity
#pragma weak MPI_File_get_amode = PMPI_File_get_amode
#pragma weak MPI_File_get_group = PMPI_File_get_group
#pragma weak MPI_File_set_info = PMPI_File_set_info
#pragma weak MPI_File_get_info = PMPI_File_get_info
#pragma weak MPI_File_set_errhandler = PMPI_File_set_errhandler
#pragma weak MPI_File_get_errhandler = PMPI_File_get_errhandler
#pragma weak MPI_File_call_errhandler = PMPI_File_call_errhandler
#pragma weak MPI_File_c2f = PMPI_File_c2f
#pragma weak MPI_File_f2c = PMPI_File_f2c

}  // extern "C"
