// The cache of unexpected-message buffers: reuse within a size class, the
// budget, and sizes beyond the largest class.
#include "core/payload_cache.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace tern::engine {
namespace {

TEST(PayloadCacheTest, AGivenBackBufferServesTheNextRequestOfItsSizeClass) {
  PayloadCache cache;
  std::byte* first = cache.get(10000);
  ASSERT_NE(first, nullptr);
  std::memset(first, 1, 16384);  // the whole class is usable (ASan checks)
  cache.put(first, 10000);
  EXPECT_EQ(cache.cached_bytes(), 16384u);
  EXPECT_EQ(cache.get(16384), first) << "same class: 8193..16384 bytes";
  EXPECT_EQ(cache.cached_bytes(), 0u);
  std::byte* other = cache.get(16385);  // the next class up
  EXPECT_NE(other, first);
  cache.put(other, 16385);
  cache.put(first, 16384);
  EXPECT_EQ(cache.cached_bytes(), 16384u + 32768u);
}

TEST(PayloadCacheTest, SmallSizesShareTheSmallestClass) {
  PayloadCache cache;
  std::byte* small = cache.get(1);
  cache.put(small, 1);
  EXPECT_EQ(cache.cached_bytes(), std::size_t{1} << PayloadCache::kMinShift);
  EXPECT_EQ(cache.get(200), small);
  cache.put(small, 200);
}

TEST(PayloadCacheTest, KeepsNoMoreThanItsBudget) {
  PayloadCache cache;
  constexpr std::size_t kLength = std::size_t{1} << PayloadCache::kMaxShift;
  const std::size_t fit = PayloadCache::kMaxCachedBytes / kLength;
  std::vector<std::byte*> buffers;
  for (std::size_t i = 0; i < fit + 3; ++i) buffers.push_back(cache.get(kLength));
  for (std::byte* b : buffers) cache.put(b, kLength);
  EXPECT_EQ(cache.cached_bytes(), fit * kLength);
}

TEST(PayloadCacheTest, BeyondTheLargestClassNothingIsKept) {
  PayloadCache cache;
  const std::size_t length = (std::size_t{1} << PayloadCache::kMaxShift) + 1;
  std::byte* big = cache.get(length);
  ASSERT_NE(big, nullptr);
  std::memset(big, 2, length);
  cache.put(big, length);
  EXPECT_EQ(cache.cached_bytes(), 0u);
}

}  // namespace
}  // namespace tern::engine
