// Collective MPI-IO (two-phase): a 3-D block decomposition written with
// MPI_File_write_all through subarray views is byte-identical to the same
// array written serially by one rank, and reads back into halo'd local
// arrays; with the default hints (aggregation where the ranks' ranges
// interleave) and with two aggregators always, working in small windows.
// Ranks interleaving fine-grained pieces (one with nothing to write), reads
// past the end, errors every rank sees; split and non-blocking collectives.
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

constexpr int kGlobal[3] = {9, 10, 7};

double value_at(int i, int j, int k) { return i * 10000.0 + j * 100.0 + k + 0.5; }

// This rank's block of the global array, split as evenly as the grid allows.
struct Block {
  int starts[3], sizes[3];
};

Block block_of(int rank, int size) {
  int dims[3] = {0, 0, 0};
  MPI_Dims_create(size, 3, dims);
  const int coords[3] = {rank / (dims[1] * dims[2]), (rank / dims[2]) % dims[1], rank % dims[2]};
  Block block{};
  for (int d = 0; d < 3; ++d) {
    block.starts[d] = coords[d] * kGlobal[d] / dims[d];
    block.sizes[d] = (coords[d] + 1) * kGlobal[d] / dims[d] - block.starts[d];
  }
  return block;
}

void check_block_decomposition(const IoTempDir& dir, int rank, int size, MPI_Info hints, const char* name) {
  const Block block = block_of(rank, size);
  // Local array with a halo of one cell on each side; the interior holds the block.
  const int local[3] = {block.sizes[0] + 2, block.sizes[1] + 2, block.sizes[2] + 2};
  std::vector<double> cells(static_cast<std::size_t>(local[0]) * local[1] * local[2], -1.0);
  auto cell = [&](int i, int j, int k) -> double& {
    return cells[(static_cast<std::size_t>(i + 1) * local[1] + (j + 1)) * local[2] + (k + 1)];
  };
  for (int i = 0; i < block.sizes[0]; ++i) {
    for (int j = 0; j < block.sizes[1]; ++j) {
      for (int k = 0; k < block.sizes[2]; ++k) {
        cell(i, j, k) = value_at(block.starts[0] + i, block.starts[1] + j, block.starts[2] + k);
      }
    }
  }
  const int ones[3] = {1, 1, 1};
  MPI_Datatype filetype = MPI_DATATYPE_NULL, memtype = MPI_DATATYPE_NULL;
  MPI_Type_create_subarray(3, kGlobal, block.sizes, block.starts, MPI_ORDER_C, MPI_DOUBLE, &filetype);
  MPI_Type_create_subarray(3, local, block.sizes, ones, MPI_ORDER_C, MPI_DOUBLE, &memtype);
  MPI_Type_commit(&filetype);
  MPI_Type_commit(&memtype);

  const std::string parallel = dir.file(std::string("blocks_") + name);
  const std::string serial = dir.file(std::string("serial_") + name);
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_WORLD, parallel.c_str(), MPI_MODE_WRONLY | MPI_MODE_CREATE, hints, &fh) ==
        MPI_SUCCESS);
  CHECK(MPI_File_set_view(fh, 0, MPI_DOUBLE, filetype, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  MPI_Status status;
  CHECK(MPI_File_write_all(fh, cells.data(), 1, memtype, &status) == MPI_SUCCESS);
  int count = -1;
  MPI_Get_count(&status, MPI_DOUBLE, &count);
  CHECK(count == block.sizes[0] * block.sizes[1] * block.sizes[2]);
  MPI_Offset position = -1;
  CHECK(MPI_File_get_position(fh, &position) == MPI_SUCCESS && position == count);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);

  // The same array, written whole by rank 0 alone.
  if (rank == 0) {
    std::vector<double> whole;
    for (int i = 0; i < kGlobal[0]; ++i) {
      for (int j = 0; j < kGlobal[1]; ++j) {
        for (int k = 0; k < kGlobal[2]; ++k) whole.push_back(value_at(i, j, k));
      }
    }
    CHECK(MPI_File_open(MPI_COMM_SELF, serial.c_str(), MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
          MPI_SUCCESS);
    CHECK(MPI_File_write(fh, whole.data(), static_cast<int>(whole.size()), MPI_DOUBLE, &status) == MPI_SUCCESS);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    const std::vector<unsigned char> written = file_bytes(parallel);
    CHECK(written.size() == whole.size() * sizeof(double));
    const bool identical = written == file_bytes(serial);
    if (!identical) std::fprintf(stderr, "%s: the collective write differs from the serial one\n", name);
    CHECK(identical);
  }

  // Read back collectively into a cleared local array: the interior comes
  // back, the halo stays as it was.
  CHECK(MPI_File_open(MPI_COMM_WORLD, parallel.c_str(), MPI_MODE_RDONLY, hints, &fh) == MPI_SUCCESS);
  CHECK(MPI_File_set_view(fh, 0, MPI_DOUBLE, filetype, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  std::vector<double> expected = cells;
  std::fill(cells.begin(), cells.end(), -1.0);
  CHECK(MPI_File_read_all(fh, cells.data(), 1, memtype, &status) == MPI_SUCCESS);
  MPI_Get_count(&status, MPI_DOUBLE, &count);
  CHECK(count == block.sizes[0] * block.sizes[1] * block.sizes[2]);
  CHECK(cells == expected);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  MPI_Type_free(&filetype);
  MPI_Type_free(&memtype);
}

// A 12 x 9 array of doubles distributed over a row-major grid of the ranks
// (rows cyclic in blocks of 2, columns in blocks), written collectively
// through darray views: the file is the whole array, as written serially.
void check_darray(const IoTempDir& dir, int rank, int size) {
  const int gsizes[2] = {12, 9}, distribs[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
  const int dargs[2] = {2, MPI_DISTRIBUTE_DFLT_DARG};
  int psizes[2] = {0, 0};
  MPI_Dims_create(size, 2, psizes);
  MPI_Datatype filetype = MPI_DATATYPE_NULL;
  CHECK(MPI_Type_create_darray(size, rank, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_DOUBLE, &filetype) ==
        MPI_SUCCESS);
  MPI_Type_commit(&filetype);
  // The elements this rank keeps, in the array's order, found by ownership.
  const int block = (gsizes[1] + psizes[1] - 1) / psizes[1];
  std::vector<double> mine;
  for (int i = 0; i < gsizes[0]; ++i) {
    for (int j = 0; j < gsizes[1]; ++j) {
      if (((i / 2) % psizes[0]) * psizes[1] + j / block == rank) mine.push_back(i * 100.0 + j + 0.25);
    }
  }
  int type_size = 0;
  MPI_Type_size(filetype, &type_size);
  CHECK(type_size == static_cast<int>(mine.size() * sizeof(double)));
  const std::string path = dir.file("darray");
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
        MPI_SUCCESS);
  CHECK(MPI_File_set_view(fh, 0, MPI_DOUBLE, filetype, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  CHECK(MPI_File_write_all(fh, mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_STATUS_IGNORE) ==
        MPI_SUCCESS);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  if (rank == 0) {
    std::vector<double> whole;
    for (int i = 0; i < gsizes[0]; ++i) {
      for (int j = 0; j < gsizes[1]; ++j) whole.push_back(i * 100.0 + j + 0.25);
    }
    const std::vector<unsigned char> bytes = file_bytes(path);
    CHECK(bytes.size() == whole.size() * sizeof(double) &&
          std::memcmp(bytes.data(), whole.data(), bytes.size()) == 0);
  }
  MPI_Type_free(&filetype);
}

// Every rank owns the ints j with j % size == rank, in pieces of one int,
// except the last rank of several, which writes nothing; through
// aggregators, or each rank directly (romio_cb_write/read "disable"), or
// as "automatic" chooses (aggregated from 256 KiB a rank: turns that large).
void check_interleaved(const IoTempDir& dir, int rank, int size, MPI_Info hints, const char* name,
                       int turns = 200) {
  const std::string path = dir.file(name);
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDWR | MPI_MODE_CREATE, hints, &fh) == MPI_SUCCESS);
  MPI_Datatype filetype = MPI_DATATYPE_NULL;
  MPI_Type_create_resized(MPI_INT, 0, MPI_Aint{4} * size, &filetype);
  MPI_Type_commit(&filetype);
  CHECK(MPI_File_set_view(fh, MPI_Offset{4} * rank, MPI_INT, filetype, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  const bool idle = size > 1 && rank == size - 1;
  std::vector<int> mine(turns);
  for (int t = 0; t < turns; ++t) mine[t] = (t * size + rank) * 3 + 1;
  MPI_Status status;
  // Offset 2 etypes into each view: the first two turns stay holes.
  CHECK(MPI_File_write_at_all(fh, 2, mine.data(), idle ? 0 : turns - 2, MPI_INT, &status) == MPI_SUCCESS);
  CHECK(MPI_File_sync(fh) == MPI_SUCCESS);
  if (rank == 0) {
    const std::vector<unsigned char> bytes = file_bytes(path);
    const int writers = size > 1 ? size - 1 : 1;
    // The last int written belongs to the last writing rank's last turn.
    CHECK(bytes.size() == std::size_t{4} * ((turns - 1) * size + writers));
    bool right = true;
    for (std::size_t j = 0; j * 4 < bytes.size(); ++j) {
      const int owner = static_cast<int>(j) % size, turn = static_cast<int>(j) / size;
      int value = 0;
      std::memcpy(&value, bytes.data() + 4 * j, 4);
      const bool hole = turn < 2 || (size > 1 && owner == size - 1);
      right = right && value == (hole ? 0 : ((turn - 2) * size + owner) * 3 + 1);
    }
    CHECK(right);
  }
  // Read back collectively, past the end too: what is there comes back.
  std::vector<int> back(turns + 5, -7);
  CHECK(MPI_File_read_at_all(fh, 2, back.data(), turns + 5, MPI_INT, &status) == MPI_SUCCESS);
  int count = -1;
  MPI_Get_count(&status, MPI_INT, &count);
  if (!idle) {
    CHECK(count == turns - 2);
    CHECK(std::equal(mine.begin(), mine.end() - 2, back.begin()));
    // Past the end of the file the buffer stays as it was.
    CHECK(std::all_of(back.begin() + count, back.end(), [](int value) { return value == -7; }));
  }
  // Errors every rank sees: a bad count, a read of a write-only file.
  CHECK(error_class(MPI_File_write_all(fh, mine.data(), -1, MPI_INT, &status)) == MPI_ERR_COUNT);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_WRONLY, hints, &fh) == MPI_SUCCESS);
  CHECK(error_class(MPI_File_read_all(fh, back.data(), 1, MPI_INT, &status)) == MPI_ERR_ACCESS);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  MPI_Type_free(&filetype);
}

// Split collectives and non-blocking collectives on the default view.
void check_split_and_nonblocking(const IoTempDir& dir, int rank, int size) {
  constexpr int kInts = 50;
  const std::string path = dir.file("split");
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
        MPI_SUCCESS);
  std::vector<int> mine(kInts), back(kInts);
  for (int i = 0; i < kInts; ++i) mine[i] = rank * 1000 + i;
  const MPI_Offset at = MPI_Offset{rank} * kInts * 4;
  MPI_Status status;
  int count = -1;
  CHECK(MPI_File_write_at_all_begin(fh, at, mine.data(), kInts, MPI_INT) == MPI_SUCCESS);
  CHECK(error_class(MPI_File_write_at_all_begin(fh, at, mine.data(), kInts, MPI_INT)) == MPI_ERR_OTHER);
  CHECK(MPI_File_write_at_all_end(fh, mine.data(), &status) == MPI_SUCCESS);
  MPI_Get_count(&status, MPI_INT, &count);
  CHECK(count == kInts);
  CHECK(error_class(MPI_File_write_at_all_end(fh, mine.data(), &status)) == MPI_ERR_OTHER);
  CHECK(MPI_File_read_at_all_begin(fh, at, back.data(), kInts, MPI_INT) == MPI_SUCCESS);
  CHECK(MPI_File_read_at_all_end(fh, back.data(), &status) == MPI_SUCCESS && back == mine);

  // Through the file pointer, after everyone's part: the second half of the file.
  const MPI_Offset second = MPI_Offset{size} * kInts * 4 + at;
  CHECK(MPI_File_seek(fh, second, MPI_SEEK_SET) == MPI_SUCCESS);
  CHECK(MPI_File_write_all_begin(fh, mine.data(), kInts, MPI_INT) == MPI_SUCCESS);
  CHECK(MPI_File_write_all_end(fh, mine.data(), MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(MPI_File_seek(fh, second, MPI_SEEK_SET) == MPI_SUCCESS);
  std::fill(back.begin(), back.end(), -1);
  CHECK(MPI_File_read_all_begin(fh, back.data(), kInts, MPI_INT) == MPI_SUCCESS);
  CHECK(MPI_File_read_all_end(fh, back.data(), &status) == MPI_SUCCESS && back == mine);
  MPI_Offset position = -1;
  CHECK(MPI_File_get_position(fh, &position) == MPI_SUCCESS && position == second + kInts * 4);

  // Non-blocking collectives: requests done by the time they are waited on.
  MPI_Request request = MPI_REQUEST_NULL;
  for (int& value : mine) value = -value - 1;
  CHECK(MPI_File_iwrite_at_all(fh, at, mine.data(), kInts, MPI_INT, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS);
  MPI_Get_count(&status, MPI_INT, &count);
  CHECK(count == kInts);
  std::fill(back.begin(), back.end(), 0);
  CHECK(MPI_File_iread_at_all(fh, at, back.data(), kInts, MPI_INT, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS && back == mine);
  CHECK(MPI_File_seek(fh, second, MPI_SEEK_SET) == MPI_SUCCESS);
  CHECK(MPI_File_iwrite_all(fh, mine.data(), kInts, MPI_INT, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(MPI_File_seek(fh, second, MPI_SEEK_SET) == MPI_SUCCESS);
  std::fill(back.begin(), back.end(), 0);
  CHECK(MPI_File_iread_all(fh, back.data(), kInts, MPI_INT, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS && back == mine);
  MPI_Offset file_size = 0;
  CHECK(MPI_File_get_size(fh, &file_size) == MPI_SUCCESS && file_size == MPI_Offset{2} * size * kInts * 4);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

}  // namespace

int main(int argc, char** argv) {
  return tern::mpi_test::run_io_test(argc, argv, "mpi_io_coll", [](const IoTempDir& dir, int rank, int size) {
    MPI_Info small = MPI_INFO_NULL;
    MPI_Info_create(&small);
    MPI_Info_set(small, "cb_nodes", "2");
    MPI_Info_set(small, "cb_buffer_size", "256");
    MPI_Info_set(small, "romio_cb_write", "enable");  // aggregate even ranges that do not interleave
    MPI_Info_set(small, "romio_cb_read", "enable");
    check_block_decomposition(dir, rank, size, MPI_INFO_NULL, "default");
    check_block_decomposition(dir, rank, size, small, "small_windows");
    check_darray(dir, rank, size);
    check_interleaved(dir, rank, size, small, "interleaved");
    MPI_Info direct = MPI_INFO_NULL;
    MPI_Info_create(&direct);
    MPI_Info_set(direct, "romio_cb_write", "disable");
    MPI_Info_set(direct, "romio_cb_read", "disable");
    check_interleaved(dir, rank, size, direct, "interleaved_direct");
    check_interleaved(dir, rank, size, MPI_INFO_NULL, "interleaved_small");
    check_interleaved(dir, rank, size, MPI_INFO_NULL, "interleaved_large", 70000);
    MPI_Info_free(&direct);
    check_split_and_nonblocking(dir, rank, size);
    MPI_Info_free(&small);
  });
}
