// Topology: what hwloc finds on this machine and binding this process.
// Binding tests put the process's original CPU set back afterwards, so other
// tests in the same binary run where they would have.
#include "tern/runtime/topology.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include <string>
#include <utility>

namespace tern::runtime {
namespace {

class TopologyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CPU_ZERO(&original_);
    ASSERT_EQ(sched_getaffinity(0, sizeof(original_), &original_), 0);
    ASSERT_EQ(Topology::load(topology_), Status::Ok);
    ASSERT_TRUE(topology_.loaded());
  }
  void TearDown() override { EXPECT_EQ(sched_setaffinity(0, sizeof(original_), &original_), 0); }

  Topology topology_;
  cpu_set_t original_;
};

TEST_F(TopologyTest, CountsWhatTheMachineHas) {
  EXPECT_GE(topology_.packages(), 1u);
  EXPECT_GE(topology_.numa_nodes(), 1u);
  EXPECT_GE(topology_.cores(), 1u);
  EXPECT_GE(topology_.pus(), topology_.cores());
  // Only usable CPUs count, and sched_getaffinity can't show more than those.
  EXPECT_GE(topology_.pus(), static_cast<unsigned>(CPU_COUNT(&original_)));
}

TEST_F(TopologyTest, SummaryNamesEveryLevel) {
  std::string summary = topology_.summary();
  for (const char* part : {"package", "NUMA node", "core", "PU"}) {
    EXPECT_NE(summary.find(part), std::string::npos) << summary;
  }
  const std::string cores = std::to_string(topology_.cores()) + (topology_.cores() == 1 ? " core," : " cores,");
  EXPECT_NE(summary.find(cores), std::string::npos) << summary;
}

TEST_F(TopologyTest, BindingOfSelfIsDescribed) {
  std::string binding = topology_.binding_of_self();
  EXPECT_FALSE(binding.empty());
  EXPECT_NE(binding, "unknown");
}

TEST_F(TopologyTest, BindToCoreZero) {
  ASSERT_EQ(topology_.bind_self_to_core(0), Status::Ok);
  EXPECT_EQ(topology_.binding_of_self(), "core 0");
  cpu_set_t now;
  ASSERT_EQ(sched_getaffinity(0, sizeof(now), &now), 0);
  // Every hardware thread of one core, and nothing else.
  EXPECT_EQ(static_cast<unsigned>(CPU_COUNT(&now)), topology_.pus() / topology_.cores());
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &now)) {
      EXPECT_TRUE(CPU_ISSET(cpu, &original_)) << cpu;
    }
  }
}

TEST_F(TopologyTest, BindToTheLastCoreAndBack) {
  const std::string before = topology_.binding_of_self();
  const unsigned last = topology_.cores() - 1;
  ASSERT_EQ(topology_.bind_self_to_core(last), Status::Ok);
  EXPECT_EQ(topology_.binding_of_self(), "core " + std::to_string(last));
  ASSERT_EQ(sched_setaffinity(0, sizeof(original_), &original_), 0);
  EXPECT_EQ(topology_.binding_of_self(), before);
}

TEST_F(TopologyTest, BindingToSeveralCoresOrPartOfOne) {
  if (topology_.pus() < 2) GTEST_SKIP() << "one CPU";
  // Two CPUs we may use, by OS number.
  cpu_set_t two;
  CPU_ZERO(&two);
  int found = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && found < 2; ++cpu) {
    if (CPU_ISSET(cpu, &original_)) {
      CPU_SET(cpu, &two);
      ++found;
    }
  }
  ASSERT_EQ(found, 2);
  ASSERT_EQ(sched_setaffinity(0, sizeof(two), &two), 0);
  std::string binding = topology_.binding_of_self();
  if (topology_.pus() == 2) {
    EXPECT_EQ(binding, "unbound");
  } else if (topology_.pus() == topology_.cores()) {
    EXPECT_EQ(binding.rfind("cores ", 0), 0u) << binding;
  } else {
    EXPECT_TRUE(binding.rfind("cores ", 0) == 0 || binding.rfind("core ", 0) == 0 || binding.rfind("PU", 0) == 0)
        << binding;
  }
}

TEST_F(TopologyTest, BindToNumaNodeZero) {
  ASSERT_EQ(topology_.bind_self_to_numa(0), Status::Ok);
  std::string binding = topology_.binding_of_self();
  EXPECT_FALSE(binding.empty());
  if (topology_.numa_nodes() == 1) {
    EXPECT_EQ(binding, "unbound");
  }
  // Running now on a CPU of node 0.
  EXPECT_EQ(topology_.numa_node_of_cpu(sched_getcpu()), 0);
}

