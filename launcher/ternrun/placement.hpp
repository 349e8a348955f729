// Where each rank goes: the mapping policy of --map-by, on an abstract machine
// (cores, each in one NUMA node), so it can be tested without hwloc.
#pragma once

#include <span>
#include <vector>

#include "ternrun/options.hpp"

namespace tern::launcher {

struct Location {
  unsigned core = 0;  // index among the machine's cores (hwloc logical order)
  unsigned numa = 0;  // index of the NUMA node holding that core
};

// `numa_of_core[c]` is the NUMA node of core c; there is at least one core.
// MapBy::Core: rank r on core r mod cores. MapBy::Numa: rank r on NUMA node
// r mod nodes (nodes without cores are skipped), on the (r / nodes)-th core of
// that node, wrapping around. More ranks than cores wrap around in both.
std::vector<Location> map_ranks(unsigned ranks, std::span<const unsigned> numa_of_core, MapBy policy);

// For each rank, the core its progress thread (TERN_PROGRESS) is bound to:
// a spare core (one no rank is bound to), on the rank's own NUMA node where
// that node has one, shared round robin by the ranks that get it; -1 for
// every rank when ranks are not bound one per core (BindTo::Core) or no core
// is spare: the thread then shares its rank's CPUs.
std::vector<int> progress_cores(std::span<const Location> locations, std::span<const unsigned> numa_of_core,
                                bool bound_per_core);

}  // namespace tern::launcher
