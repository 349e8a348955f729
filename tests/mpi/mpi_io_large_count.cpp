// The large-count (_c) MPI-IO calls against their int forms: what one form
// writes the other reads back, at explicit offsets, through the individual
// and the shared file pointer, collectively, split and non-blocking; the
// status counts through MPI_Get_count_c; MPI_File_get_type_extent_c; a
// negative count refused.
#include <mpi.h>

#include <vector>

#include "check.hpp"
#include "io_tempdir.hpp"

namespace {

using tern::mpi_test::error_class;
using tern::mpi_test::IoTempDir;

constexpr int kPerRank = 64;

std::vector<int> pattern(int rank, int salt) {
  std::vector<int> values(kPerRank);
  for (int i = 0; i < kPerRank; ++i) values[static_cast<std::size_t>(i)] = salt * 100000 + rank * 1000 + i;
  return values;
}

void at_offsets(MPI_File fh, int rank) {
  // The default view's etype is a byte: offsets in bytes.
  const MPI_Offset mine = static_cast<MPI_Offset>(rank) * kPerRank * static_cast<MPI_Offset>(sizeof(int));
  const std::vector<int> out = pattern(rank, 1);
  std::vector<int> in(kPerRank, -1);
  MPI_Status status;
  CHECK(MPI_File_write_at_c(fh, mine, out.data(), MPI_Count{kPerRank}, MPI_INT, &status) == MPI_SUCCESS);
  MPI_Count count = -1;
  CHECK(MPI_Get_count_c(&status, MPI_INT, &count) == MPI_SUCCESS && count == kPerRank);
  CHECK(MPI_File_read_at(fh, mine, in.data(), kPerRank, MPI_INT, &status) == MPI_SUCCESS && in == out);
  // Non-blocking, the other way round.
  const std::vector<int> out2 = pattern(rank, 2);
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_File_iwrite_at(fh, mine, out2.data(), kPerRank, MPI_INT, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(MPI_File_iread_at_c(fh, mine, in.data(), MPI_Count{kPerRank}, MPI_INT, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS && in == out2);
  CHECK(MPI_Get_count_c(&status, MPI_INT, &count) == MPI_SUCCESS && count == kPerRank);
  // Through the individual file pointer.
  const std::vector<int> out3 = pattern(rank, 6);
  CHECK(MPI_File_seek(fh, mine, MPI_SEEK_SET) == MPI_SUCCESS);
  CHECK(MPI_File_write_c(fh, out3.data(), MPI_Count{kPerRank}, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(MPI_File_seek(fh, mine, MPI_SEEK_SET) == MPI_SUCCESS);
  CHECK(MPI_File_read_c(fh, in.data(), MPI_Count{kPerRank}, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS && in == out3);
}

void collective(MPI_File fh, int rank, int size) {
  // Rank r's ints at every size-th place: a strided view.
  MPI_Datatype slot = MPI_DATATYPE_NULL;
  MPI_Type_create_resized(MPI_INT, 0, static_cast<MPI_Aint>(sizeof(int)) * size, &slot);
  MPI_Type_commit(&slot);
  CHECK(MPI_File_set_view(fh, static_cast<MPI_Offset>(sizeof(int)) * rank, MPI_INT, slot, "native",
                          MPI_INFO_NULL) == MPI_SUCCESS);
  const std::vector<int> out = pattern(rank, 3);
  std::vector<int> in(kPerRank, -1);
  CHECK(MPI_File_write_all_c(fh, out.data(), MPI_Count{kPerRank}, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(MPI_File_read_at_all(fh, 0, in.data(), kPerRank, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS && in == out);
  const std::vector<int> out2 = pattern(rank, 4);
  CHECK(MPI_File_write_at_all_begin_c(fh, 0, out2.data(), MPI_Count{kPerRank}, MPI_INT) == MPI_SUCCESS);
  CHECK(MPI_File_write_at_all_end(fh, out2.data(), MPI_STATUS_IGNORE) == MPI_SUCCESS);
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_File_iread_at_all_c(fh, 0, in.data(), MPI_Count{kPerRank}, MPI_INT, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS && in == out2);
  CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  MPI_Type_free(&slot);
}

void shared_pointer(MPI_File fh, int rank, int size) {
  // In rank order from the shared pointer, then read back in the same order.
  CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS);
  const std::vector<int> out = pattern(rank, 5);
  CHECK(MPI_File_write_ordered_c(fh, out.data(), MPI_Count{kPerRank}, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS);
  std::vector<int> in(kPerRank, -1);
  CHECK(MPI_File_read_ordered(fh, in.data(), kPerRank, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS && in == out);
  (void)size;
}

void extents_and_errors(MPI_File fh) {
  MPI_Count extent = -1;
  CHECK(MPI_File_get_type_extent_c(fh, MPI_DOUBLE, &extent) == MPI_SUCCESS && extent == 8);
  int value = 0;
  MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
  CHECK(error_class(MPI_File_write_at_c(fh, 0, &value, MPI_Count{-1}, MPI_INT, MPI_STATUS_IGNORE)) ==
        MPI_ERR_COUNT);
  CHECK(error_class(MPI_File_read_c(fh, &value, MPI_Count{-5}, MPI_INT, MPI_STATUS_IGNORE)) == MPI_ERR_COUNT);
}

}  // namespace

int main(int argc, char** argv) {
  return tern::mpi_test::run_io_test(argc, argv, "mpi_io_large_count", [](const IoTempDir& dir, int rank, int size) {
    MPI_File fh = MPI_FILE_NULL;
    CHECK(MPI_File_open(MPI_COMM_WORLD, dir.file("data").c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    at_offsets(fh, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    collective(fh, rank, size);
    shared_pointer(fh, rank, size);
    extents_and_errors(fh);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  });
}
