// Collectives through a segment the ranks of a one-host communicator share
// (coll/shared.cpp): flags and copies instead of messages.
//
// Rank 0 maps the segment at the communicator's first collective that
// wants it and the others map its key; every rank keeps a count of the
// steps it took on the segment, the same on all ranks since they call the
// same collectives in the same order. Per rank the segment holds
// kSharedSlots step lines, a done line and kSharedSlots data slots:
//
//   line[r][s % kSharedSlots]  step s once rank r published it (reached the
//               barrier, or put its data in), and up to kSharedInline bytes
//               of that data in the same cache line
//   done[r]     the last step rank r finished (it read what it needed)
//   slot[r][s % kSharedSlots]  rank r's data of step s when it is larger
//
// A small broadcast or reduction so costs a reader one cache line per rank,
// flag and data together.
// A rank writes its slot of step s only once every rank's done has reached
// s - kSharedSlots + 1 (the last step that read the same line and slot, or
// the one after it: a split allreduce reads its first step's slots in its
// second), so consecutive
// collectives overlap without overwriting what a slow rank still reads.
// Done flags only grow, so a rank remembers the least it saw and looks at
// the lines again only when that is not enough: about once per
// kSharedSlots - 1 steps instead of a cache miss per rank per step.
// Nothing read from the segment is trusted beyond the flags' order and the
// payload: sizes and offsets come from each rank's own arguments.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "state.hpp"
#include "tern/engine/memory.hpp"

namespace tern::mpi {

// Data one rank publishes in one step (longer vectors take several).
inline constexpr std::size_t kSharedSlotBytes = 64 * 1024;
inline constexpr uint64_t kSharedSlots = 4;  // per rank, used in turn
// From this size of a step, allreduce splits the combining between the
// ranks (each its share of the elements, then everyone copies the shares).
inline constexpr std::size_t kSplitCombineBytes = 8 * 1024;
// Reductions and allgather blocks up to this size go through the segment,
// a slot at a time; broadcasts above a slot go by messages, whose single
// copy (CMA) is quicker than two through the segment.
inline constexpr std::size_t kSharedVectorBytes = std::size_t{1} << 30;
inline constexpr std::size_t kSharedInline = 48;  // bytes that travel in the step line
// A reduce of at least two of these streams: the root folds each piece as
// soon as it is in, while the rest is still being copied.
inline constexpr std::size_t kSharedStreamBytes = 8 * 1024;
// Communicators larger than this keep the message algorithms (every rank
// polls every other rank's flag line).
inline constexpr int kSharedMaxRanks = 64;

class SharedSegment {
 public:
  ~SharedSegment();
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;

  // Maps a segment for `members` (ranks of `comm` on this host, ascending;
  // the first maps it and hands the others its key by messages). Every rank
  // of `comm` calls it at the same collective, members or not; null on every
  // member when one of them could not map it, and on every other rank.
  [[nodiscard]] static std::unique_ptr<SharedSegment> create(Comm& comm, const std::vector<int>& members);

  void barrier();
  void bcast(void* buffer, std::size_t bytes, int root);
  // `buffer`: this rank's contribution on entry, the result on exit (on the
  // root only for reduce). Allreduce combines in rank order, so every rank
  // gets the same bits; reduce too for operations that do not commute, and
  // otherwise lets the root fold the others into its buffer in one pass.
  // Vectors longer than a slot go in slot-sized steps.
  [[nodiscard]] Status allreduce(void* buffer, std::size_t count, const TypeInfo& type, MPI_Datatype type_handle,
                                 MPI_Op op);
  [[nodiscard]] Status reduce(void* buffer, std::size_t count, const TypeInfo& type, MPI_Datatype type_handle,
                              MPI_Op op, int root);
  // `block` bytes from each rank into `out` in rank order.
  void allgather(const void* mine, std::size_t block, void* out);
  // Block r of `send` (`block` bytes each) to rank r, into block r of
  // `recv` from rank r; size * block at most kSharedSlotBytes.
  void alltoall(const void* send, std::size_t block, void* recv);

  // Where the segment beats the message algorithms (measured on 2 cores,
  // docs/perf/collectives.md): an allreduce of 2 ranks goes by messages
  // from 4 KiB to 512 KiB, where the exchange of whole vectors by one kernel
  // copy each (recursive doubling, halving-doubling) costs less than a copy
  // into the segment, the shared combining and the copy out.
  // TERN_COLL_SHM=on takes the segment wherever it can.
  [[nodiscard]] bool allreduce_pays(std::size_t bytes) const noexcept {
    if (always_) return true;
    const bool power_of_two = (size_ & (size_ - 1)) == 0;
    return !power_of_two || bytes <= 2048 || bytes >= (std::size_t{1} << 20);
  }

