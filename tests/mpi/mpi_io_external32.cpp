// File views in the "external32" representation: what goes through such a
// view lands big-endian at the standard's sizes (the file's bytes are read
// back with plain POSIX reads and compared with bytes built by hand), reads
// back the same through it and byte-swapped through a native view; ranks
// interleaving through a strided filetype with collective writes; the
// extents MPI_File_get_type_extent reports; and the views Tern refuses
// (types whose external32 size differs from their size here).
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "check.hpp"
#include "io_tempdir.hpp"

namespace {

using tern::mpi_test::error_class;
using tern::mpi_test::file_bytes;
using tern::mpi_test::IoTempDir;

void put_big_endian(std::vector<unsigned char>& out, uint64_t value, int bytes) {
  for (int b = bytes - 1; b >= 0; --b) out.push_back(static_cast<unsigned char>(value >> (8 * b)));
}

uint64_t bits_of(double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// One rank writes ints, shorts and doubles through external32 views at
// explicit offsets, checks the bytes, and reads them back both ways.
void single_writer(const IoTempDir& dir, int rank) {
  const std::string path = dir.file("single");
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) ==
        MPI_SUCCESS);
  const int ints[3] = {1, -2, 0x01020304};
  const short shorts[2] = {0x1234, -1};
  const double doubles[2] = {1.5, -0.25};
  CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL) == MPI_SUCCESS);
  char datarep[MPI_MAX_DATAREP_STRING] = {};
  MPI_Offset disp = -1;
  MPI_Datatype etype = MPI_DATATYPE_NULL, filetype = MPI_DATATYPE_NULL;
  CHECK(MPI_File_get_view(fh, &disp, &etype, &filetype, datarep) == MPI_SUCCESS);
  CHECK(std::strcmp(datarep, "external32") == 0 && disp == 0 && etype == MPI_INT);
  MPI_Status status;
  if (rank == 0) {
    CHECK(MPI_File_write_at(fh, 0, ints, 3, MPI_INT, &status) == MPI_SUCCESS);
    int count = -1;
    MPI_Get_count(&status, MPI_INT, &count);
    CHECK(count == 3);
  }
  CHECK(MPI_File_set_view(fh, 12, MPI_SHORT, MPI_SHORT, "external32", MPI_INFO_NULL) == MPI_SUCCESS);
  if (rank == 0) CHECK(MPI_File_write_at(fh, 0, shorts, 2, MPI_SHORT, &status) == MPI_SUCCESS);
  CHECK(MPI_File_set_view(fh, 16, MPI_DOUBLE, MPI_DOUBLE, "external32", MPI_INFO_NULL) == MPI_SUCCESS);
  if (rank == 0) CHECK(MPI_File_write_at(fh, 0, doubles, 2, MPI_DOUBLE, &status) == MPI_SUCCESS);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);

  std::vector<unsigned char> expected;
  for (int value : ints) put_big_endian(expected, static_cast<uint32_t>(value), 4);
  for (short value : shorts) put_big_endian(expected, static_cast<uint16_t>(value), 2);
  for (double value : doubles) put_big_endian(expected, bits_of(value), 8);
  CHECK(file_bytes(path) == expected);

  // Back through the external32 view: the same values.
  double doubles_back[2] = {};
  CHECK(MPI_File_read_at(fh, 0, doubles_back, 2, MPI_DOUBLE, &status) == MPI_SUCCESS);
  CHECK(doubles_back[0] == 1.5 && doubles_back[1] == -0.25);
  CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL) == MPI_SUCCESS);
  int ints_back[3] = {};
  CHECK(MPI_File_read_at(fh, 0, ints_back, 3, MPI_INT, &status) == MPI_SUCCESS);
  CHECK(std::memcmp(ints_back, ints, sizeof(ints)) == 0);
  // A non-contiguous memory type through the view: every other int.
  MPI_Datatype every_other = MPI_DATATYPE_NULL;
  MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  int spread[6] = {7, 7, 7, 7, 7, 7};
  CHECK(MPI_File_read_at(fh, 0, spread, 1, every_other, &status) == MPI_SUCCESS);
  CHECK(spread[0] == 1 && spread[2] == -2 && spread[4] == 0x01020304 && spread[1] == 7 && spread[5] == 7);
  MPI_Type_free(&every_other);
  // Through a native view: the big-endian bytes as they are.
  CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  CHECK(MPI_File_read_at(fh, 0, ints_back, 3, MPI_INT, &status) == MPI_SUCCESS);
  CHECK(static_cast<uint32_t>(ints_back[2]) == __builtin_bswap32(0x01020304u));
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

// Every rank writes its ints at every size-th place of the file (a strided
// filetype, collective writes): the file holds 0, 1, 2, ... big-endian.
void interleaved(const IoTempDir& dir, int rank, int size) {
  const std::string path = dir.file("interleaved");
  constexpr int kPerRank = 1000;
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) ==
        MPI_SUCCESS);
  MPI_Datatype slot = MPI_DATATYPE_NULL;
  MPI_Type_create_resized(MPI_INT, 0, static_cast<MPI_Aint>(4) * size, &slot);
  MPI_Type_commit(&slot);
  CHECK(MPI_File_set_view(fh, static_cast<MPI_Offset>(4) * rank, MPI_INT, slot, "external32", MPI_INFO_NULL) ==
        MPI_SUCCESS);
  std::vector<int> mine(kPerRank);
  for (int i = 0; i < kPerRank; ++i) mine[i] = i * size + rank;
  CHECK(MPI_File_write_all(fh, mine.data(), kPerRank, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<unsigned char> expected;
  for (int i = 0; i < kPerRank * size; ++i) put_big_endian(expected, static_cast<uint32_t>(i), 4);
  CHECK(file_bytes(path) == expected);
  std::vector<int> back(kPerRank, -1);
  CHECK(MPI_File_seek(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS);
  CHECK(MPI_File_read_all(fh, back.data(), kPerRank, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(back == mine);
  MPI_Type_free(&slot);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

void extents_and_refusals(const IoTempDir& dir) {
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_WORLD, dir.file("refusals").c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                      &fh) == MPI_SUCCESS);
  MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
  MPI_Aint extent = -1;
  CHECK(MPI_File_get_type_extent(fh, MPI_LONG, &extent) == MPI_SUCCESS && extent == 8);  // native
  CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL) == MPI_SUCCESS);
  CHECK(MPI_File_get_type_extent(fh, MPI_LONG, &extent) == MPI_SUCCESS && extent == 4);
  CHECK(MPI_File_get_type_extent(fh, MPI_DOUBLE, &extent) == MPI_SUCCESS && extent == 8);
  MPI_Datatype pair = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(2, MPI_LONG, &pair);
  MPI_Type_commit(&pair);
  CHECK(error_class(MPI_File_get_type_extent(fh, pair, &extent)) == MPI_ERR_UNSUPPORTED_DATAREP);
  // MPI_LONG is 4 bytes in external32 and 8 here: such a view is refused.
  CHECK(error_class(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL)) ==
        MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK(error_class(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "big-endian", MPI_INFO_NULL)) ==
        MPI_ERR_UNSUPPORTED_DATAREP);
  MPI_Type_free(&pair);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

}  // namespace

int main(int argc, char** argv) {
  return tern::mpi_test::run_io_test(argc, argv, "mpi_io_external32", [](const IoTempDir& dir, int rank, int size) {
    single_writer(dir, rank);
    interleaved(dir, rank, size);
    extents_and_refusals(dir);
  });
}
