// The shared file pointer: records appended by every rank at once through
// MPI_File_write_shared land whole, once each, one after another; the
// ordered forms go in rank order; seek_shared, get_position_shared, the
// non-blocking forms, a view's reset of the pointer, and no file left
// behind by the pointer after close.
#include <dirent.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "check.hpp"
#include "io_tempdir.hpp"

namespace {

using tern::mpi_test::error_class;
using tern::mpi_test::file_bytes;
using tern::mpi_test::IoTempDir;

constexpr int kRecordInts = 8, kRecords = 20;

int entries_in(const std::string& directory) {
  int count = 0;
  if (DIR* dir = opendir(directory.c_str())) {
    while (dirent* entry = readdir(dir)) count += entry->d_name[0] != '.' || std::strlen(entry->d_name) > 2;
    closedir(dir);
  }
  return count;
}

void check_shared(const IoTempDir& dir, int rank, int size) {
  const std::string path = dir.file("shared");
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
        MPI_SUCCESS);
  CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  // Every rank appends records [rank, n, n, ...] as fast as it can.
  MPI_Status status;
  for (int n = 0; n < kRecords; ++n) {
    int record[kRecordInts];
    record[0] = rank;
    for (int i = 1; i < kRecordInts; ++i) record[i] = n;
    if (n % 2 == 0) {
      CHECK(MPI_File_write_shared(fh, record, kRecordInts, MPI_INT, &status) == MPI_SUCCESS);
    } else {
      MPI_Request request = MPI_REQUEST_NULL;
      CHECK(MPI_File_iwrite_shared(fh, record, kRecordInts, MPI_INT, &request) == MPI_SUCCESS);
      CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS);
    }
  }
  CHECK(MPI_File_sync(fh) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Offset shared = -1;
  const MPI_Offset total = MPI_Offset{size} * kRecords * kRecordInts;
  CHECK(MPI_File_get_position_shared(fh, &shared) == MPI_SUCCESS && shared == total);
  if (rank == 0) {
    const std::vector<unsigned char> bytes = file_bytes(path);
    CHECK(bytes.size() == static_cast<std::size_t>(total) * 4);
    std::vector<int> next(size, 0);  // each rank's records appear in its order
    bool whole = bytes.size() == static_cast<std::size_t>(total) * 4;
    for (std::size_t at = 0; whole && at < bytes.size(); at += 4 * kRecordInts) {
      int record[kRecordInts];
      std::memcpy(record, bytes.data() + at, sizeof(record));
      whole = record[0] >= 0 && record[0] < size;
      for (int i = 1; whole && i < kRecordInts; ++i) whole = record[i] == next[record[0]];
      if (whole) ++next[record[0]];
    }
    CHECK(whole);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  // Ordered: rank r writes r + 1 ints after everything so far, in rank order.
  std::vector<int> mine(rank + 1, 1000 + rank);
  CHECK(MPI_File_write_ordered(fh, mine.data(), rank + 1, MPI_INT, &status) == MPI_SUCCESS);
  const MPI_Offset after = total + MPI_Offset{size} * (size + 1) / 2;
  CHECK(MPI_File_get_position_shared(fh, &shared) == MPI_SUCCESS && shared == after);
  CHECK(MPI_File_seek_shared(fh, total, MPI_SEEK_SET) == MPI_SUCCESS);
  std::vector<int> back(rank + 1, -1);
  CHECK(MPI_File_read_ordered(fh, back.data(), rank + 1, MPI_INT, &status) == MPI_SUCCESS && back == mine);
  int everything = 0;
  std::vector<int> ordered(static_cast<std::size_t>(size) * (size + 1) / 2, -1);
  CHECK(MPI_File_read_at(fh, total, ordered.data(), static_cast<int>(ordered.size()), MPI_INT, &status) ==
        MPI_SUCCESS);
  std::size_t at = 0;
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i <= r; ++i) everything += ordered[at++] == 1000 + r;
  }
  CHECK(everything == static_cast<int>(ordered.size()));
  // Split ordered forms, from the end.
  CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_END) == MPI_SUCCESS);
  CHECK(MPI_File_get_position_shared(fh, &shared) == MPI_SUCCESS && shared == after);
  CHECK(MPI_File_write_ordered_begin(fh, mine.data(), rank + 1, MPI_INT) == MPI_SUCCESS);
  CHECK(MPI_File_write_ordered_end(fh, mine.data(), &status) == MPI_SUCCESS);
  CHECK(MPI_File_seek_shared(fh, -MPI_Offset{size} * (size + 1) / 2, MPI_SEEK_CUR) == MPI_SUCCESS);
  std::fill(back.begin(), back.end(), -1);
  CHECK(MPI_File_read_ordered_begin(fh, back.data(), rank + 1, MPI_INT) == MPI_SUCCESS);
  CHECK(MPI_File_read_ordered_end(fh, back.data(), &status) == MPI_SUCCESS && back == mine);
  // Independent shared reads take turns through what is there.
  CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS);
  int record[kRecordInts];
  CHECK(MPI_File_read_shared(fh, record, kRecordInts, MPI_INT, &status) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_File_get_position_shared(fh, &shared) == MPI_SUCCESS && shared == MPI_Offset{size} * kRecordInts);
  MPI_Barrier(MPI_COMM_WORLD);  // all have looked before anyone moves it again
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_File_iread_shared(fh, record, kRecordInts, MPI_INT, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS);
  int count = -1;
  MPI_Get_count(&status, MPI_INT, &count);
  CHECK(count == kRecordInts);
  CHECK(MPI_File_seek_shared(fh, -1, MPI_SEEK_SET) != MPI_SUCCESS);
  // A new view puts the pointer back at 0.
  CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  CHECK(MPI_File_get_position_shared(fh, &shared) == MPI_SUCCESS && shared == 0);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