TEST_F(TopologyTest, OutOfRangeIndexesAreRefused) {
  EXPECT_EQ(topology_.bind_self_to_core(topology_.cores()), Status::InvalidParam);
  EXPECT_EQ(topology_.bind_self_to_core(~0u), Status::InvalidParam);
  EXPECT_EQ(topology_.bind_self_to_numa(topology_.numa_nodes()), Status::InvalidParam);
  EXPECT_EQ(topology_.numa_node_of_core(topology_.cores()), -1);
}

TEST_F(TopologyTest, NumaNodeOfCpus) {
  int cpu = sched_getcpu();
  ASSERT_GE(cpu, 0);
  int node = topology_.numa_node_of_cpu(cpu);
  EXPECT_GE(node, 0);
  EXPECT_LT(node, static_cast<int>(topology_.numa_nodes()));
  EXPECT_EQ(topology_.numa_node_of_cpu(-1), -1);
  EXPECT_EQ(topology_.numa_node_of_cpu(1 << 20), -1);
  for (unsigned core = 0; core < topology_.cores(); ++core) {
    int of_core = topology_.numa_node_of_core(core);
    EXPECT_GE(of_core, 0) << core;
    EXPECT_LT(of_core, static_cast<int>(topology_.numa_nodes())) << core;
  }
}

TEST(Topology, EmptyAndMoved) {
  Topology empty;
  EXPECT_FALSE(empty.loaded());
  EXPECT_EQ(empty.cores(), 0u);
  EXPECT_EQ(empty.numa_nodes(), 0u);
  EXPECT_EQ(empty.binding_of_self(), "unknown");
  EXPECT_EQ(empty.summary(), "topology not loaded");
  EXPECT_EQ(empty.bind_self_to_core(0), Status::InvalidParam);
  EXPECT_EQ(empty.numa_node_of_cpu(0), -1);

  Topology loaded;
  ASSERT_EQ(Topology::load(loaded), Status::Ok);
  const unsigned cores = loaded.cores();
  Topology moved(std::move(loaded));
  EXPECT_FALSE(loaded.loaded());  // NOLINT(bugprone-use-after-move): the moved-from state is part of the contract
  EXPECT_EQ(moved.cores(), cores);
  empty = std::move(moved);
  EXPECT_EQ(empty.cores(), cores);
}

TEST(Topology, MemoryBindingRefusesBadArguments) {
  Topology empty;
  char byte = 0;
  EXPECT_EQ(empty.bind_memory_to_numa(&byte, 1, 0), Status::InvalidParam);
  EXPECT_EQ(empty.numa_node_of_self(), -1);
  Topology loaded;
  ASSERT_EQ(Topology::load(loaded), Status::Ok);
  EXPECT_EQ(loaded.bind_memory_to_numa(nullptr, 4096, 0), Status::InvalidParam);
  EXPECT_EQ(loaded.bind_memory_to_numa(&byte, 1, loaded.numa_nodes() + 5), Status::InvalidParam);
}

// Placement is decided once per process, so each case runs in a child that
// binds itself first. With one NUMA node there is nothing to place; with
// several, a process bound to node N gets its shared pages on node N.
TEST(Topology, PlacesSharedMemoryOnTheNodeOfTheBoundProcess) {
  Topology topology;
  ASSERT_EQ(Topology::load(topology), Status::Ok);
  const unsigned nodes = topology.numa_nodes();
  for (unsigned node = 0; node < nodes; ++node) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      alarm(30);
      Topology own;
      if (Topology::load(own) != Status::Ok || own.bind_self_to_numa(node) != Status::Ok) _exit(10);
      const std::size_t length = std::size_t{4} << 20;
      void* area = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
      if (area == MAP_FAILED) _exit(11);
      if (place_near_self(area, length) != Status::Ok) _exit(12);
      std::memset(area, 1, length);
      const int expected = nodes > 1 ? static_cast<int>(node) : -1;
      if (numa_node_for_placement() != expected) _exit(13);
      if (nodes > 1) {
        // Where the kernel put the first page (an OS node number; hwloc's
        // logical numbers follow the OS order on Linux).
        int where = -1;
        void* pages[1] = {area};
        if (syscall(SYS_move_pages, 0, 1, pages, nullptr, &where, 0) != 0) _exit(14);
        if (where != static_cast<int>(node)) _exit(15);
      }
      _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "NUMA node " << node << " of " << nodes;
  }
}

}  // namespace
}  // namespace tern::runtime
