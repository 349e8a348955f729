// What the intercommunicator tests share: one process's side of an
// intercommunicator with the world ranks of both groups, and the two ways
// they split the world (contiguous halves, uneven on 3 and 4 ranks; then by
// parity, members that are not neighbours in the world).
#pragma once

#include <cstdio>
#include <vector>

#include "check.hpp"

namespace tern::mpi_test {

inline int world_rank = 0;
inline int world_size = 0;

struct Side {
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm inter = MPI_COMM_NULL;
  int color = 0;  // 0: group A, 1: group B
  int rank = 0;
  int size = 0;
  int remote_size = 0;
  std::vector<int> mine;    // world rank of each local rank
  std::vector<int> theirs;  // world rank of each remote rank
};

inline std::vector<int> members(const std::vector<int>& colors, int color) {
  std::vector<int> out;
  for (int r = 0; r < static_cast<int>(colors.size()); ++r) {
    if (colors[static_cast<std::size_t>(r)] == color) out.push_back(r);
  }
  return out;
}

inline Side make_side(const std::vector<int>& colors, int tag) {
  Side s;
  s.color = colors[static_cast<std::size_t>(world_rank)];
  s.mine = members(colors, s.color);
  s.theirs = members(colors, 1 - s.color);
  CHECK(MPI_Comm_split(MPI_COMM_WORLD, s.color, world_rank, &s.local) == MPI_SUCCESS);
  CHECK(MPI_Intercomm_create(s.local, 0, MPI_COMM_WORLD, s.theirs[0], tag, &s.inter) == MPI_SUCCESS);
  MPI_Comm_rank(s.inter, &s.rank);
  MPI_Comm_size(s.inter, &s.size);
  MPI_Comm_remote_size(s.inter, &s.remote_size);
  return s;
}

// MPI_Init, `suite` on both splits, the verdict as `name`, MPI_Finalize;
// the exit code.
template <typename Suite>
int run_splits(int argc, char** argv, const char* name, Suite suite) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (world_size < 2) {
    if (world_rank == 0) std::printf("%s: needs 2 ranks or more\n", name);
    MPI_Finalize();
    return 1;
  }
  std::vector<int> colors(static_cast<std::size_t>(world_size));
  const int split = world_size == 4 ? 1 : (world_size + 1) / 2;
  for (int r = 0; r < world_size; ++r) colors[static_cast<std::size_t>(r)] = r < split ? 0 : 1;
  suite(colors);
  for (int r = 0; r < world_size; ++r) colors[static_cast<std::size_t>(r)] = r % 2;
  suite(colors);
  const int code = conclude(name);
  MPI_Finalize();
  return code;
}

}  // namespace tern::mpi_test
