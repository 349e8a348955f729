// The context rule. Each member proposes its next free context; the
// agreement takes the largest; a member accepts it only if it is its own
// proposal or beyond every context it has handed out since, and one refusal
// anywhere starts another attempt. So two agreements pending on one process
// at once (idups of two parents started in opposite orders on two ranks, an
// idup beside a blocking MPI_Comm_dup) never end on one context.
//
// Agreements pending together could still refuse each other forever, each
// attempt mirroring the last (two ranks that started them in opposite
// orders propose in opposite orders again). So on each process only the
// first of its pending agreements, in an order every member shares,
// proposes and may accept; the others propose nothing and refuse until it
// ends. The first agreement of the whole job among those pending is first
// on each of its members, so it ends, and the next one after it.
#include "comm/contexts.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

#include "comm/agreement.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

// Acceptance runs in schedule steps, on whichever thread progresses the
// worker: contexts are handed out under a lock of their own.
std::mutex g_context_mutex;
std::vector<uint64_t> g_pending_keys;  // under g_context_mutex

bool comes_first(uint64_t key) {
  return std::none_of(g_pending_keys.begin(), g_pending_keys.end(), [key](uint64_t other) { return other < key; });
}

}  // namespace

uint64_t agreement_key(bool blocking, uint16_t parent_context, uint64_t sequence) noexcept {
  return (uint64_t{blocking ? 0u : 1u} << 63) | (uint64_t{parent_context} << 32) | (sequence & 0xFFFFFFFFu);
}

void enter_agreement(uint64_t key) {
  std::lock_guard lock(g_context_mutex);
  g_pending_keys.push_back(key);
}

void leave_agreement(uint64_t key) {
  std::lock_guard lock(g_context_mutex);
  auto it = std::find(g_pending_keys.begin(), g_pending_keys.end(), key);
  if (it != g_pending_keys.end()) g_pending_keys.erase(it);
}

bool propose_context(uint64_t key, uint16_t& proposal) {
  std::lock_guard lock(g_context_mutex);
  if (!comes_first(key)) {
    proposal = 0;
    return true;
  }
  if (g_state->next_context >= kFirstReservedContext) return false;
  proposal = g_state->next_context++;
  return true;
}

bool accept_context(uint64_t key, uint16_t proposal, uint16_t agreed) {
  std::lock_guard lock(g_context_mutex);
  if (proposal == 0 || !comes_first(key)) return false;
  if (agreed != proposal && agreed < g_state->next_context) return false;
  g_state->next_context = std::max<uint16_t>(g_state->next_context, static_cast<uint16_t>(agreed + 1));
  return true;
}

void take_contexts_from(uint16_t first, int count) {
  std::lock_guard lock(g_context_mutex);
  g_state->next_context = std::max<uint16_t>(g_state->next_context, static_cast<uint16_t>(first + count));
}

}  // namespace tern::mpi
