// Chooses between eager fragments and rendezvous for one endpoint's mid-size
// messages (from its metered threshold up to the drained threshold, sent
// while the peer has next to nothing unread) from what each protocol has
// cost this endpoint lately, per size class.
//
// Why measure: where both processes share a core's caches, an eager copy
// through empty FIFO cells runs at cache speed and a 128 KiB ping-pong takes
// 3.1 us against 5.6 for the shared zero copy; where they do not, every cell
// line the sender rewrites must first leave the receiver's cache and eager
// takes 9.4 us against 6.9. The same machine moves between the two as its
// scheduler places the processes, so no fixed threshold fits both; and
// machines differ: on a 16-core Xeon a 64 KiB ping-pong takes 7-9.5 us
// eager against 4.6-6.3 rendezvous, on the 2-core VM 4.0 against 5.9.
//
// What is measured, at the sender: an eager message's time from its first
// fragment to its last (the receiver copies out behind it, so this leaves
// out the receiver's tail), and a rendezvous send's time from its RTS to the
// receiver's acknowledgement (which includes one message back), counted
// only when no other send was posted on the endpoint before it completed:
// in a window of sends the time measures the window (osu_bibw lost 10% to
// eager choices made on such figures). Without a rendezvous figure the
// rendezvous is kept, so streaming traffic behaves as with one threshold.
// Eager must win by the margin below to be chosen, which covers the tail it
// leaves out. Each protocol's figure is the least of its last kWindow
// samples, per KiB: the protocol not in use runs cold when it is tried
// (a rendezvous tried once in 256 messages took 5-8x its warm time), and an
// average of cold samples kept it looking slow for good, which sent 256 KiB
// ping-pongs eager at 14-15 us against 11.6-12.7. Now and then a choice
// takes the other protocol, twice in a row so that the second runs warm (see
// kExploreEvery), and a figure that went stale when the placement changed
// is measured again.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace tern::engine {

class ProtocolMeter {
 public:
  // How often the losing protocol is tried again (two messages per period):
  // often while the two are close, rarely once it costs half as much again
  // as the winner (a 256 KiB eager message costs 12-17 us where the
  // rendezvous takes 9.5, so trying it every 32nd message cost the average
  // 0.2 us).
  static constexpr uint32_t kExploreEvery = 32;
  static constexpr uint32_t kExploreEveryFar = 256;
  // The peer counts as drained with this many messages unread: in a
  // ping-pong of rendezvous messages the acknowledgement of its own last
  // send is often still on its way when ours leaves, and a few control
  // messages delay nothing; a window of sends leaves dozens.
  static constexpr uint64_t kDrainedBacklog = 2;
  // Eager is chosen when eager * margin_num < rendezvous * margin_den.
  static constexpr uint64_t kEagerMarginNum = 5;
  static constexpr uint64_t kEagerMarginDen = 4;
  // Eager messages shorter than this teach nothing about the copy rate: the
  // per-message costs dominate them.
  static constexpr std::size_t kMinEagerSample = 32 * 1024;
  // Below this only every kEagerSampleEvery-th eager message is timed, to
  // keep clock reads off most of them; from it on, two clock reads cost
  // nothing next to the copy, and every one is.
  static constexpr std::size_t kAlwaysSampled = 64 * 1024;
  static constexpr uint32_t kEagerSampleEvery = 4;

  [[nodiscard]] static uint64_t now_ns() noexcept {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }

  // For a message of `length` in the metered range, to a drained peer;
  // `eager_by_default`: what a message of its size takes when the peer is
  // busy (below the rendezvous threshold).
  [[nodiscard]] bool prefer_eager(std::size_t length, bool eager_by_default) noexcept {
    return classes_[class_of(length)].prefer_eager(eager_by_default);
  }

  // Whether to time this eager message.
  [[nodiscard]] bool sample_eager(std::size_t length) noexcept {
    return length >= kMinEagerSample && (length >= kAlwaysSampled || ++eager_messages_ % kEagerSampleEvery == 0);
  }

