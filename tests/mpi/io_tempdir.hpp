// For the MPI-IO tests. A temporary directory: rank 0 makes it (under
// $TMPDIR, else /tmp) and tells the others; it goes, with whatever the test
// left in it, when the object does, failed checks or not.
#pragma once

#include <mpi.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "check.hpp"

namespace tern::mpi_test {

class IoTempDir {
 public:
  IoTempDir() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    char path[4096] = {};
    if (rank_ == 0) {
      const char* base = std::getenv("TMPDIR");
      std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/tern_mpi_io.XXXXXX";
      if (pattern.size() < sizeof(path) && mkdtemp(pattern.data()) != nullptr) pattern.copy(path, pattern.size());
    }
    MPI_Bcast(path, sizeof(path), MPI_CHAR, 0, MPI_COMM_WORLD);
    path_ = path;
  }
  ~IoTempDir() {
    MPI_Barrier(MPI_COMM_WORLD);
    std::error_code ignored;
    if (rank_ == 0 && !path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  IoTempDir(const IoTempDir&) = delete;
  IoTempDir& operator=(const IoTempDir&) = delete;

  [[nodiscard]] bool ok() const { return !path_.empty(); }
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  int rank_ = 0;
  std::string path_;
};

// A file's bytes as the operating system has them.
inline std::vector<unsigned char> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The class of an error code.
inline int error_class(int code) {
  int error_class = -1;
  MPI_Error_class(code, &error_class);
  return error_class;
}

// A whole test program: MPI_Init, `body` with a temporary directory, the
// verdict (check.hpp) and MPI_Finalize; returns the exit code.
template <typename Body>
int run_io_test(int argc, char** argv, const char* name, Body&& body) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  {
    IoTempDir dir;
    CHECK(dir.ok());
    if (dir.ok()) body(dir, rank, size);
  }
  const int result = conclude(name);
  MPI_Finalize();
  return result;
}

}  // namespace tern::mpi_test