// MPI_MODE_SEQUENTIAL: the shared pointer calls only; a view may start
// where the data so far ends (MPI_DISPLACEMENT_CURRENT).
void check_sequential(const IoTempDir& dir, int rank, int size) {
  const std::string path = dir.file("sequential");
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL,
                      MPI_INFO_NULL, &fh) == MPI_SUCCESS);
  const char header[4] = {'T', 'E', 'R', 'N'};
  MPI_Status status;
  if (rank == 0) CHECK(MPI_File_write_shared(fh, header, 4, MPI_CHAR, &status) == MPI_SUCCESS);
  CHECK(error_class(MPI_File_write_at(fh, 0, header, 4, MPI_CHAR, &status)) == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(error_class(MPI_File_write(fh, header, 4, MPI_CHAR, &status)) == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(error_class(MPI_File_seek(fh, 0, MPI_SEEK_SET)) == MPI_ERR_UNSUPPORTED_OPERATION);
  MPI_Offset position = -1;
  CHECK(error_class(MPI_File_get_position(fh, &position)) == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(error_class(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET)) == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(error_class(MPI_File_write_all(fh, header, 4, MPI_CHAR, &status)) == MPI_ERR_UNSUPPORTED_OPERATION);
  // After the 4-byte header, records of ints in rank order.
  CHECK(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  MPI_Offset view_disp = -1;
  MPI_Datatype etype = MPI_DATATYPE_NULL, filetype = MPI_DATATYPE_NULL;
  char datarep[MPI_MAX_DATAREP_STRING];
  CHECK(MPI_File_get_view(fh, &view_disp, &etype, &filetype, datarep) == MPI_SUCCESS && view_disp == 4);
  const int mine[2] = {rank, -rank};
  CHECK(MPI_File_write_ordered(fh, mine, 2, MPI_INT, &status) == MPI_SUCCESS);
  CHECK(MPI_File_get_position_shared(fh, &position) == MPI_SUCCESS && position == 2 * size);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  if (rank == 0) {
    std::vector<unsigned char> expected(header, header + 4);
    for (int r = 0; r < size; ++r) {
      const int record[2] = {r, -r};
      const auto* bytes = reinterpret_cast<const unsigned char*>(record);
      expected.insert(expected.end(), bytes, bytes + sizeof(record));
    }
    CHECK(file_bytes(path) == expected);
  }
  // MPI_DISPLACEMENT_CURRENT belongs to sequential files only.
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS);
  CHECK(error_class(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL)) ==
        MPI_ERR_ARG);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

}  // namespace

int main(int argc, char** argv) {
  return tern::mpi_test::run_io_test(argc, argv, "mpi_io_shared", [](const IoTempDir& dir, int rank, int size) {
    check_shared(dir, rank, size);
    check_sequential(dir, rank, size);
    // The data files alone are left: the pointers' files went at close.
    if (rank == 0) CHECK(entries_in(dir.file("")) == 2);
  });
}
