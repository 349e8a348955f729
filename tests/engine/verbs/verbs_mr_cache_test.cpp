// The registration cache drops what the process unmapped, moved or emptied
// (verbs_mr_cache.hpp, verbs_memory_events.hpp), and the emulation makes a
// stale registration fail as an access error instead of writing into
// whatever is mapped at its addresses now.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "transport/verbs/verbs_emulated.hpp"
#include "transport/verbs/verbs_memory_events.hpp"
#include "transport/verbs/verbs_mr_cache.hpp"
#include "verbs_side.hpp"

namespace tern::engine::transport::verbs {
namespace {

const std::size_t kPage = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));

// Anonymous pages, at `where` when given (replacing what is there).
std::byte* map_pages(std::size_t pages, void* where = nullptr) {
  void* p = mmap(where, pages * kPage, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | (where != nullptr ? MAP_FIXED : 0), -1, 0);
  EXPECT_NE(p, MAP_FAILED);
  return static_cast<std::byte*>(p);
}

class VerbsMrCache : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!memory_events::hooked()) GTEST_SKIP() << "memory calls are not hooked under a sanitizer";
    fabric_ = make_emulated_fabric({});
    provider_ = make_emulated_provider(fabric_);
    a_.open(*provider_, "emu0");
    b_.open(*provider_, "emu1");
    ASSERT_EQ(testing::connect(a_, b_), Status::Ok);
    ASSERT_EQ(testing::connect(b_, a_), Status::Ok);
    cache_ = std::make_unique<MrCache>(*a_.pd);
  }
  void TearDown() override { cache_.reset(); }
  // An RDMA WRITE of `length` bytes from `from` (registered as `mr`) to b_'s memory.
  WcStatus write(const void* from, uint32_t length, const Mr& mr) {
    SendWr wr;
    wr.wr_id = 1;
    wr.op = SendOp::RdmaWrite;
    wr.sge = {reinterpret_cast<uint64_t>(from), length, mr.lkey()};
    wr.remote_address = b_.at(0);
    wr.rkey = b_.mr->rkey();
    EXPECT_EQ(a_.qp->post_send(wr), Status::Ok);
    const auto wcs = a_.poll();
    EXPECT_EQ(wcs.size(), 1u);
    return wcs.empty() ? WcStatus::GeneralError : wcs[0].status;
  }

  std::shared_ptr<EmulatedFabric> fabric_;
  std::unique_ptr<Provider> provider_;
  testing::Side a_, b_;
  std::unique_ptr<MrCache> cache_;
};

TEST_F(VerbsMrCache, ABufferUnmappedAndMappedAgainIsRegisteredAgain) {
  std::byte* buffer = map_pages(2);
  Status status = Status::Ok;
  const Mr* first = cache_->get(buffer + 100, 3000, status);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(cache_->get(buffer + 8, 64, status), first);  // a hit
  EXPECT_EQ(cache_->registrations(), 1u);
  ASSERT_EQ(munmap(buffer, 2 * kPage), 0);
  ASSERT_EQ(map_pages(2, buffer), buffer);  // the same addresses, other pages
  std::memset(buffer, 'n', 64);
  const Mr* second = cache_->get(buffer + 8, 64, status);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(cache_->registrations(), 2u);
  EXPECT_EQ(cache_->invalidations(), 1u);
  EXPECT_EQ(write(buffer, 64, *second), WcStatus::Success);
  EXPECT_EQ(std::memcmp(b_.memory.data(), buffer, 64), 0);
  ASSERT_EQ(munmap(buffer, 2 * kPage), 0);
}

TEST_F(VerbsMrCache, MappingOverAndEmptyingPagesInvalidateToo) {
  std::byte* buffer = map_pages(4);
  Status status = Status::Ok;
  ASSERT_NE(cache_->get(buffer, kPage, status), nullptr);
  ASSERT_NE(cache_->get(buffer + 2 * kPage, kPage, status), nullptr);
  EXPECT_EQ(cache_->size(), 2u);
  // MAP_FIXED over the first page only: the second registration stays.
  ASSERT_EQ(map_pages(1, buffer), buffer);
  (void)cache_->get(buffer + 2 * kPage, 16, status);
  EXPECT_EQ(cache_->size(), 1u);
  EXPECT_EQ(cache_->registrations(), 2u);
  ASSERT_EQ(madvise(buffer + 2 * kPage, kPage, MADV_DONTNEED), 0);
  (void)cache_->get(buffer + 2 * kPage, 16, status);
  EXPECT_EQ(cache_->registrations(), 3u);
  void* moved = mremap(buffer + 2 * kPage, kPage, 2 * kPage, MREMAP_MAYMOVE);
  ASSERT_NE(moved, MAP_FAILED);
  (void)cache_->get(buffer + 2 * kPage, 16, status);  // unmapped or grown: registered anew
  EXPECT_EQ(cache_->registrations(), 4u);
  ASSERT_EQ(munmap(buffer, 2 * kPage), 0);
  ASSERT_EQ(munmap(moved, 2 * kPage), 0);
}

TEST_F(VerbsMrCache, AStaleRegistrationFailsInTheEmulationInsteadOfWriting) {
  std::byte* buffer = map_pages(1);
  Status status = Status::Ok;
  std::unique_ptr<Mr> old = a_.pd->reg_mr(buffer, kPage, testing::kAllAccess, status);
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(write(buffer, 32, *old), WcStatus::Success);
  ASSERT_EQ(munmap(buffer, kPage), 0);
  ASSERT_EQ(map_pages(1, buffer), buffer);
  std::memset(b_.memory.data(), 0, 32);
  // The device would read the pages it pinned, not these: an error here.
  EXPECT_EQ(write(buffer, 32, *old), WcStatus::LocalProtectionError);
  old.reset();
  ASSERT_EQ(munmap(buffer, kPage), 0);
}

TEST_F(VerbsMrCache, ALogThatOverflowedDropsEverything) {
  std::byte* buffer = map_pages(1);
  Status status = Status::Ok;
  ASSERT_NE(cache_->get(buffer, 64, status), nullptr);
  // Far away ranges, more than the log holds.
  for (int i = 0; i < 5000; ++i) memory_events::released(reinterpret_cast<void*>(uintptr_t{1} << 40), 4096);
  (void)cache_->get(buffer, 64, status);
  EXPECT_EQ(cache_->registrations(), 2u);
  ASSERT_EQ(munmap(buffer, kPage), 0);
}

}  // namespace
}  // namespace tern::engine::transport::verbs
