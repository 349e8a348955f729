#include "ternrun/topology.hpp"

#include <hwloc/glibc-sched.h>

#include <cstdlib>

namespace tern::launcher {

Topology::~Topology() {
  if (topology_ != nullptr) hwloc_topology_destroy(topology_);
}

bool Topology::load(std::string& error) {
  if (hwloc_topology_init(&topology_) != 0) {
    topology_ = nullptr;
    error = "hwloc could not start";
    return false;
  }
  // hwloc leaves out, by default, the CPUs this process may not run on (a
  // cgroup or taskset limit), so ranks are only placed where they can run.
  if (hwloc_topology_load(topology_) != 0) {
    error = "hwloc could not discover this machine's topology";
    return false;
  }
  hwloc_obj_type_t unit = HWLOC_OBJ_CORE;
  if (hwloc_get_nbobjs_by_type(topology_, unit) <= 0) unit = HWLOC_OBJ_PU;
  for (int index = 0, count = hwloc_get_nbobjs_by_type(topology_, unit); index < count; ++index) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topology_, unit, static_cast<unsigned>(index));
    if (core != nullptr && core->cpuset != nullptr && !hwloc_bitmap_iszero(core->cpuset)) cores_.push_back(core);
  }
  if (cores_.empty()) {
    error = "hwloc found no CPU core to run on";
    return false;
  }
  for (int index = 0, count = hwloc_get_nbobjs_by_type(topology_, HWLOC_OBJ_NUMANODE); index < count; ++index) {
    numa_nodes_.push_back(hwloc_get_obj_by_type(topology_, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(index)));
  }
  // NUMA nodes are memory children in hwloc 2, not ancestors of cores, so a
  // core's node is the one whose CPUs contain the core's.
  for (hwloc_obj_t core : cores_) {
    unsigned found = 0;
    for (unsigned node = 0; node < numa_nodes_.size(); ++node) {
      if (numa_nodes_[node]->cpuset != nullptr && hwloc_bitmap_isincluded(core->cpuset, numa_nodes_[node]->cpuset)) {
        found = node;
        break;
      }
    }
    numa_of_core_.push_back(found);
  }
  return true;
}

hwloc_const_cpuset_t Topology::binding(const Location& where, BindTo bind_to) const {
  switch (bind_to) {
    case BindTo::Core: return where.core < cores_.size() ? cores_[where.core]->cpuset : nullptr;
    case BindTo::Numa:
      if (where.numa < numa_nodes_.size()) return numa_nodes_[where.numa]->cpuset;
      // No NUMA node reported: the whole machine is one.
      return hwloc_topology_get_topology_cpuset(topology_);
    case BindTo::None: return nullptr;
  }
  return nullptr;
}

bool Topology::to_cpu_set(hwloc_const_cpuset_t cpus, cpu_set_t& out) const {
  CPU_ZERO(&out);
  if (hwloc_bitmap_last(cpus) >= CPU_SETSIZE) return false;
  return hwloc_cpuset_to_glibc_sched_affinity(topology_, cpus, &out, sizeof(out)) == 0;
}

std::string Topology::core_cpus(unsigned core) const {
  if (core >= cores_.size()) return "";
  char* list = nullptr;
  hwloc_bitmap_list_asprintf(&list, cores_[core]->cpuset);
  std::string text = list != nullptr ? list : "";
  std::free(list);
  return text;
}

std::string Topology::describe(const Location& where, BindTo bind_to) const {
  hwloc_const_cpuset_t cpus = binding(where, bind_to);
  if (cpus == nullptr) return "not bound";
  char* list = nullptr;
  hwloc_bitmap_list_asprintf(&list, cpus);
  std::string text = bind_to == BindTo::Core ? "bound to core " + std::to_string(where.core)
                                             : "bound to NUMA node " + std::to_string(where.numa);
  text += " (cpus " + std::string(list != nullptr ? list : "?") + ")";
  std::free(list);
  return text;
}

}  // namespace tern::launcher
