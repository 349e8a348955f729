// File views with a filetype from every datatype constructor (darray too): what each
// rank writes through its view must land where a serial placement, computed
// here from the constructor's arguments, puts it (the file's bytes are read
// back with plain POSIX reads), and must read back the same through the
// view; etypes other than bytes, non-contiguous memory types, ranks
// interleaving in one file, and the errors set_view reports.
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "check.hpp"
#include "io_tempdir.hpp"

namespace {

using tern::mpi_test::file_bytes;
using tern::mpi_test::error_class;
using tern::mpi_test::IoTempDir;

// A filetype and, computed by hand, the byte offsets of its data in type-map
// order and its extent: tile k of a view holds data byte i of the tile at
// disp + k * extent + offsets[i].
struct Layout {
  std::string name;
  MPI_Datatype filetype;
  std::vector<long> offsets;
  long extent;
};

// The bytes of 4-byte elements at these byte offsets.
std::vector<long> int_bytes(const std::vector<long>& element_offsets) {
  std::vector<long> bytes;
  for (long offset : element_offsets) {
    for (long b = 0; b < 4; ++b) bytes.push_back(offset + b);
  }
  return bytes;
}

std::vector<long> times4(std::vector<long> indexes) {
  for (long& index : indexes) index *= 4;
  return indexes;
}

// Element offsets (in ints) a darray of a 7 x 10 int array keeps for grid
// rank `me` of a 2 x 2 row-major grid: rows in blocks of 4, columns cyclic
// in blocks of 2; in C or Fortran order, found by walking the whole array.
std::vector<long> darray_offsets(int me, bool fortran) {
  std::vector<long> offsets;
  for (int outer = 0; outer < (fortran ? 10 : 7); ++outer) {
    for (int inner = 0; inner < (fortran ? 7 : 10); ++inner) {
      const int i = fortran ? inner : outer, j = fortran ? outer : inner;
      if ((i / 4) * 2 + (j / 2) % 2 == me) offsets.push_back(fortran ? i + 7L * j : i * 10L + j);
    }
  }
  return offsets;
}

std::vector<Layout> layouts(int rank) {
  std::vector<Layout> all;
  auto add = [&all](const char* name, MPI_Datatype type, std::vector<long> offsets, long extent) {
    MPI_Type_commit(&type);
    all.push_back(Layout{name, type, std::move(offsets), extent});
  };
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(3, MPI_INT, &type);
  add("contiguous", type, int_bytes(times4({0, 1, 2})), 12);
  MPI_Type_vector(3, 2, 4, MPI_INT, &type);
  add("vector", type, int_bytes(times4({0, 1, 4, 5, 8, 9})), 40);
  MPI_Type_create_hvector(2, 3, 20, MPI_INT, &type);
  add("hvector", type, int_bytes({0, 4, 8, 20, 24, 28}), 32);
  {
    const int lengths[2] = {1, 3}, displs[2] = {1, 5};
    MPI_Type_indexed(2, lengths, displs, MPI_INT, &type);
    add("indexed", type, int_bytes(times4({1, 5, 6, 7})), 28);  // lb 4, ub 32
  }
  {
    const int lengths[2] = {2, 1};
    const MPI_Aint displs[2] = {0, 24};
    MPI_Type_create_hindexed(2, lengths, displs, MPI_INT, &type);
    add("hindexed", type, int_bytes({0, 4, 24}), 28);
  }
  {
    const int displs[3] = {0, 2, 3};
    MPI_Type_create_indexed_block(3, 1, displs, MPI_INT, &type);
    add("indexed_block", type, int_bytes(times4({0, 2, 3})), 16);
  }
  {
    const MPI_Aint displs[2] = {4, 16};
    MPI_Type_create_hindexed_block(2, 2, displs, MPI_INT, &type);
    add("hindexed_block", type, int_bytes({4, 8, 16, 20}), 20);  // lb 4, ub 24
  }
  {
    const int sizes[2] = {4, 5}, subsizes[2] = {2, 3}, starts[2] = {1, 1};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &type);
    add("subarray_c", type, int_bytes(times4({6, 7, 8, 11, 12, 13})), 80);
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &type);
    add("subarray_fortran", type, int_bytes(times4({5, 6, 9, 10, 13, 14})), 80);
  }
  {
    const int gsizes[2] = {7, 10}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    const int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {2, 2};
    MPI_Type_create_darray(4, rank % 4, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &type);
    add("darray_c", type, int_bytes(times4(darray_offsets(rank % 4, false))), 280);
    MPI_Type_create_darray(4, rank % 4, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_FORTRAN, MPI_INT, &type);
    add("darray_fortran", type, int_bytes(times4(darray_offsets(rank % 4, true))), 280);
    // Blocks of 4 of 9 over 3 processes: the last keeps one.
    const int gsize = 9, block = MPI_DISTRIBUTE_BLOCK, darg = 4, procs = 3;
    MPI_Type_create_darray(3, rank % 3, 1, &gsize, &block, &darg, &procs, MPI_ORDER_C, MPI_INT, &type);
    std::vector<long> kept;
    for (long i = 4L * (rank % 3); i < std::min(9L, 4L * (rank % 3) + 4); ++i) kept.push_back(i);
    add("darray_block", type, int_bytes(times4(kept)), 36);
  }
  {
    const int lengths[2] = {1, 2};
    const MPI_Aint displs[2] = {0, 8};
    const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, lengths, displs, types, &type);
    std::vector<long> offsets = int_bytes({0});
    for (long b = 8; b < 24; ++b) offsets.push_back(b);
    add("struct", type, offsets, 24);
  }
  {
    MPI_Datatype inner = MPI_DATATYPE_NULL;
    MPI_Type_vector(2, 1, 2, MPI_INT, &inner);
    MPI_Type_create_resized(inner, 0, 20, &type);
    MPI_Type_free(&inner);
    add("resized", type, int_bytes({0, 8}), 20);
    MPI_Type_vector(3, 2, 4, MPI_INT, &inner);
    MPI_Type_dup(inner, &type);
    MPI_Type_free(&inner);
    add("dup", type, int_bytes(times4({0, 1, 4, 5, 8, 9})), 40);
  }
  return all;
}