  void record_eager(std::size_t length, uint64_t elapsed_ns) noexcept {
    classes_[class_of(length)].eager.record(length, elapsed_ns);
  }
  void record_rendezvous(std::size_t length, uint64_t elapsed_ns) noexcept {
    classes_[class_of(length)].rndv.record(length, elapsed_ns);
  }

  // The figures for messages of about `length` bytes; 0 where none yet.
  [[nodiscard]] uint64_t eager_ns_per_kib(std::size_t length) const noexcept {
    return classes_[class_of(length)].eager.figure();
  }
  [[nodiscard]] uint64_t rendezvous_ns_per_kib(std::size_t length) const noexcept {
    return classes_[class_of(length)].rndv.figure();
  }

  // Each size class, a power of two wide, has figures of its own: a
  // rendezvous pays a fixed cost (about 2 us of system call and pinning)
  // that a 32 KiB message feels four times as much per KiB as a 128 KiB
  // one, so one figure for all sizes took the large messages' verdict to
  // the small ones.
  static constexpr std::size_t kSmallestClass = 32 * 1024;  // [32 KiB, 64 KiB)
  static constexpr unsigned kClasses = 5;                   // the last: 512 KiB and up
  [[nodiscard]] static constexpr unsigned class_of(std::size_t length) noexcept {
    unsigned size_class = 0;
    for (std::size_t rest = length / (2 * kSmallestClass); rest != 0 && size_class + 1 < kClasses; rest /= 2) {
      ++size_class;
    }
    return size_class;
  }

  static constexpr unsigned kWindow = 4;

 private:
  // One protocol's recent samples, in ns per KiB.
  class Figure {
   public:
    // The very first sample is dropped: it pays for first touches (FIFO
    // pages, pinned pages) that later ones do not, at 10-20x their cost.
    void record(std::size_t length, uint64_t elapsed_ns) noexcept {
      if (length < 1024 || seen_++ == 0) return;
      samples_[next_++ % kWindow] = elapsed_ns * 1024 / length + 1;  // + 1: never 0 once measured
    }
    // The least of the last kWindow samples; 0 before the first.
    [[nodiscard]] uint64_t figure() const noexcept {
      uint64_t least = 0;
      for (uint64_t sample : samples_) {
        if (sample != 0 && (least == 0 || sample < least)) least = sample;
      }
      return least;
    }

   private:
    uint64_t samples_[kWindow] = {};
    uint32_t next_ = 0;
    uint32_t seen_ = 0;
  };

  struct SizeClass {
    Figure eager;
    Figure rndv;
    uint32_t choices = 0;

    [[nodiscard]] bool prefer_eager(bool eager_by_default) noexcept;
  };

  SizeClass classes_[kClasses];
  uint32_t eager_messages_ = 0;
};

inline bool ProtocolMeter::SizeClass::prefer_eager(bool eager_by_default) noexcept {
  const uint32_t choice = choices++;
  const uint64_t eager_figure = eager.figure();
  const uint64_t rndv_figure = rndv.figure();
  // Until both are known: the eager figure comes from every large eager
  // message, so eager goes first. The rendezvous one comes only from sends
  // nobody followed (see above), which a window of sends never gives: there
  // a size that streams eager tries rendezvous only as often as a loser is
  // tried (osu_bw 32-64 KiB lost 20% when every window began with one).
  if (eager_figure == 0) return true;
  if (rndv_figure == 0) return eager_by_default && choice % kExploreEvery < kExploreEvery - 2;
  const uint64_t eager_cost = eager_figure * kEagerMarginNum;  // both scaled by the margin
  const uint64_t rndv_cost = rndv_figure * kEagerMarginDen;
  const bool eager_wins = eager_cost < rndv_cost;
  const uint64_t winner = eager_wins ? eager_cost : rndv_cost;
  const uint64_t loser = eager_wins ? rndv_cost : eager_cost;
  const uint32_t every = loser * 2 >= winner * 3 ? kExploreEveryFar : kExploreEvery;
  const bool explore = choice % every >= every - 2;  // the last two of each period
  return eager_wins != explore;
}

}  // namespace tern::engine
