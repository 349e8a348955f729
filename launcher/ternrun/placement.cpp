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

std::vector<int> progress_cores(std::span<const Location> locations, std::span<const unsigned> numa_of_core,
                                bool bound_per_core) {
  std::vector<int> chosen(locations.size(), -1);
  if (!bound_per_core || numa_of_core.empty()) return chosen;
  std::vector<bool> used(numa_of_core.size(), false);
  for (const Location& where : locations) {
    if (where.core < used.size()) used[where.core] = true;
  }
  std::vector<unsigned> spare;
  for (unsigned core = 0; core < used.size(); ++core) {
    if (!used[core]) spare.push_back(core);
  }
  if (spare.empty()) return chosen;
  // Ranks take the spare cores of their node in turn, then any in turn.
  const unsigned nodes = *std::max_element(numa_of_core.begin(), numa_of_core.end()) + 1;
  std::vector<std::vector<unsigned>> spare_of(nodes);
  for (unsigned core : spare) spare_of[numa_of_core[core]].push_back(core);
  std::vector<unsigned> taken_on(nodes, 0);
  unsigned taken_anywhere = 0;
  for (std::size_t rank = 0; rank < locations.size(); ++rank) {
    const unsigned node = locations[rank].numa < nodes ? locations[rank].numa : 0;
    const std::vector<unsigned>& near = spare_of[node];
    chosen[rank] = static_cast<int>(near.empty() ? spare[taken_anywhere++ % spare.size()]
                                                 : near[taken_on[node]++ % near.size()]);
  }
  return chosen;
}

}  // namespace tern::launcher
