// Frames for the multi-buffer tests (multi.hpp): patterned send frames of
// mixed sizes, an allocator that keeps what it hands out, a check of what
// arrived, and a recorder of completion callbacks. No gtest here: forked ranks use it too.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <vector>

#include "tern/engine/worker.hpp"

namespace tern::engine::testing_frames {

inline unsigned char byte_of(std::size_t frame, std::size_t i) {
  return static_cast<unsigned char>(frame * 31 + i * 7 + 1);
}

// Sizes across the eager, inline-budget and fetched cases: every 97th
// frame is 1 MiB, the rest cycle through small and medium sizes.
inline std::size_t frame_size(std::size_t index) {
  static constexpr std::size_t kSizes[] = {0, 1, 100, 3000, 9000, 70000, 200};
  return index % 97 == 96 ? std::size_t{1} << 20 : kSizes[index % 7];
}

struct Outgoing {
  std::vector<std::vector<unsigned char>> buffers;
  std::vector<SendFrame> frames;
  [[nodiscard]] std::size_t total() const {
    std::size_t sum = 0;
    for (const SendFrame& frame : frames) sum += frame.size;
    return sum;
  }
};

// `count` frames whose sizes and bytes follow from their index plus `seed`.
inline Outgoing make_frames(std::size_t count, std::size_t seed = 0) {
  Outgoing out;
  out.buffers.resize(count);
  for (std::size_t f = 0; f < count; ++f) {
    out.buffers[f].resize(frame_size(f + seed));
    for (std::size_t i = 0; i < out.buffers[f].size(); ++i) out.buffers[f][i] = byte_of(f + seed, i);
    out.frames.push_back({out.buffers[f].data(), out.buffers[f].size(), MemoryKind::Host});
  }
  return out;
}

// True when `frames` are what make_frames(count, seed) sent; says where not.
inline bool frames_match(const std::vector<RecvFrame>& frames, std::size_t count, std::size_t seed = 0) {
  if (frames.size() != count) {
    std::fprintf(stderr, "%zu frames arrived, %zu sent\n", frames.size(), count);
    return false;
  }
  for (std::size_t f = 0; f < count; ++f) {
    const auto* data = static_cast<const unsigned char*>(frames[f].data);
    bool same = frames[f].size == frame_size(f + seed) && frames[f].kind == MemoryKind::Host;
    for (std::size_t i = 0; same && i < frames[f].size; ++i) same = data[i] == byte_of(f + seed, i);
    if (!same) {
      std::fprintf(stderr, "frame %zu of %zu (%zu bytes) differs from what was sent\n", f, count, frames[f].size);
      return false;
    }
  }
  return true;
}

// Records a completion callback (callback.hpp): how often, with what.
struct Completed {
  std::atomic<int> calls{0};
  Status status = Status::InProgress;
  TagRecvInfo info;
  static void record(void* user_data, Status status, const TagRecvInfo& info) {
    auto* completed = static_cast<Completed*>(user_data);
    completed->status = status;
    completed->info = info;
    completed->calls.fetch_add(1, std::memory_order_release);
  }
  Callback callback() { return {&Completed::record, this}; }
  [[nodiscard]] bool ran() const { return calls.load(std::memory_order_acquire) != 0; }
};

// An allocator that keeps what it hands out, and can be told to fail.
struct Arena {
  std::vector<std::unique_ptr<unsigned char[]>> blocks;
  std::size_t calls = 0;
  std::size_t fail_at = SIZE_MAX;  // the call that returns null
  static void* allocate(void* user_data, std::size_t size, MemoryKind) {
    auto* arena = static_cast<Arena*>(user_data);
    if (arena->calls++ == arena->fail_at) return nullptr;
    arena->blocks.emplace_back(new unsigned char[size == 0 ? 1 : size]);
    return arena->blocks.back().get();
  }
  FrameAllocator allocator() { return {&Arena::allocate, this}; }
};

}  // namespace tern::engine::testing_frames