unsigned char pattern(long i, int rank) { return static_cast<unsigned char>(1 + (i * 13 + rank) % 250); }

// Writes 2.5 tiles of bytes through `layout` at displacement disp (in two
// pieces through the file pointer), then checks the file's bytes, the data
// read back through the view, positions and byte offsets.
void check_layout(const IoTempDir& dir, const Layout& layout, int rank) {
  const std::string path = dir.file("view_" + layout.name + "_" + std::to_string(rank));
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
        MPI_SUCCESS);
  const long disp = 3 + rank;
  CHECK(MPI_File_set_view(fh, disp, MPI_BYTE, layout.filetype, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  const auto tile = static_cast<long>(layout.offsets.size());
  const long bytes = 2 * tile + tile / 2;
  std::vector<unsigned char> data(static_cast<std::size_t>(bytes));
  for (long i = 0; i < bytes; ++i) data[i] = pattern(i, rank);
  const long first = 5;
  MPI_Status status;
  CHECK(MPI_File_write(fh, data.data(), static_cast<int>(first), MPI_BYTE, &status) == MPI_SUCCESS);
  CHECK(MPI_File_write(fh, data.data() + first, static_cast<int>(bytes - first), MPI_BYTE, &status) == MPI_SUCCESS);
  MPI_Offset position = -1;
  CHECK(MPI_File_get_position(fh, &position) == MPI_SUCCESS && position == bytes);

  std::vector<unsigned char> expected;
  for (long i = 0; i < bytes; ++i) {
    const long at = disp + (i / tile) * layout.extent + layout.offsets[i % tile];
    if (at >= static_cast<long>(expected.size())) expected.resize(at + 1, 0);
    expected[at] = data[i];
  }
  for (long k = 0; k < bytes; k += 7) {
    MPI_Offset byte_offset = -1;
    CHECK(MPI_File_get_byte_offset(fh, k, &byte_offset) == MPI_SUCCESS &&
          byte_offset == disp + (k / tile) * layout.extent + layout.offsets[k % tile]);
  }
  CHECK(MPI_File_sync(fh) == MPI_SUCCESS);
  const bool placed = file_bytes(path) == expected;
  if (!placed) std::fprintf(stderr, "rank %d: filetype %s put the bytes elsewhere\n", rank, layout.name.c_str());
  CHECK(placed);

  std::vector<unsigned char> back(static_cast<std::size_t>(bytes), 0);
  CHECK(MPI_File_read_at(fh, 0, back.data(), static_cast<int>(bytes), MPI_BYTE, &status) == MPI_SUCCESS);
  int count = -1;
  MPI_Get_count(&status, MPI_BYTE, &count);
  CHECK(count == bytes && back == data);
  // From the middle of a tile on.
  std::fill(back.begin(), back.end(), 0);
  CHECK(MPI_File_read_at(fh, tile / 2 + 1, back.data(), static_cast<int>(tile), MPI_BYTE, &status) == MPI_SUCCESS);
  CHECK(std::memcmp(back.data(), data.data() + tile / 2 + 1, static_cast<std::size_t>(tile)) == 0);

  MPI_Offset view_disp = -1;
  MPI_Datatype etype = MPI_DATATYPE_NULL, filetype = MPI_DATATYPE_NULL;
  char datarep[MPI_MAX_DATAREP_STRING] = {};
  CHECK(MPI_File_get_view(fh, &view_disp, &etype, &filetype, datarep) == MPI_SUCCESS);
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(filetype, &lb, &extent);
  int type_size = 0;
  MPI_Type_size(filetype, &type_size);
  CHECK(view_disp == disp && etype == MPI_BYTE && extent == layout.extent && type_size == tile &&
        std::strcmp(datarep, "native") == 0);
  MPI_Type_free(&filetype);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

// An etype of ints: offsets and counts are in ints; memory laid out by a
// vector type, the file by another.
void check_etype_and_memory_type(const IoTempDir& dir, int rank) {
  const std::string path = dir.file("etype_" + std::to_string(rank));
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
        MPI_SUCCESS);
  MPI_Datatype filetype = MPI_DATATYPE_NULL, memtype = MPI_DATATYPE_NULL;
  MPI_Type_vector(2, 1, 3, MPI_INT, &filetype);  // ints 0 and 3 of each 4-int tile
  MPI_Type_create_resized(filetype, 0, 16, &filetype);
  MPI_Type_commit(&filetype);
  MPI_Type_vector(4, 1, 2, MPI_INT, &memtype);  // every other int of the buffer
  MPI_Type_commit(&memtype);
  CHECK(MPI_File_set_view(fh, 8, MPI_INT, filetype, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  MPI_Type_free(&filetype);  // the view keeps its own
  int memory[8];
  for (int i = 0; i < 8; ++i) memory[i] = 100 * rank + i;
  MPI_Status status;
  // Etype offset 1: the second int of the view's data, so data ints 1..4.
  CHECK(MPI_File_write_at(fh, 1, memory, 1, memtype, &status) == MPI_SUCCESS);
  int count = -1;
  MPI_Get_count(&status, memtype, &count);
  CHECK(count == 1);
  // Data int d sits at 8 + (d / 2) * 16 + (d % 2) * 12.
  std::vector<unsigned char> expected;
  const int written[4] = {memory[0], memory[2], memory[4], memory[6]};
  for (int j = 0; j < 4; ++j) {
    const int d = j + 1;
    const std::size_t at = 8 + (d / 2) * 16 + (d % 2) * 12;
    if (expected.size() < at + 4) expected.resize(at + 4, 0);
    std::memcpy(expected.data() + at, &written[j], 4);
  }
  CHECK(file_bytes(path) == expected);
  int back[4] = {};
  CHECK(MPI_File_read_at(fh, 1, back, 4, MPI_INT, &status) == MPI_SUCCESS);
  CHECK(std::memcmp(back, written, sizeof(back)) == 0);
  MPI_Offset position = -1;
  CHECK(MPI_File_seek(fh, 2, MPI_SEEK_SET) == MPI_SUCCESS);
  CHECK(MPI_File_read(fh, back, 2, MPI_INT, &status) == MPI_SUCCESS && back[0] == memory[2] && back[1] == memory[4]);
  CHECK(MPI_File_get_position(fh, &position) == MPI_SUCCESS && position == 4);
  // The end of the file in etypes of the view: five data ints are there.
  CHECK(MPI_File_seek(fh, 0, MPI_SEEK_END) == MPI_SUCCESS);
  CHECK(MPI_File_get_position(fh, &position) == MPI_SUCCESS && position == 5);
  MPI_Aint extent = 0;
  CHECK(MPI_File_get_type_extent(fh, memtype, &extent) == MPI_SUCCESS && extent == 7 * 4);
  // Three bytes are no whole int.
  CHECK(error_class(MPI_File_write_at(fh, 0, memory, 3, MPI_BYTE, &status)) == MPI_ERR_TYPE);
  MPI_Type_free(&memtype);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

// Ranks take turns of kBlock ints in one file, each through its own view.
void check_interleaved(const IoTempDir& dir, int rank, int size) {
  constexpr int kBlock = 3, kBlocks = 5;
  const std::string path = dir.file("interleaved");
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
        MPI_SUCCESS);
  MPI_Datatype block = MPI_DATATYPE_NULL, filetype = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(kBlock, MPI_INT, &block);
  MPI_Type_create_resized(block, 0, MPI_Aint{kBlock} * 4 * size, &filetype);
  MPI_Type_commit(&filetype);
  MPI_Type_free(&block);
  CHECK(MPI_File_set_view(fh, MPI_Offset{rank} * kBlock * 4, MPI_INT, filetype, "native", MPI_INFO_NULL) ==
        MPI_SUCCESS);
  std::vector<int> mine(kBlock * kBlocks);
  for (int i = 0; i < kBlock * kBlocks; ++i) mine[i] = rank * 1000000 + i;
  MPI_Status status;
  CHECK(MPI_File_write(fh, mine.data(), kBlock * kBlocks, MPI_INT, &status) == MPI_SUCCESS);
  CHECK(MPI_File_sync(fh) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_File_sync(fh) == MPI_SUCCESS);
  if (rank == 0) {
    const std::vector<unsigned char> bytes = file_bytes(path);
    CHECK(bytes.size() == std::size_t{4} * kBlock * kBlocks * size);
    bool right = bytes.size() == std::size_t{4} * kBlock * kBlocks * size;
    for (std::size_t j = 0; right && j < bytes.size() / 4; ++j) {
      const int turn = static_cast<int>(j) / kBlock;
      const int owner = turn % size;
      const int index = (turn / size) * kBlock + static_cast<int>(j) % kBlock;
      int value = 0;
      std::memcpy(&value, bytes.data() + 4 * j, 4);
      right = value == owner * 1000000 + index;
    }
    CHECK(right);
  }
  std::vector<int> back(mine.size(), -1);
  CHECK(MPI_File_read_at(fh, 0, back.data(), kBlock * kBlocks, MPI_INT, &status) == MPI_SUCCESS && back == mine);

  // set_view's errors.
  MPI_Datatype uncommitted = MPI_DATATYPE_NULL, decreasing = MPI_DATATYPE_NULL, odd = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(2, MPI_INT, &uncommitted);
  CHECK(error_class(MPI_File_set_view(fh, 0, MPI_INT, uncommitted, "native", MPI_INFO_NULL)) == MPI_ERR_TYPE);
  const int lengths[2] = {1, 1}, displs[2] = {5, 1};
  MPI_Type_indexed(2, lengths, displs, MPI_INT, &decreasing);
  MPI_Type_commit(&decreasing);
  CHECK(error_class(MPI_File_set_view(fh, 0, MPI_INT, decreasing, "native", MPI_INFO_NULL)) == MPI_ERR_TYPE);
  MPI_Type_contiguous(6, MPI_BYTE, &odd);
  MPI_Type_commit(&odd);
  CHECK(error_class(MPI_File_set_view(fh, 0, MPI_INT, odd, "native", MPI_INFO_NULL)) == MPI_ERR_TYPE);
  CHECK(error_class(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "user-defined", MPI_INFO_NULL)) ==
        MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK(error_class(MPI_File_set_view(fh, -1, MPI_INT, MPI_INT, "native", MPI_INFO_NULL)) == MPI_ERR_ARG);
  for (MPI_Datatype* type : {&uncommitted, &decreasing, &odd, &filetype}) MPI_Type_free(type);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

}  // namespace

int main(int argc, char** argv) {
  return tern::mpi_test::run_io_test(argc, argv, "mpi_io_view", [](const IoTempDir& dir, int rank, int size) {
    std::vector<Layout> all = layouts(rank);
    for (const Layout& layout : all) check_layout(dir, layout, rank);
    for (Layout& layout : all) MPI_Type_free(&layout.filetype);
    check_etype_and_memory_type(dir, rank);
    check_interleaved(dir, rank, size);
  });
}
