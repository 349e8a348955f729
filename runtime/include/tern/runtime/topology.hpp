// The machine as hwloc sees it (packages, NUMA nodes, cores, hardware
// threads), and where this process runs. ternrun binds ranks with it
// (--bind-to core|numa), tern_info prints its summary.
//
// Only the CPUs this process may use count (a cgroup or an inherited
// binding restricts them), so "core 1" is the second core we are allowed on.
#pragma once

#include <cstddef>
#include <string>

#include "tern/runtime/status.hpp"

struct hwloc_topology;  // hwloc's handle, kept out of this header

namespace tern::runtime {

class Topology {
 public:
  // Discovers the machine; on failure `out` stays empty and the log says why.
  [[nodiscard]] static Status load(Topology& out);

  Topology() = default;
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  Topology(Topology&& other) noexcept;
  Topology& operator=(Topology&& other) noexcept;

  [[nodiscard]] bool loaded() const noexcept { return topology_ != nullptr; }

  // Counts of what this process may use; at least 1 each once loaded.
  [[nodiscard]] unsigned packages() const noexcept;
  [[nodiscard]] unsigned numa_nodes() const noexcept;
  [[nodiscard]] unsigned cores() const noexcept;
  [[nodiscard]] unsigned pus() const noexcept;  // hardware threads

  // Where this process may run now: "unbound" (every usable CPU), "core 0",
  // "cores 0-1,3" (logical core numbers, whole cores), or "PUs 0,2" when the
  // set splits a core.
  [[nodiscard]] std::string binding_of_self() const;

  // Logical number of the NUMA node holding the CPU with the OS number `cpu`
  // (as in sched_getcpu, /proc/cpuinfo); -1 when the CPU is unknown or unusable.
  [[nodiscard]] int numa_node_of_cpu(int cpu) const noexcept;
  // The NUMA node of the `index`-th core; -1 for an index out of range.
  [[nodiscard]] int numa_node_of_core(unsigned index) const noexcept;

  // Binds every thread of this process to all hardware threads of the
  // `index`-th core (0 .. cores() - 1), or of the `index`-th NUMA node.
  // InvalidParam for an index out of range, IoError when the kernel refuses.
  [[nodiscard]] Status bind_self_to_core(unsigned index);
  [[nodiscard]] Status bind_self_to_numa(unsigned index);
  // Undoes an inherited binding: every CPU this process's cgroup allows.
  [[nodiscard]] Status unbind_self();

  // The logical NUMA node this process is bound within: -1 when its CPUs
  // span several nodes (or it is unbound on a multi-node machine).
  [[nodiscard]] int numa_node_of_self() const noexcept;
  // Puts the pages of [address, address + length) on NUMA node `index`
  // (moving those already there). InvalidParam for a bad node, IoError when
  // the kernel refuses.
  [[nodiscard]] Status bind_memory_to_numa(void* address, std::size_t length, unsigned index) const;

  // "1 package, 1 NUMA node, 2 cores, 2 PUs".
  [[nodiscard]] std::string summary() const;

 private:
  hwloc_topology* topology_ = nullptr;
};

// Shared memory a process reads most (its receive FIFO, its heap) belongs on
// its own NUMA node. Places [address, address + length) on the node this
// process is bound within. A no-op (Ok) on machines with one NUMA node,
// where the topology is not even loaded, and for processes not bound within
// one node (first touch decides then). Thread-safe.
Status place_near_self(void* address, std::size_t length);
// The NUMA node place_near_self() uses (-1: none, or one node only).
[[nodiscard]] int numa_node_for_placement();

}  // namespace tern::runtime
