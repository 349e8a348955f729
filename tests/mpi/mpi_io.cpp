// MPI-IO with the default view: open/close/delete, sizes, independent reads
// and writes at offsets and through the file pointer, seek, sync, the
// non-blocking forms, hints, error handlers, atomic mode, and the error
// classes the standard lists for bad modes, missing files and wrong access.
#include <dirent.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "check.hpp"
#include "io_tempdir.hpp"

namespace {

using tern::mpi_test::error_class;
using tern::mpi_test::IoTempDir;

int open_descriptors() {
  int count = 0;
  if (DIR* dir = opendir("/proc/self/fd")) {
    while (readdir(dir) != nullptr) ++count;
    closedir(dir);
  }
  return count;
}

constexpr int kPerRank = 1000;

void test_open_errors(const IoTempDir& dir) {
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  CHECK(MPI_File_get_errhandler(MPI_FILE_NULL, &handler) == MPI_SUCCESS && handler == MPI_ERRORS_RETURN);
  const int descriptors = open_descriptors();
  MPI_File fh = MPI_FILE_NULL;
  const std::string missing = dir.file("missing");
  CHECK(error_class(MPI_File_open(MPI_COMM_WORLD, missing.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh)) ==
        MPI_ERR_NO_SUCH_FILE);
  CHECK(fh == MPI_FILE_NULL);
  const std::string path = dir.file("modes");
  CHECK(error_class(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL,
                                  &fh)) == MPI_ERR_AMODE);
  CHECK(error_class(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_INFO_NULL,
                                  &fh)) == MPI_ERR_AMODE);
  CHECK(error_class(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE, MPI_INFO_NULL, &fh)) ==
        MPI_ERR_AMODE);
  CHECK(error_class(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL,
                                  &fh)) == MPI_ERR_AMODE);
  CHECK(error_class(MPI_File_open(MPI_COMM_WORLD, nullptr, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh)) == MPI_ERR_ARG);
  CHECK(error_class(MPI_File_open(MPI_COMM_NULL, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh)) ==
        MPI_ERR_COMM);
  CHECK(error_class(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDWR | MPI_MODE_CREATE, 12345, &fh)) ==
        MPI_ERR_INFO);
  // A directory is no file to open for writing.
  const std::string directory = dir.file("");
  CHECK(error_class(MPI_File_open(MPI_COMM_WORLD, directory.c_str(), MPI_MODE_RDWR, MPI_INFO_NULL, &fh)) ==
        MPI_ERR_BAD_FILE);
  // CREATE | EXCL on a file that exists.
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL, MPI_INFO_NULL,
                      &fh) == MPI_SUCCESS);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS && fh == MPI_FILE_NULL);
  CHECK(error_class(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                                  MPI_INFO_NULL, &fh)) == MPI_ERR_FILE_EXISTS);
  CHECK(error_class(MPI_File_close(&fh)) == MPI_ERR_FILE);
  MPI_Offset size = 0;
  CHECK(error_class(MPI_File_get_size(MPI_FILE_NULL, &size)) == MPI_ERR_FILE);
  CHECK(error_class(MPI_File_get_size(4242, &size)) == MPI_ERR_FILE);
  // The failed opens kept no descriptor.
  CHECK(open_descriptors() == descriptors);
  MPI_Barrier(MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // ROMIO's driver prefixes name the same file.
  const std::string prefixed = "ufs:" + path;
  CHECK(MPI_File_open(MPI_COMM_WORLD, prefixed.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  if (rank == 0) {
    CHECK(MPI_File_delete(("nfs:" + path).c_str(), MPI_INFO_NULL) == MPI_SUCCESS);
    CHECK(error_class(MPI_File_delete(path.c_str(), MPI_INFO_NULL)) == MPI_ERR_NO_SUCH_FILE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

void test_independent(const IoTempDir& dir, int rank, int size) {
  const std::string path = dir.file("independent");
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_nodes", "1");
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh) == MPI_SUCCESS);
  MPI_Info_free(&info);
  int amode = 0;
  CHECK(MPI_File_get_amode(fh, &amode) == MPI_SUCCESS && amode == (MPI_MODE_RDWR | MPI_MODE_CREATE));
  MPI_Group group = MPI_GROUP_NULL;
  int group_size = 0;
  CHECK(MPI_File_get_group(fh, &group) == MPI_SUCCESS);
  MPI_Group_size(group, &group_size);
  CHECK(group_size == size);
  MPI_Group_free(&group);
  MPI_Info used = MPI_INFO_NULL;
  char value[MPI_MAX_INFO_VAL + 1] = {};
  int flag = 0;
  CHECK(MPI_File_get_info(fh, &used) == MPI_SUCCESS);
  MPI_Info_get(used, "cb_nodes", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(flag == 1 && std::strcmp(value, "1") == 0);
  MPI_Info_free(&used);

  // Each rank writes its part at an explicit offset; every rank reads the next rank's.
  std::vector<int> mine(kPerRank);
  for (int i = 0; i < kPerRank; ++i) mine[i] = rank * 100000 + i;
  MPI_Status status;
  CHECK(MPI_File_write_at(fh, MPI_Offset{rank} * kPerRank * 4, mine.data(), kPerRank, MPI_INT, &status) ==
        MPI_SUCCESS);
  int count = -1;
  MPI_Get_count(&status, MPI_INT, &count);
  CHECK(count == kPerRank);
  CHECK(MPI_File_sync(fh) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_File_sync(fh) == MPI_SUCCESS);
  MPI_Offset file_size = 0;
  CHECK(MPI_File_get_size(fh, &file_size) == MPI_SUCCESS && file_size == MPI_Offset{size} * kPerRank * 4);
  const int next = (rank + 1) % size;
  std::vector<int> theirs(kPerRank, -1);
  CHECK(MPI_File_read_at(fh, MPI_Offset{next} * kPerRank * 4, theirs.data(), kPerRank, MPI_INT, &status) ==
        MPI_SUCCESS);
  bool same = true;
  for (int i = 0; i < kPerRank; ++i) same = same && theirs[i] == next * 100000 + i;
  CHECK(same);

  // The file pointer: seek, read, position; a read past the end is short.
  MPI_Offset position = -1;
  CHECK(MPI_File_get_position(fh, &position) == MPI_SUCCESS && position == 0);
  CHECK(MPI_File_seek(fh, file_size - 8, MPI_SEEK_SET) == MPI_SUCCESS);
  unsigned char tail[16] = {};
  CHECK(MPI_File_read(fh, tail, 16, MPI_BYTE, &status) == MPI_SUCCESS);
  MPI_Get_count(&status, MPI_BYTE, &count);
  CHECK(count == 8);
  int last = 0;
  std::memcpy(&last, tail + 4, 4);
  CHECK(last == (size - 1) * 100000 + kPerRank - 1);
  CHECK(MPI_File_get_position(fh, &position) == MPI_SUCCESS && position == file_size);
  CHECK(MPI_File_seek(fh, -12, MPI_SEEK_CUR) == MPI_SUCCESS);
  CHECK(MPI_File_get_position(fh, &position) == MPI_SUCCESS && position == file_size - 12);
  CHECK(MPI_File_seek(fh, -4, MPI_SEEK_END) == MPI_SUCCESS);
  CHECK(MPI_File_get_position(fh, &position) == MPI_SUCCESS && position == file_size - 4);
  CHECK(error_class(MPI_File_seek(fh, -1, MPI_SEEK_SET)) == MPI_ERR_ARG);
  CHECK(error_class(MPI_File_seek(fh, 0, 12345)) == MPI_ERR_ARG);
  CHECK(error_class(MPI_File_read_at(fh, -1, tail, 1, MPI_BYTE, &status)) == MPI_ERR_ARG);
  CHECK(error_class(MPI_File_read_at(fh, 0, tail, -1, MPI_BYTE, &status)) == MPI_ERR_COUNT);
  CHECK(error_class(MPI_File_read_at(fh, 0, tail, 1, MPI_DATATYPE_NULL, &status)) == MPI_ERR_TYPE);
  CHECK(error_class(MPI_File_read_at(fh, 0, nullptr, 1, MPI_BYTE, &status)) == MPI_ERR_BUFFER);
  CHECK(MPI_File_read_at(fh, file_size + 100, tail, 4, MPI_BYTE, &status) == MPI_SUCCESS);
  MPI_Get_count(&status, MPI_BYTE, &count);
  CHECK(count == 0);
  MPI_Barrier(MPI_COMM_WORLD);

  // Writes through the pointer advance it; non-blocking forms are requests to wait on.
  const MPI_Offset base = file_size + MPI_Offset{rank} * 64;
  CHECK(MPI_File_seek(fh, base, MPI_SEEK_SET) == MPI_SUCCESS);
  const char text[] = "tern-io-pointer";
  CHECK(MPI_File_write(fh, text, 16, MPI_CHAR, &status) == MPI_SUCCESS);
  CHECK(MPI_File_get_position(fh, &position) == MPI_SUCCESS && position == base + 16);
  MPI_Request request = MPI_REQUEST_NULL;
  const double values[3] = {1.5, -2.25, 1e300};
  CHECK(MPI_File_iwrite_at(fh, base + 16, values, 3, MPI_DOUBLE, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS && request == MPI_REQUEST_NULL);
  MPI_Get_count(&status, MPI_DOUBLE, &count);
  CHECK(count == 3);
  CHECK(MPI_File_seek(fh, base, MPI_SEEK_SET) == MPI_SUCCESS);
  char text_back[16] = {};
  CHECK(MPI_File_iread(fh, text_back, 16, MPI_CHAR, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS);
  CHECK(std::memcmp(text_back, text, 16) == 0);
  double values_back[3] = {};
  CHECK(MPI_File_iread_at(fh, base + 16, values_back, 3, MPI_DOUBLE, &request) == MPI_SUCCESS);
  int done = 0;
  CHECK(MPI_Test(&request, &done, &status) == MPI_SUCCESS && done == 1);
  MPI_Get_count(&status, MPI_DOUBLE, &count);
  CHECK(count == 3 && std::memcmp(values_back, values, sizeof(values)) == 0);
  CHECK(MPI_File_iwrite(fh, values, 1, MPI_DOUBLE, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(MPI_File_get_position(fh, &position) == MPI_SUCCESS && position == base + 24);
  MPI_Barrier(MPI_COMM_WORLD);

  // Sizes: truncate, then preallocate (grows only).
  CHECK(MPI_File_set_size(fh, 100) == MPI_SUCCESS);
  CHECK(MPI_File_get_size(fh, &file_size) == MPI_SUCCESS && file_size == 100);
  CHECK(MPI_File_preallocate(fh, 4096) == MPI_SUCCESS);
  CHECK(MPI_File_get_size(fh, &file_size) == MPI_SUCCESS && file_size == 4096);
  CHECK(MPI_File_preallocate(fh, 10) == MPI_SUCCESS);
  CHECK(MPI_File_get_size(fh, &file_size) == MPI_SUCCESS && file_size == 4096);
  CHECK(error_class(MPI_File_set_size(fh, -1)) == MPI_ERR_ARG);

  // Handlers: set, get, call (MPI_ERRORS_RETURN only returns).
  CHECK(MPI_File_get_errhandler(fh, &flag) == MPI_SUCCESS && flag == MPI_ERRORS_RETURN);
  CHECK(MPI_File_set_errhandler(fh, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
  CHECK(MPI_File_get_errhandler(fh, &flag) == MPI_SUCCESS && flag == MPI_ERRORS_ARE_FATAL);
  CHECK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN) == MPI_SUCCESS);
  CHECK(error_class(MPI_File_set_errhandler(fh, 999)) == MPI_ERR_ERRHANDLER);
  CHECK(MPI_File_call_errhandler(fh, MPI_ERR_IO) == MPI_SUCCESS);
  CHECK(MPI_File_f2c(MPI_File_c2f(fh)) == fh);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);

  // Access modes: no writes to a read-only file, no reads from a write-only one.
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS);
  CHECK(error_class(MPI_File_write_at(fh, 0, text, 1, MPI_CHAR, &status)) == MPI_ERR_READ_ONLY);
  CHECK(error_class(MPI_File_set_size(fh, 0)) == MPI_ERR_READ_ONLY);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL, &fh) ==
        MPI_SUCCESS);
  CHECK(MPI_File_get_position(fh, &position) == MPI_SUCCESS && position == 4096);
  CHECK(error_class(MPI_File_read_at(fh, 0, text_back, 1, MPI_CHAR, &status)) == MPI_ERR_ACCESS);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);

  // MPI_MODE_DELETE_ON_CLOSE removes the file once every rank has closed it.
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh) ==
        MPI_SUCCESS);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  CHECK(access(path.c_str(), F_OK) != 0);
}

// Atomic mode: every rank writes the same scattered bytes again and again;
// each access holds its span while it writes, so what stays is one rank's
// write whole, never a mix.
void test_atomicity(const IoTempDir& dir, int rank) {
  constexpr int kPieces = 512, kPiece = 16, kRounds = 50;
  const std::string path = dir.file("atomic");
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
        MPI_SUCCESS);
  int flag = -1;
  CHECK(MPI_File_get_atomicity(fh, &flag) == MPI_SUCCESS && flag == 0);
  CHECK(MPI_File_set_atomicity(fh, 1) == MPI_SUCCESS);
  CHECK(MPI_File_get_atomicity(fh, &flag) == MPI_SUCCESS && flag == 1);
  MPI_Datatype filetype = MPI_DATATYPE_NULL;
  MPI_Type_vector(kPieces, kPiece, 2 * kPiece, MPI_BYTE, &filetype);
  MPI_Type_commit(&filetype);
  CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, filetype, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  std::vector<unsigned char> data(kPieces * kPiece);
  for (int round = 0; round < kRounds; ++round) {
    std::fill(data.begin(), data.end(), static_cast<unsigned char>(1 + rank + 10 * round));
    CHECK(MPI_File_write_at(fh, 0, data.data(), kPieces * kPiece, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  }
  CHECK(MPI_File_sync(fh) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_File_read_at(fh, 0, data.data(), kPieces * kPiece, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(std::all_of(data.begin(), data.end(), [&data](unsigned char b) { return b == data[0]; }));
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  MPI_Type_free(&filetype);
}

// With MPI_ERRORS_ARE_FATAL on MPI_FILE_NULL, a failed open ends the job
// (the suite expects the message and a failed exit).
int open_missing_fatally(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL);
  MPI_File fh = MPI_FILE_NULL;
  MPI_File_open(MPI_COMM_WORLD, "/nonexistent-tern-dir/missing", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  std::printf("mpi_io: the failed open returned\n");
  MPI_Finalize();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "fatal") == 0) return open_missing_fatally(argc, argv);
  return tern::mpi_test::run_io_test(argc, argv, "mpi_io", [](const IoTempDir& dir, int rank, int size) {
    test_open_errors(dir);
    test_independent(dir, rank, size);
    test_atomicity(dir, rank);
  });
}
