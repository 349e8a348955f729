#include "ternrun/placement.hpp"

#include <algorithm>

namespace tern::launcher {

std::vector<Location> map_ranks(unsigned ranks, std::span<const unsigned> numa_of_core, MapBy policy) {
  std::vector<Location> locations(ranks);
  if (numa_of_core.empty()) return locations;
  const auto cores = static_cast<unsigned>(numa_of_core.size());
  if (policy == MapBy::Core) {
    for (unsigned rank = 0; rank < ranks; ++rank) {
      unsigned core = rank % cores;
      locations[rank] = {core, numa_of_core[core]};
    }
    return locations;
  }
  // The cores of each NUMA node that has any, nodes in index order.
  unsigned nodes = *std::max_element(numa_of_core.begin(), numa_of_core.end()) + 1;
  std::vector<std::vector<unsigned>> cores_of(nodes);
  for (unsigned core = 0; core < cores; ++core) cores_of[numa_of_core[core]].push_back(core);
  std::erase_if(cores_of, [](const std::vector<unsigned>& list) { return list.empty(); });
  const auto used_nodes = static_cast<unsigned>(cores_of.size());
  for (unsigned rank = 0; rank < ranks; ++rank) {
    const std::vector<unsigned>& list = cores_of[rank % used_nodes];
    unsigned core = list[(rank / used_nodes) % list.size()];
    locations[rank] = {core, numa_of_core[core]};
  }
  return locations;
}

}  // namespace tern::launcher
