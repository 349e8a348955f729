#include "tern/runtime/topology.hpp"

#include <dirent.h>
#include <hwloc.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "tern/runtime/config.hpp"
#include "tern/runtime/log.hpp"

namespace tern::runtime {
namespace {

struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* bitmap) const noexcept { hwloc_bitmap_free(bitmap); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

unsigned count(hwloc_topology_t topology, hwloc_obj_type_t type) {
  if (topology == nullptr) return 0;
  int n = hwloc_get_nbobjs_by_type(topology, type);
  return n > 0 ? static_cast<unsigned>(n) : 0;
}

std::string counted(unsigned n, const char* singular, const char* plural) {
  return std::to_string(n) + ' ' + (n == 1 ? singular : plural);
}

Status bind_to(hwloc_topology_t topology, hwloc_obj_t obj, const char* what, unsigned index) {
  if (topology == nullptr) return Status::InvalidParam;
  if (obj == nullptr || obj->cpuset == nullptr || hwloc_bitmap_iszero(obj->cpuset)) {
    TERN_LOG(Debug, "topology: no %s %u to bind to", what, index);
    return Status::InvalidParam;
  }
  // Flags 0: the whole process where the OS allows it (Linux does), so threads
  // a library started before us (PMIx's progress thread) move along.
  if (hwloc_set_cpubind(topology, obj->cpuset, 0) != 0) {
    TERN_LOG(Error, "topology: binding to %s %u failed: %s", what, index, std::strerror(errno));
    return Status::IoError;
  }
  return Status::Ok;
}

}  // namespace

Status Topology::load(Topology& out) {
  out = Topology();
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) {
    TERN_LOG(Error, "topology: hwloc_topology_init failed: %s", std::strerror(errno));
    return Status::NoMemory;
  }
  if (hwloc_topology_load(topology) != 0) {
    TERN_LOG(Error, "topology: hwloc_topology_load failed: %s", std::strerror(errno));
    hwloc_topology_destroy(topology);
    return Status::IoError;
  }
  out.topology_ = topology;
  return Status::Ok;
}

Topology::~Topology() {
  if (topology_ != nullptr) hwloc_topology_destroy(topology_);
}

Topology::Topology(Topology&& other) noexcept : topology_(std::exchange(other.topology_, nullptr)) {}

Topology& Topology::operator=(Topology&& other) noexcept {
  if (this != &other) {
    if (topology_ != nullptr) hwloc_topology_destroy(topology_);
    topology_ = std::exchange(other.topology_, nullptr);
  }
  return *this;
}

unsigned Topology::packages() const noexcept {
  unsigned n = count(topology_, HWLOC_OBJ_PACKAGE);
  // Some virtual machines and containers expose no package object.
  return n == 0 && topology_ != nullptr ? 1 : n;
}

unsigned Topology::numa_nodes() const noexcept {
  unsigned n = count(topology_, HWLOC_OBJ_NUMANODE);
  return n == 0 && topology_ != nullptr ? 1 : n;
}

unsigned Topology::cores() const noexcept {
  unsigned n = count(topology_, HWLOC_OBJ_CORE);
  // Without core objects (some architectures), each PU is its own core.
  return n == 0 ? pus() : n;
}

unsigned Topology::pus() const noexcept { return count(topology_, HWLOC_OBJ_PU); }

std::string Topology::binding_of_self() const {
  if (topology_ == nullptr) return "unknown";
  Bitmap bound(hwloc_bitmap_alloc());
  if (!bound) return "unknown";
  if (hwloc_get_cpubind(topology_, bound.get(), 0) != 0 &&
      hwloc_get_cpubind(topology_, bound.get(), HWLOC_CPUBIND_THREAD) != 0) {
    return "unknown";
  }
  hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topology_);
  if (hwloc_bitmap_isincluded(allowed, bound.get())) return "unbound";

  std::vector<unsigned> whole_cores;
  bool splits_a_core = false;
  const unsigned ncores = count(topology_, HWLOC_OBJ_CORE);
  for (unsigned i = 0; i < ncores; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topology_, HWLOC_OBJ_CORE, i);
    if (core == nullptr || core->cpuset == nullptr) continue;
    if (hwloc_bitmap_isincluded(core->cpuset, bound.get())) whole_cores.push_back(i);
    else if (hwloc_bitmap_intersects(core->cpuset, bound.get())) splits_a_core = true;
  }
  if (!splits_a_core && !whole_cores.empty()) {
    return (whole_cores.size() == 1 ? "core " : "cores ") + format_cpu_list(whole_cores);
  }
  std::vector<unsigned> pu_numbers;
  const unsigned npus = count(topology_, HWLOC_OBJ_PU);
  for (unsigned i = 0; i < npus; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(topology_, HWLOC_OBJ_PU, i);
    if (pu != nullptr && hwloc_bitmap_isset(bound.get(), pu->os_index)) pu_numbers.push_back(i);
  }
  if (pu_numbers.empty()) return "unknown";
  return (pu_numbers.size() == 1 ? "PU " : "PUs ") + format_cpu_list(pu_numbers);
}

