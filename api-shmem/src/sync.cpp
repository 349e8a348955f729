// Waiting and barriers. A barrier is dissemination over arrival counters in
// the PEs' control blocks: in round k this PE adds one to the counter that
// PE (i + 2^k) keeps for it and waits for its own counter from PE (i - 2^k).
// Counters only grow and each receiver remembers how many it consumed, so
// nothing is ever reset and consecutive barriers cannot be confused.
#include <sched.h>
#include <time.h>

#include "state.hpp"

namespace tern::shmem {

void Backoff::pause() noexcept {
  // PEs on other hosts reach this one's memory only through its progress.
  if (TERN_UNLIKELY(g_state != nullptr && g_state->has_net) && net_progress() != 0) {
    rounds_ = 0;
    return;
  }
  if (serve_shared_copy()) {
    rounds_ = 0;  // work came in: stay awake for more
    return;
  }
  ++rounds_;
  const runtime::WaitMode mode = g_state != nullptr ? g_state->wait_mode : runtime::WaitMode::Adaptive;
  const unsigned adaptive_spins = g_state != nullptr ? g_state->spin_count : 4096;
  if (mode == runtime::WaitMode::Spin) {
    __builtin_ia32_pause();
    return;
  }
  // Oversubscribed (block): give the core to the PE we wait for at once.
  const unsigned spins = mode == runtime::WaitMode::Block ? 16 : adaptive_spins;
  if (rounds_ < spins) {
    __builtin_ia32_pause();
  } else if (rounds_ < spins + 2048) {
    sched_yield();
  } else {
    // Long waits (a PE computing for a while) should not burn a core.
    const timespec nap{0, 50'000};
    if (g_state != nullptr && g_state->has_net) {
      net_nap(nap);  // woken early by a frame from another host
    } else {
      nanosleep(&nap, nullptr);
    }
  }
}

ControlBlock control_of(int pe) noexcept {
  State& s = *g_state;
  std::byte* heap = s.peers[static_cast<std::size_t>(pe)].heap;
  auto* words = reinterpret_cast<std::atomic<uint64_t>*>(heap);
  return {words, words + kSlots * static_cast<std::size_t>(s.n_pes),
          reinterpret_cast<SharedCopyMailbox*>(heap + s.mailbox_offset)};
}

// Byte offsets in every PE's control block (heap offset 0).
std::size_t arrival_offset(const State& s, unsigned slot, int from) noexcept {
  return (static_cast<std::size_t>(slot) * static_cast<std::size_t>(s.n_pes) + static_cast<std::size_t>(from)) *
         sizeof(uint64_t);
}

uint64_t published_word(int pe, unsigned slot) noexcept {
  State& s = *g_state;
  if (TERN_UNLIKELY(s.peers[static_cast<std::size_t>(pe)].heap == nullptr)) {
    return net_heap_word(pe, (kSlots * static_cast<std::size_t>(s.n_pes) + slot) * sizeof(uint64_t));
  }
  return control_of(pe).published[slot].load(std::memory_order_relaxed);
}

void signal_pe(unsigned slot, int pe) noexcept {
  State& s = *g_state;
  if (TERN_UNLIKELY(s.peers[static_cast<std::size_t>(pe)].heap == nullptr)) {
    net_heap_add(pe, arrival_offset(s, slot, s.my_pe), 1);
    return;
  }
  control_of(pe).arrivals[static_cast<std::size_t>(slot) * static_cast<std::size_t>(s.n_pes) + static_cast<std::size_t>(s.my_pe)]
      .fetch_add(1, std::memory_order_release);
}

void wait_pe(unsigned slot, int pe) noexcept {
  State& s = *g_state;
  const std::size_t index = static_cast<std::size_t>(slot) * static_cast<std::size_t>(s.n_pes) +
                            static_cast<std::size_t>(pe);
  const uint64_t expected = ++s.consumed[index];
  std::atomic<uint64_t>& word = s.control.arrivals[index];
  wait_until([&] { return word.load(std::memory_order_acquire) >= expected; });
}

void barrier(unsigned slot, const int* members, int count, int my_index) noexcept {
  quiet();
  for (int distance = 1; distance < count; distance <<= 1) {
    signal_pe(slot, members[(my_index + distance) % count]);
    wait_pe(slot, members[(my_index - distance + count) % count]);
  }
}

void team_exchange(const tern_shmem_team& team, uint64_t mine, std::vector<uint64_t>& all) noexcept {
  g_state->control.published[team.slot].store(mine, std::memory_order_relaxed);
  team_barrier(team);
  all.resize(team.members.size());
  for (std::size_t i = 0; i < team.members.size(); ++i) {
    all[i] = published_word(team.members[i], team.slot);
  }
  team_barrier(team);  // nobody publishes again before everyone has read
}

}  // namespace tern::shmem

using namespace tern::shmem;

extern "C" {

void shmem_barrier_all(void) {
  (void)state("shmem_barrier_all");
  team_barrier(g_team_world);
}

void shmem_sync_all(void) {
  (void)state("shmem_sync_all");
  team_barrier(g_team_world);
}

void shmem_fence(void) {
  (void)state("shmem_fence");
  quiet();
}

void shmem_ctx_fence(shmem_ctx_t ctx) {
  check_ctx("shmem_ctx_fence", ctx);
  quiet();
}

void shmem_quiet(void) {
  (void)state("shmem_quiet");
  quiet();
}

void shmem_ctx_quiet(shmem_ctx_t ctx) {
  check_ctx("shmem_ctx_quiet", ctx);
  quiet();
}

// Locks: the word on PE 0 holds 0 when free, else 1 + the holder's PE.
// On PE 0 across the network: the same protocol with remote compare-swaps.
static_assert(sizeof(long) == sizeof(uint64_t));
using tern::engine::rma::AtomicOp;

void shmem_set_lock(long* lock) {
  constexpr const char* kFunction = "shmem_set_lock";
  auto* word = reinterpret_cast<long*>(mapped_or_net(kFunction, lock, sizeof(long), 0));
  const long mine = static_cast<long>(g_state->my_pe) + 1;
  if (TERN_UNLIKELY(word == nullptr)) {
    wait_until([&] {
      return net_atomic(kFunction, AtomicOp::CompareSwap, sizeof(long), lock, static_cast<uint64_t>(mine), 0, 0) == 0;
    });
    return;
  }
  wait_until([&] {
    long expected = 0;
    return __atomic_compare_exchange_n(word, &expected, mine, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
  });
}

int shmem_test_lock(long* lock) {
  constexpr const char* kFunction = "shmem_test_lock";
  auto* word = reinterpret_cast<long*>(mapped_or_net(kFunction, lock, sizeof(long), 0));
  long expected = 0;
  const long mine = static_cast<long>(g_state->my_pe) + 1;
  if (TERN_UNLIKELY(word == nullptr)) {
    return net_atomic(kFunction, AtomicOp::CompareSwap, sizeof(long), lock, static_cast<uint64_t>(mine), 0, 0) == 0
               ? 0
               : 1;
  }
  if (__atomic_compare_exchange_n(word, &expected, mine, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return 0;
  // A loop of tests may wait for a PE on another host that holds the lock
  // and, inside its critical section, needs this PE to serve its RMA.
  poll_net();
  return 1;
}

void shmem_clear_lock(long* lock) {
  constexpr const char* kFunction = "shmem_clear_lock";
  auto* word = reinterpret_cast<long*>(mapped_or_net(kFunction, lock, sizeof(long), 0));
  const long mine = static_cast<long>(g_state->my_pe) + 1;
  if (TERN_UNLIKELY(word == nullptr)) {
    if (net_atomic(kFunction, AtomicOp::FetchOr, sizeof(long), lock, 0, 0, 0) != static_cast<uint64_t>(mine)) {
      fail(kFunction, "lock %p is not held by this PE", static_cast<void*>(lock));
    }
    quiet();  // the holder's puts land before the next holder may look
    (void)net_atomic(kFunction, AtomicOp::Swap, sizeof(long), lock, 0, 0, 0);
    return;
  }
  if (__atomic_load_n(word, __ATOMIC_RELAXED) != mine) {
    fail(kFunction, "lock %p is not held by this PE", static_cast<void*>(lock));
  }
  // The release completes the holder's puts to PEs mapped here; puts to
  // other hosts must have landed too before the next holder looks.
  if (TERN_UNLIKELY(g_state->net_written.load(std::memory_order_relaxed))) net_quiet_slow();
  __atomic_store_n(word, 0L, __ATOMIC_RELEASE);
}

// Memory is coherent: the cache routines of old SHMEM have nothing to do.
void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void*) {}
void shmem_set_cache_line_inv(void*) {}
void shmem_udcflush(void) {}
void shmem_udcflush_line(void*) {}

}  // extern "C"
