// --map-by on made-up machines.
#include <gtest/gtest.h>

#include <vector>

#include "ternrun/placement.hpp"

namespace tern::launcher {
namespace {

std::vector<unsigned> cores_of(const std::vector<Location>& locations) {
  std::vector<unsigned> cores;
  for (const Location& location : locations) cores.push_back(location.core);
  return cores;
}

TEST(launcher_placement, ByCoreIsConsecutiveAndWraps) {
  const std::vector<unsigned> numa_of_core = {0, 0, 1, 1};
  auto locations = map_ranks(6, numa_of_core, MapBy::Core);
  EXPECT_EQ(cores_of(locations), (std::vector<unsigned>{0, 1, 2, 3, 0, 1}));
  EXPECT_EQ(locations[2].numa, 1u);
  EXPECT_EQ(locations[5].numa, 0u);
}

TEST(launcher_placement, ByNumaAlternatesNodes) {
  const std::vector<unsigned> numa_of_core = {0, 0, 0, 1, 1, 1};
  auto locations = map_ranks(7, numa_of_core, MapBy::Numa);
  EXPECT_EQ(cores_of(locations), (std::vector<unsigned>{0, 3, 1, 4, 2, 5, 0}));
  for (std::size_t rank = 0; rank < 6; ++rank) EXPECT_EQ(locations[rank].numa, rank % 2) << rank;
}

TEST(launcher_placement, ByNumaSkipsNodesWithoutCores) {
  // Node 1 is memory only (HBM, CXL): it holds no core to place a rank on.
  const std::vector<unsigned> numa_of_core = {0, 0, 2, 2};
  auto locations = map_ranks(4, numa_of_core, MapBy::Numa);
  EXPECT_EQ(cores_of(locations), (std::vector<unsigned>{0, 2, 1, 3}));
}

TEST(launcher_placement, UnevenNodesWrapPerNode) {
  const std::vector<unsigned> numa_of_core = {0, 1, 1, 1};
  auto locations = map_ranks(6, numa_of_core, MapBy::Numa);
  EXPECT_EQ(cores_of(locations), (std::vector<unsigned>{0, 1, 0, 2, 0, 3}));
}

TEST(launcher_placement, OneCoreMachine) {
  const std::vector<unsigned> numa_of_core = {0};
  EXPECT_EQ(cores_of(map_ranks(3, numa_of_core, MapBy::Core)), (std::vector<unsigned>{0, 0, 0}));
  EXPECT_EQ(cores_of(map_ranks(3, numa_of_core, MapBy::Numa)), (std::vector<unsigned>{0, 0, 0}));
}

TEST(launcher_placement, ProgressThreadsGetSpareCoresNearTheirRank) {
  // Two nodes of four cores; ranks on cores 0, 1 (node 0) and 4 (node 1).
  const std::vector<unsigned> numa = {0, 0, 0, 0, 1, 1, 1, 1};
  const std::vector<Location> ranks = {{0, 0}, {1, 0}, {4, 1}};
  EXPECT_EQ(progress_cores(ranks, numa, true), (std::vector<int>{2, 3, 5}));
  // Not bound one per core: no choice is made.
  EXPECT_EQ(progress_cores(ranks, numa, false), (std::vector<int>{-1, -1, -1}));
}

TEST(launcher_placement, ProgressThreadsShareSpareCoresInTurn) {
  const std::vector<unsigned> numa = {0, 0, 0};
  const std::vector<Location> ranks = {{0, 0}, {1, 0}};
  EXPECT_EQ(progress_cores(ranks, numa, true), (std::vector<int>{2, 2}));
  // A node without spare cores borrows from another node.
  const std::vector<unsigned> two_nodes = {0, 1, 1};
  const std::vector<Location> on_node0 = {{0, 0}};
  EXPECT_EQ(progress_cores(on_node0, two_nodes, true), (std::vector<int>{1}));
}

TEST(launcher_placement, NoSpareCoreLeavesProgressThreadsWithTheirRank) {
  const std::vector<unsigned> numa = {0, 0};
  const std::vector<Location> ranks = {{0, 0}, {1, 0}};
  EXPECT_EQ(progress_cores(ranks, numa, true), (std::vector<int>{-1, -1}));
}

}  // namespace
}  // namespace tern::launcher
