// The shm transport's shared arena: the allocator itself, and zero copy from
// a peer's arena working as a plain copy (even with CMA switched off).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "transport/iface_params.hpp"
#include "transport/shm/shared_arena.hpp"
#include "transport_test_util.hpp"

namespace tern::engine::transport {
namespace {

using shm::SharedArena;

TEST(SharedArena, AllocatesDistinctBlocksAndReusesFreedOnes) {
  SharedArena arena;
  ASSERT_EQ(arena.create(std::size_t{1} << 20), Status::Ok);
  void* a = arena.allocate(100);
  void* b = arena.allocate(5000);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(arena.contains(a));
  EXPECT_TRUE(arena.contains(b));
  EXPECT_GE(static_cast<char*>(b) - static_cast<char*>(a), 4096);  // page granularity
  std::memset(a, 1, 100);
  std::memset(b, 2, 5000);
  EXPECT_TRUE(arena.deallocate(a));
  EXPECT_FALSE(arena.deallocate(a));  // twice
  int local = 0;
  EXPECT_FALSE(arena.deallocate(&local));  // not ours
  EXPECT_FALSE(arena.contains(&local));
  void* c = arena.allocate(4096);
  EXPECT_EQ(c, a);  // first fit takes the freed block
  EXPECT_TRUE(arena.deallocate(b));
  EXPECT_TRUE(arena.deallocate(c));
}

TEST(SharedArena, RefusesWhatDoesNotFitAndCoalesces) {
  SharedArena arena;
  ASSERT_EQ(arena.create(std::size_t{1} << 20), Status::Ok);
  std::vector<void*> blocks;
  for (int i = 0; i < 4; ++i) {
    blocks.push_back(arena.allocate(256 * 1024));
    ASSERT_NE(blocks.back(), nullptr);
  }
  EXPECT_EQ(arena.allocate(1), nullptr);  // full
  // Freed neighbours merge back into one block as large as the arena.
  for (void* block : blocks) EXPECT_TRUE(arena.deallocate(block));
  void* whole = arena.allocate(std::size_t{1} << 20);
  EXPECT_NE(whole, nullptr);
  EXPECT_TRUE(arena.deallocate(whole));
}

// Two shm ifaces in this process, CMA off: a get from the other iface's
// mem_alloc memory still works (it is mapped), one from ordinary memory is
// refused.
TEST(SharedArena, GetFromAPeersArenaNeedsNoCma) {
  IfaceParams params;
  params.job_id = testing::unique_job_id("arena");
  params.config.cma = runtime::Switch::Off;
  params.config.shm_arena_size = std::size_t{64} << 20;
  Status status = Status::Ok;
  auto owner = create_shm_iface(params, status);
  ASSERT_NE(owner, nullptr) << to_string(status);
  auto reader = create_shm_iface(params, status);
  ASSERT_NE(reader, nullptr) << to_string(status);
  Ep* ep = reader->create_ep(owner->address(), status);
  ASSERT_NE(ep, nullptr) << to_string(status);
  EXPECT_FALSE(ep->supports_zcopy());

  const std::size_t length = 3 * 1024 * 1024 + 17;
  void* shared = owner->mem_alloc(length);
  ASSERT_NE(shared, nullptr);
  EXPECT_TRUE(owner->mem_owns(shared, length));
  EXPECT_FALSE(reader->mem_owns(shared, length));
  testing::fill_pattern(shared, length, 5);
  std::vector<std::byte> local(length);
  EXPECT_EQ(ep->get_zcopy(local.data(), length, {reinterpret_cast<uint64_t>(shared), 0}, nullptr), Status::Ok);
  EXPECT_TRUE(testing::check_pattern(local.data(), length, 5));

  // And a put into it.
  testing::fill_pattern(local.data(), length, 6);
  EXPECT_EQ(ep->put_zcopy(local.data(), length, {reinterpret_cast<uint64_t>(shared), 0}, nullptr), Status::Ok);
  EXPECT_TRUE(testing::check_pattern(shared, length, 6));

  std::vector<std::byte> plain(4096);
  EXPECT_EQ(ep->get_zcopy(local.data(), plain.size(), {reinterpret_cast<uint64_t>(plain.data()), 0}, nullptr),
            Status::Unsupported);
  reader->destroy_ep(ep);
  EXPECT_TRUE(owner->mem_free(shared));
}

}  // namespace
}  // namespace tern::engine::transport
