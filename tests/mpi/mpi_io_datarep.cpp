// User data representations (MPI_Register_datarep, _c) on 1 to 4 ranks: a
// representation storing ints byte-swapped and one storing them with an
// offset, each rank writing its block through them (independent and
// collective, a contiguous and a vector memory type); the raw file read back
// with "native" holds the converted values, and reading through the
// representation gives the originals. Also: MPI_File_get_view names the
// representation, MPI_CONVERSION_FN_NULL leaves a direction native, a
// callback's error is the access's, and the refusals (a name registered
// twice or predefined: MPI_ERR_DUP_DATAREP; an unknown name, or a file
// extent other than the memory size: MPI_ERR_UNSUPPORTED_DATAREP).
#include <cstring>
#include <string>
#include <vector>

#include "check.hpp"
#include "io_tempdir.hpp"

namespace {

constexpr int kCount = 8;
int rank = 0;
int size = 0;
int conversions = 0;  // callback calls, to see they ran

int swap_bytes(int value) { return static_cast<int>(__builtin_bswap32(static_cast<unsigned>(value))); }

// The test's types: MPI_INT, contiguous or strided ints (a vector of them).
// `apply` maps each int between memory (user) and the packed file data.
template <typename Apply>
int convert_ints(void* userbuf, MPI_Datatype datatype, MPI_Count count, void* filebuf, MPI_Offset position,
                 Apply apply) {
  ++conversions;
  int type_size = 0;
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_size(datatype, &type_size);
  MPI_Type_get_extent(datatype, &lb, &extent);
  const int ints = type_size / static_cast<int>(sizeof(int));
  // A vector of single ints: its stride (in ints) from the type's contents.
  int stride_ints = 1;
  int num_integers = 0, num_addresses = 0, num_datatypes = 0, combiner = 0;
  MPI_Type_get_envelope(datatype, &num_integers, &num_addresses, &num_datatypes, &combiner);
  if (combiner == MPI_COMBINER_VECTOR) {
    int integers[3] = {};
    MPI_Aint addresses[1];
    MPI_Datatype types[1];
    MPI_Type_get_contents(datatype, 3, 0, 1, integers, addresses, types);
    stride_ints = integers[2];
  }
  auto* user = static_cast<char*>(userbuf) + position * extent;
  auto* file = static_cast<int*>(filebuf);
  for (MPI_Count item = 0; item < count; ++item) {
    auto* base = reinterpret_cast<int*>(user + item * extent);
    for (int i = 0; i < ints; ++i) apply(base[i * stride_ints], file[item * ints + i]);
  }
  return MPI_SUCCESS;
}

int swap_write(void* userbuf, MPI_Datatype datatype, int count, void* filebuf, MPI_Offset position, void*) {
  return convert_ints(userbuf, datatype, count, filebuf, position,
                      [](int& user, int& file) { file = swap_bytes(user); });
}
int swap_read(void* userbuf, MPI_Datatype datatype, int count, void* filebuf, MPI_Offset position, void*) {
  return convert_ints(userbuf, datatype, count, filebuf, position,
                      [](int& user, int& file) { user = swap_bytes(file); });
}
int offset_write(void* userbuf, MPI_Datatype datatype, MPI_Count count, void* filebuf, MPI_Offset position,
                 void* extra_state) {
  const int offset = *static_cast<int*>(extra_state);
  return convert_ints(userbuf, datatype, count, filebuf, position,
                      [offset](int& user, int& file) { file = user + offset; });
}
int offset_read(void* userbuf, MPI_Datatype datatype, MPI_Count count, void* filebuf, MPI_Offset position,
                void* extra_state) {
  const int offset = *static_cast<int*>(extra_state);
  return convert_ints(userbuf, datatype, count, filebuf, position,
                      [offset](int& user, int& file) { user = file - offset; });
}
int failing_write(void*, MPI_Datatype, int, void*, MPI_Offset, void*) { return MPI_ERR_CONVERSION; }

int native_extent(MPI_Datatype datatype, MPI_Aint* file_extent, void*) {
  int type_size = 0;
  MPI_Type_size(datatype, &type_size);
  *file_extent = type_size;
  return MPI_SUCCESS;
}
int wide_extent(MPI_Datatype, MPI_Aint* file_extent, void*) {
  *file_extent = 8;
  return MPI_SUCCESS;
}

std::vector<int> values(int salt) {
  std::vector<int> v(kCount);
  for (int i = 0; i < kCount; ++i) v[static_cast<std::size_t>(i)] = 0x01020304 * (rank + 1) + i * 17 + salt;
  return v;
}

// The file's ints at this rank's block, read with the native view.
std::vector<int> raw_block(MPI_File fh) {
  std::vector<int> raw(kCount, -1);
  MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
  MPI_File_read_at(fh, rank * kCount, raw.data(), kCount, MPI_INT, MPI_STATUS_IGNORE);
  return raw;
}

void through(const std::string& path, const char* datarep, int salt, bool collective, bool strided,
             int (*expected_in_file)(int)) {
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) ==
        MPI_SUCCESS);
  CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, datarep, MPI_INFO_NULL) == MPI_SUCCESS);
  char name[MPI_MAX_DATAREP_STRING] = {};
  MPI_Offset disp = -1;
  MPI_Datatype etype = MPI_DATATYPE_NULL, filetype = MPI_DATATYPE_NULL;
  CHECK(MPI_File_get_view(fh, &disp, &etype, &filetype, name) == MPI_SUCCESS && std::strcmp(name, datarep) == 0);
  const std::vector<int> original = values(salt);
  // Strided: the ints at the even places of a buffer twice as long.
  std::vector<int> memory(2 * kCount, -7);
  MPI_Datatype memory_type = MPI_INT;
  int memory_count = kCount;
  if (strided) {
    MPI_Type_vector(kCount, 1, 2, MPI_INT, &memory_type);
    MPI_Type_commit(&memory_type);
    memory_count = 1;
    for (int i = 0; i < kCount; ++i) memory[static_cast<std::size_t>(2 * i)] = original[static_cast<std::size_t>(i)];
  } else {
    std::copy(original.begin(), original.end(), memory.begin());
  }
  const int before = conversions;
  const MPI_Offset at = rank * kCount;
  if (collective) {
    CHECK(MPI_File_write_at_all(fh, at, memory.data(), memory_count, memory_type, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  } else {
    CHECK(MPI_File_write_at(fh, at, memory.data(), memory_count, memory_type, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  }
  CHECK(conversions > before);
  // The memory stays as it was.
  CHECK(memory[0] == original[0]);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  // Read back through the representation: the original values.
  std::vector<int> back(2 * kCount, -1);
  MPI_Status status;
  if (collective) {
    CHECK(MPI_File_read_at_all(fh, at, back.data(), memory_count, memory_type, &status) == MPI_SUCCESS);
  } else {
    CHECK(MPI_File_read_at(fh, at, back.data(), memory_count, memory_type, &status) == MPI_SUCCESS);
  }
  int got = -1;
  CHECK(MPI_Get_count(&status, memory_type, &got) == MPI_SUCCESS && got == memory_count);
  for (int i = 0; i < kCount; ++i) {
    CHECK(back[static_cast<std::size_t>(strided ? 2 * i : i)] == original[static_cast<std::size_t>(i)]);
  }
  if (strided) CHECK(back[1] == -1);
  // The raw file: the converted values.
  const std::vector<int> raw = raw_block(fh);
  for (int i = 0; i < kCount; ++i) {
    CHECK(raw[static_cast<std::size_t>(i)] == expected_in_file(original[static_cast<std::size_t>(i)]));
  }
  if (strided) MPI_Type_free(&memory_type);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

int g_offset = 1000;
int plus_offset(int value) { return value + g_offset; }

void refusals(const std::string& path) {
  // MPI-IO's errors go to MPI_FILE_NULL's handler: MPI_ERRORS_RETURN.
  CHECK(MPI_Register_datarep("tern-swap", swap_read, swap_write, native_extent, nullptr) == MPI_ERR_DUP_DATAREP);
  CHECK(MPI_Register_datarep("native", swap_read, swap_write, native_extent, nullptr) == MPI_ERR_DUP_DATAREP);
  CHECK(MPI_Register_datarep("external32", swap_read, swap_write, native_extent, nullptr) == MPI_ERR_DUP_DATAREP);
  CHECK(MPI_Register_datarep(nullptr, swap_read, swap_write, native_extent, nullptr) == MPI_ERR_ARG);
  CHECK(MPI_Register_datarep("no-extent", swap_read, swap_write, nullptr, nullptr) == MPI_ERR_ARG);
  CHECK(MPI_Register_datarep("tern-wide", swap_read, swap_write, wide_extent, nullptr) == MPI_SUCCESS);
  CHECK(MPI_Register_datarep("tern-failing", MPI_CONVERSION_FN_NULL, failing_write, native_extent, nullptr) ==
        MPI_SUCCESS);
  MPI_File fh = MPI_FILE_NULL;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) ==
        MPI_SUCCESS);
  CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL) == MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "tern-wide", MPI_INFO_NULL) == MPI_ERR_UNSUPPORTED_DATAREP);
  // A write callback's error is the write's; MPI_CONVERSION_FN_NULL reads natively.
  CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "tern-failing", MPI_INFO_NULL) == MPI_SUCCESS);
  const std::vector<int> data = values(0);
  CHECK(MPI_File_write_at(fh, rank * kCount, data.data(), kCount, MPI_INT, MPI_STATUS_IGNORE) == MPI_ERR_CONVERSION);
  std::vector<int> native(kCount, 0);
  CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  CHECK(MPI_File_write_at(fh, rank * kCount, data.data(), kCount, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "tern-failing", MPI_INFO_NULL) == MPI_SUCCESS);
  CHECK(MPI_File_read_at(fh, rank * kCount, native.data(), kCount, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(native == data);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  {
    tern::mpi_test::IoTempDir dir;
    CHECK(dir.ok());
    CHECK(MPI_Register_datarep("tern-swap", swap_read, swap_write, native_extent, nullptr) == MPI_SUCCESS);
    CHECK(MPI_Register_datarep_c("tern-offset", offset_read, offset_write, native_extent, &g_offset) == MPI_SUCCESS);
    through(dir.file("swap_independent"), "tern-swap", 0, false, false, swap_bytes);
    through(dir.file("swap_collective"), "tern-swap", 5, true, true, swap_bytes);
    through(dir.file("offset_independent"), "tern-offset", 9, false, true, plus_offset);
    through(dir.file("offset_collective"), "tern-offset", 3, true, false, plus_offset);
    refusals(dir.file("refusals"));
  }
  const int rc = tern::mpi_test::conclude("mpi_io_datarep");
  MPI_Finalize();
  return rc;
}