 private:
  struct alignas(64) Flag {
    std::atomic<uint64_t> step{0};
    std::atomic<uint64_t> streamed{0};  // bytes in the slot so far, while a reduce streams
    std::byte data[kSharedInline];      // the step's data when it fits
  };
  SharedSegment(std::byte* base, int size, int rank, bool oversubscribed, bool always)
      : base_(base), size_(size), rank_(rank), oversubscribed_(oversubscribed), always_(always) {}
  [[nodiscard]] static std::size_t bytes_for(int size) noexcept;
  [[nodiscard]] Flag& line(int r, uint64_t step) const noexcept;
  [[nodiscard]] Flag& done(int r) const noexcept;
  // Where rank r's `bytes` of step `step` are: its line or its slot.
  [[nodiscard]] std::byte* data(int r, uint64_t step, std::size_t bytes) const noexcept;
  // Puts `bytes` of `from` where data() says (null: nothing), then
  // announces the step (after making sure the place is free).
  void publish(uint64_t step, const void* from, std::size_t bytes);
  // Waits until `flag` reaches `step`, keeping the engine's progress going.
  void wait_for(const std::atomic<uint64_t>& word, uint64_t value) const;
  void wait_for(const Flag& flag, uint64_t step) const { wait_for(flag.step, step); }
  // publish() a piece at a time, each announced in the line's `streamed`.
  void publish_streamed(uint64_t step, const std::byte* from, std::size_t bytes, std::size_t piece);
  // Waits until every rank has finished step `step - kSharedSlots` (our
  // slot of `step` is free).
  void wait_slot_free(uint64_t step);
  // Waits until rank r (every rank) has published step `step`.
  void wait_arrived(int r, uint64_t step) { wait_for(line(r, step), step); }
  void wait_all_arrived(uint64_t step);
  void finish(uint64_t step) {
    done(rank_).step.store(step, std::memory_order_release);
    show_order_to_sanitizer();
  }
  // What this process's progress thread wrote before the peers' flags said
  // the step is done (a window's puts, applied for a peer that then entered
  // the collective) is ordered before our next reads through the other
  // processes' release and acquire, which ThreadSanitizer cannot follow; in
  // its builds one pass under the worker's lock shows it the order.
  static void show_order_to_sanitizer() {
#if defined(__SANITIZE_THREAD__)
    if (g_state->worker->progress_mode() != runtime::ProgressMode::Caller) (void)g_state->worker->progress();
#endif
  }
  // Combines every rank's data of `step` in rank order into `out`.
  [[nodiscard]] Status combine(uint64_t step, void* out, std::size_t count, const TypeInfo& type,
                               MPI_Datatype type_handle, MPI_Op op) const;
  // The same over elements [first, first + count) of a slot-sized step,
  // into `out`, that range of our own slot.
  [[nodiscard]] Status combine_range(uint64_t step, std::byte* out, std::size_t first, std::size_t count,
                                     const TypeInfo& type, MPI_Datatype type_handle, MPI_Op op);

  std::byte* base_;
  int size_;
  int rank_;
  bool oversubscribed_;  // more ranks on this host than cores: waits yield at once
  bool always_;          // TERN_COLL_SHM=on
  uint64_t step_ = 0;
  uint64_t all_done_ = 0;
  std::vector<std::byte> scratch_;  // our part of a split combine, set aside  // every rank's done flag was at least this when last looked at
  engine::MemRegion* region_ = nullptr;  // rank 0's
  engine::RemoteKey* mapping_ = nullptr;  // the others'
};

// The communicator's segment, mapped on first use; null when its
// collectives go by messages (ranks on several hosts, one rank, more than
// kSharedMaxRanks, TERN_COLL_SHM=off, or the segment could not be mapped);
// with TERN_COLL_SHM=auto each collective takes it where it pays.
[[nodiscard]] SharedSegment* shared_segment(Comm& comm);
// The segment of this host's ranks of `comm`, a communicator spread over
// several hosts (its node-aware phases, coll/node.cpp): made at the first
// node-aware collective, every rank taking part; null for a rank alone on
// its host.
[[nodiscard]] SharedSegment* node_segment(Comm& comm, const NodeLayout& layout);

}  // namespace tern::mpi
