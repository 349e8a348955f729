// Temporary buffers of the blocking collectives (an incoming vector to
// combine, a non-root's accumulator), kept between calls by each thread.
//
// A vector allocated and freed per call cost a reduction of 1 MiB about as
// much as the reduction itself: the allocator gives a block that size back
// to the system at free, and takes fresh pages at the next call, which the
// kernel zeroes (2 MiB at a time where ternrun backs malloc with huge
// pages, docs/perf/collectives.md), on top of the vector's own zeroing.
// The memory is not initialized.
#pragma once

#include <cstddef>

namespace tern::mpi {

class ScratchBuffer {
 public:
  // `bytes` of scratch; data() is null when there is no memory for them
  // (and for 0 bytes).
  explicit ScratchBuffer(std::size_t bytes) noexcept;
  ~ScratchBuffer();
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;

  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  // False when `bytes` were asked for and none could be had.
  [[nodiscard]] bool failed() const noexcept { return data_ == nullptr && capacity_ != 0; }

 private:
  std::byte* data_ = nullptr;
  std::size_t capacity_ = 0;  // the block's size (what was asked, when it failed)
};

}  // namespace tern::mpi