int Topology::numa_node_of_cpu(int cpu) const noexcept {
  if (topology_ == nullptr || cpu < 0) return -1;
  if (hwloc_get_pu_obj_by_os_index(topology_, static_cast<unsigned>(cpu)) == nullptr) return -1;
  const unsigned nodes = count(topology_, HWLOC_OBJ_NUMANODE);
  for (unsigned i = 0; i < nodes; ++i) {
    hwloc_obj_t node = hwloc_get_obj_by_type(topology_, HWLOC_OBJ_NUMANODE, i);
    if (node != nullptr && node->cpuset != nullptr && hwloc_bitmap_isset(node->cpuset, static_cast<unsigned>(cpu)))
      return static_cast<int>(node->logical_index);
  }
  // A machine without NUMA objects is one node.
  return nodes == 0 ? 0 : -1;
}

int Topology::numa_node_of_core(unsigned index) const noexcept {
  if (topology_ == nullptr) return -1;
  hwloc_obj_t core = hwloc_get_obj_by_type(topology_, HWLOC_OBJ_CORE, index);
  if (core == nullptr || core->cpuset == nullptr) return -1;
  int first = hwloc_bitmap_first(core->cpuset);
  return first < 0 ? -1 : numa_node_of_cpu(first);
}

Status Topology::bind_self_to_core(unsigned index) {
  if (topology_ == nullptr) return Status::InvalidParam;
  hwloc_obj_type_t type = count(topology_, HWLOC_OBJ_CORE) != 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  return bind_to(topology_, hwloc_get_obj_by_type(topology_, type, index), "core", index);
}

Status Topology::unbind_self() {
  if (topology_ == nullptr) return Status::InvalidParam;
  if (hwloc_set_cpubind(topology_, hwloc_topology_get_allowed_cpuset(topology_), 0) != 0) {
    TERN_LOG(Error, "topology: unbinding failed: %s", std::strerror(errno));
    return Status::IoError;
  }
  return Status::Ok;
}

Status Topology::bind_self_to_numa(unsigned index) {
  if (topology_ == nullptr) return Status::InvalidParam;
  hwloc_obj_t node = hwloc_get_obj_by_type(topology_, HWLOC_OBJ_NUMANODE, index);
  // The machine as a whole stands in for node 0 where hwloc finds no NUMA object.
  if (node == nullptr && index == 0 && count(topology_, HWLOC_OBJ_NUMANODE) == 0)
    node = hwloc_get_root_obj(topology_);
  return bind_to(topology_, node, "NUMA node", index);
}

int Topology::numa_node_of_self() const noexcept {
  if (topology_ == nullptr) return -1;
  Bitmap cpus(hwloc_bitmap_alloc());
  if (!cpus || hwloc_get_cpubind(topology_, cpus.get(), HWLOC_CPUBIND_PROCESS) != 0) return -1;
  const int nodes = hwloc_get_nbobjs_by_type(topology_, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < nodes; ++i) {
    hwloc_obj_t node = hwloc_get_obj_by_type(topology_, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    if (node != nullptr && node->cpuset != nullptr && hwloc_bitmap_isincluded(cpus.get(), node->cpuset)) return i;
  }
  return -1;
}

Status Topology::bind_memory_to_numa(void* address, std::size_t length, unsigned index) const {
  if (topology_ == nullptr || address == nullptr || length == 0) return Status::InvalidParam;
  hwloc_obj_t node = hwloc_get_obj_by_type(topology_, HWLOC_OBJ_NUMANODE, index);
  if (node == nullptr || node->nodeset == nullptr) return Status::InvalidParam;
  if (hwloc_set_area_membind(topology_, address, length, node->nodeset, HWLOC_MEMBIND_BIND,
                             HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_MIGRATE) != 0) {
    TERN_LOG(Info, "topology: placing %zu bytes on NUMA node %u failed: %s", length, index, std::strerror(errno));
    return Status::IoError;
  }
  return Status::Ok;
}

std::string Topology::summary() const {
  if (topology_ == nullptr) return "topology not loaded";
  return counted(packages(), "package", "packages") + ", " + counted(numa_nodes(), "NUMA node", "NUMA nodes") +
         ", " + counted(cores(), "core", "cores") + ", " + counted(pus(), "PU", "PUs");
}

namespace {

// Directories /sys/devices/system/node/nodeN: the kernel's own count, read
// without loading a topology (that costs milliseconds at every start).
unsigned kernel_numa_nodes() {
  DIR* dir = opendir("/sys/devices/system/node");
  if (dir == nullptr) return 1;
  unsigned nodes = 0;
  while (dirent* entry = readdir(dir)) {
    if (std::strncmp(entry->d_name, "node", 4) == 0 && entry->d_name[4] >= '0' && entry->d_name[4] <= '9') ++nodes;
  }
  closedir(dir);
  return nodes == 0 ? 1 : nodes;
}

struct Placement {
  Topology topology;
  int node = -1;
};

Placement& placement() {
  static Placement* loaded = [] {
    auto* p = new Placement;  // lives as long as the process: memory stays placed
    if (kernel_numa_nodes() > 1 && Topology::load(p->topology) == Status::Ok) {
      p->node = p->topology.numa_node_of_self();
    }
    return p;
  }();
  return *loaded;
}

}  // namespace

int numa_node_for_placement() { return placement().node; }

Status place_near_self(void* address, std::size_t length) {
  Placement& p = placement();
  if (p.node < 0) return Status::Ok;
  return p.topology.bind_memory_to_numa(address, length, static_cast<unsigned>(p.node));
}

}  // namespace tern::runtime
