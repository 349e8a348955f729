// runtime::copy_bytes: whole copies at every size around the piece
// boundary, in both piece orders, nothing written past the end.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tern/runtime/copy.hpp"

namespace tern::runtime {
namespace {

constexpr std::byte kGuard{0xa5};

std::byte pattern(std::size_t i) { return static_cast<std::byte>((i * 131 + 7) & 0xff); }

TEST(CopyBytesTest, CopiesEveryByteAndNothingPastTheEnd) {
  const std::size_t sizes[] = {0, 1, 4095, kCopyWhole - 1, kCopyWhole,
                               kCopyWhole + 1, kCopyWhole + kCopyPiece, 3 * kCopyWhole + 123};
  for (const std::size_t size : sizes) {
    // Large copies alternate their piece order from call to call: twice
    // each covers both.
    for (int call = 0; call < 2; ++call) {
      std::vector<std::byte> source(size + 64), dest(size + 64, kGuard);
      for (std::size_t i = 0; i < source.size(); ++i) source[i] = pattern(i);
      // Odd offsets: pieces must not assume aligned ends.
      copy_bytes(dest.data() + 3, source.data() + 5, size);
      for (std::size_t i = 0; i < 3; ++i) ASSERT_EQ(dest[i], kGuard) << "size " << size << ", call " << call;
      for (std::size_t i = 0; i < size; ++i) {
        ASSERT_EQ(dest[3 + i], pattern(5 + i)) << "size " << size << ", call " << call << ", byte " << i;
      }
      for (std::size_t i = 3 + size; i < dest.size(); ++i) {
        ASSERT_EQ(dest[i], kGuard) << "size " << size << ", call " << call;
      }
    }
  }
}

}  // namespace
}  // namespace tern::runtime
