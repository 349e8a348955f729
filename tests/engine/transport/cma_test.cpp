// Batched cross-memory attach (cma_read_pieces / cma_write_pieces), against
// this process's own memory: CMA to oneself works where the kernel allows it.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "transport/shm/cma.hpp"
#include "transport_test_util.hpp"

namespace tern::engine::transport::shm {
namespace {

using testing::check_pattern;
using testing::fill_pattern;

class CmaPiecesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uint64_t word = 42;
    if (cma_probe(getpid(), reinterpret_cast<uint64_t>(&word), 42) != 0) GTEST_SKIP() << "the kernel refuses CMA here";
    // An address that is certainly not mapped: a page mapped, then unmapped.
    void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(page, MAP_FAILED);
    ASSERT_EQ(munmap(page, 4096), 0);
    unmapped_ = reinterpret_cast<uint64_t>(page);
  }

  uint64_t unmapped_ = 0;
};

TEST_F(CmaPiecesTest, ReadsAndWritesEveryPieceOfABatch) {
  constexpr std::size_t kPiece = 20000;  // not a page multiple: pieces start mid-page
  std::vector<std::byte> peer(kPiece * 3), local(kPiece * 3);
  fill_pattern(peer.data(), peer.size(), 21);
  CmaPiece pieces[3];
  // Out of order, so that a copy that ignored the remote addresses would show.
  for (std::size_t i = 0; i < 3; ++i) {
    pieces[i] = {local.data() + i * kPiece, reinterpret_cast<uint64_t>(peer.data()) + (2 - i) * kPiece, kPiece, -1};
  }
  cma_read_pieces(getpid(), pieces);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(pieces[i].error, 0);
    EXPECT_EQ(std::memcmp(local.data() + i * kPiece, peer.data() + (2 - i) * kPiece, kPiece), 0) << "piece " << i;
  }

  std::vector<std::byte> written(kPiece * 3);
  for (std::size_t i = 0; i < 3; ++i) {
    pieces[i] = {peer.data() + i * kPiece, reinterpret_cast<uint64_t>(written.data()) + i * kPiece, kPiece, 0};
  }
  cma_write_pieces(getpid(), pieces);
  for (const CmaPiece& piece : pieces) EXPECT_EQ(piece.error, 0);
  EXPECT_TRUE(check_pattern(written.data(), written.size(), 21));
}

TEST_F(CmaPiecesTest, AFaultInOnePieceLeavesTheOthersCopiedAndNamesIt) {
  constexpr std::size_t kPiece = 8192;
  std::vector<std::byte> peer(kPiece * 2), local(kPiece * 3);
  fill_pattern(peer.data(), peer.size(), 22);
  CmaPiece pieces[3] = {
      {local.data(), reinterpret_cast<uint64_t>(peer.data()), kPiece, 0},
      {local.data() + kPiece, unmapped_, kPiece, 0},
      {local.data() + 2 * kPiece, reinterpret_cast<uint64_t>(peer.data()) + kPiece, kPiece, 0},
  };
  cma_read_pieces(getpid(), pieces);
  EXPECT_EQ(pieces[0].error, 0);
  EXPECT_EQ(pieces[1].error, EFAULT);
  EXPECT_EQ(pieces[2].error, 0) << "the piece after the fault is still moved";
  EXPECT_EQ(std::memcmp(local.data(), peer.data(), kPiece), 0);
  EXPECT_EQ(std::memcmp(local.data() + 2 * kPiece, peer.data() + kPiece, kPiece), 0);

  CmaPiece lone{local.data(), unmapped_, kPiece, 0};  // here `local` is what is written
  cma_write_pieces(getpid(), {&lone, 1});
  EXPECT_EQ(lone.error, EFAULT);
}

}  // namespace
}  // namespace tern::engine::transport::shm
