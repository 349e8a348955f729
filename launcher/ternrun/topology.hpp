// The machine as ternrun places ranks on it: its cores (the ones this process
// may use) and their NUMA nodes, from hwloc.
#pragma once

#include <hwloc.h>
#include <sched.h>

#include <string>
#include <vector>

#include "ternrun/options.hpp"
#include "ternrun/placement.hpp"

namespace tern::launcher {

class Topology {
 public:
  Topology() = default;
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  // Discovers the machine. False (with `error`) when hwloc cannot.
  [[nodiscard]] bool load(std::string& error);

  [[nodiscard]] hwloc_topology_t handle() const noexcept { return topology_; }
  // At least 1 once loaded. Hardware threads stand in for cores on machines
  // where hwloc reports none.
  [[nodiscard]] unsigned cores() const noexcept { return static_cast<unsigned>(cores_.size()); }
  // For each core, the index of its NUMA node.
  [[nodiscard]] const std::vector<unsigned>& numa_of_core() const noexcept { return numa_of_core_; }

  // The CPUs a rank placed at `where` is bound to; null for BindTo::None.
  [[nodiscard]] hwloc_const_cpuset_t binding(const Location& where, BindTo bind_to) const;

  // `cpus` as the affinity mask sched_setaffinity takes. False when it does
  // not fit in a cpu_set_t.
  [[nodiscard]] bool to_cpu_set(hwloc_const_cpuset_t cpus, cpu_set_t& out) const;

  // "bound to core 2 (cpus 2,6)", "bound to NUMA node 1 (cpus 8-15)" or "not
  // bound", for --report-bindings.
  [[nodiscard]] std::string describe(const Location& where, BindTo bind_to) const;

  // The CPUs of core `core` as a list ("3", "2,6"); empty when there is no
  // such core.
  [[nodiscard]] std::string core_cpus(unsigned core) const;

 private:
  hwloc_topology_t topology_ = nullptr;
  std::vector<hwloc_obj_t> cores_;
  std::vector<hwloc_obj_t> numa_nodes_;
  std::vector<unsigned> numa_of_core_;
};

}  // namespace tern::launcher
