// Teams and contexts. A team is its members (world PEs in team order) and a
// sync slot, agreed by the members of the parent when the team is split: each
// shows which slots it has free and the lowest slot free on all of them wins.
// Contexts carry options and a team; every operation completes at once on
// this node, so a context needs no resources of its own.
#include <algorithm>
#include <bit>
#include <mutex>
#include <unordered_set>

#include "state.hpp"

shmem_team_t SHMEM_TEAM_WORLD = nullptr;
shmem_team_t SHMEM_TEAM_SHARED = nullptr;
shmem_ctx_t SHMEM_CTX_DEFAULT = nullptr;

namespace tern::shmem {

tern_shmem_team g_team_world;
tern_shmem_team g_team_shared;
tern_shmem_ctx g_ctx_default;

namespace {

std::mutex g_registry_mutex;
std::unordered_set<const tern_shmem_team*> g_teams;  // live teams made by splits
// Created contexts live in a fixed table, so a handle is checked on every
// RMA without a lock and without reading memory a bad handle points to: it
// must lie in the table, on a slot boundary, with the slot in use.
constexpr std::size_t kMaxContexts = 4096;
tern_shmem_ctx g_context_slots[kMaxContexts];

bool is_live_ctx(shmem_ctx_t ctx) noexcept {
  const auto where = reinterpret_cast<uintptr_t>(ctx);
  const auto first = reinterpret_cast<uintptr_t>(&g_context_slots[0]);
  const uintptr_t offset = where - first;
  return offset < sizeof(g_context_slots) && offset % sizeof(tern_shmem_ctx) == 0 &&
         ctx->live.load(std::memory_order_acquire);
}
uint64_t g_used_slots = 0;                             // bit per sync slot

void fill_team(tern_shmem_team& team, std::vector<int> members, int n_pes, int my_pe) {
  team.members = std::move(members);
  team.index_of.assign(static_cast<std::size_t>(n_pes), -1);
  for (std::size_t i = 0; i < team.members.size(); ++i) {
    team.index_of[static_cast<std::size_t>(team.members[i])] = static_cast<int>(i);
  }
  team.my_index = team.index_of[static_cast<std::size_t>(my_pe)];
}

bool is_live_team(shmem_team_t team) {
  if (team == &g_team_world || team == &g_team_shared) return true;
  std::lock_guard lock(g_registry_mutex);
  return g_teams.count(team) != 0;
}

// A new team of `members` split from `parent` (every parent member calls).
// Null on the PEs not in it. Collective over the parent.
shmem_team_t make_team(const char* function, tern_shmem_team& parent, std::vector<int> members,
                       const shmem_team_config_t* config, long config_mask) {
  State& s = *g_state;
  uint64_t free_slots;
  {
    std::lock_guard lock(g_registry_mutex);
    free_slots = ~g_used_slots;
  }
  std::vector<uint64_t> all;
  team_exchange(parent, free_slots, all);
  for (uint64_t other : all) free_slots &= other;
  const bool member = std::find(members.begin(), members.end(), s.my_pe) != members.end();
  if (free_slots == 0) {
    fail(function, "too many teams at once (at most %u live teams; destroy some with shmem_team_destroy)",
         kSlots - kSlotFirstTeam);
  }
  const auto slot = static_cast<unsigned>(std::countr_zero(free_slots));
  if (!member) return SHMEM_TEAM_INVALID;
  auto* team = new tern_shmem_team;
  fill_team(*team, std::move(members), s.n_pes, s.my_pe);
  team->slot = slot;
  if (config != nullptr) team->config = *config;
  team->config_mask = config_mask;
  std::lock_guard lock(g_registry_mutex);
  g_used_slots |= uint64_t{1} << slot;
  g_teams.insert(team);
  return team;
}

}  // namespace

void setup_predefined_teams(State& s) {
  std::vector<int> world(static_cast<std::size_t>(s.n_pes));
  for (int pe = 0; pe < s.n_pes; ++pe) world[static_cast<std::size_t>(pe)] = pe;
  fill_team(g_team_world, world, s.n_pes, s.my_pe);
  g_team_world.slot = kSlotWorld;
  g_team_world.predefined = true;
  std::vector<int> shared;
  for (unsigned pe : s.job->bootstrap().local_peers()) {
    if (s.peers[pe].heap != nullptr) shared.push_back(static_cast<int>(pe));
  }
  fill_team(g_team_shared, shared, s.n_pes, s.my_pe);
  g_team_shared.slot = kSlotShared;
  g_team_shared.predefined = true;
  g_ctx_default.team = &g_team_world;
  g_ctx_default.predefined = true;
  g_used_slots = (uint64_t{1} << kSlotFirstTeam) - 1;
  SHMEM_TEAM_WORLD = &g_team_world;
  SHMEM_TEAM_SHARED = &g_team_shared;
  SHMEM_CTX_DEFAULT = &g_ctx_default;
}

void release_teams() noexcept {
  std::lock_guard lock(g_registry_mutex);
  for (const tern_shmem_team* team : g_teams) delete team;
  for (tern_shmem_ctx& ctx : g_context_slots) ctx.live.store(false, std::memory_order_release);
  g_teams.clear();
  g_used_slots = 0;
  SHMEM_TEAM_WORLD = nullptr;
  SHMEM_TEAM_SHARED = nullptr;
  SHMEM_CTX_DEFAULT = nullptr;
}

tern_shmem_team& checked_team(const char* function, shmem_team_t team) {
  (void)state(function);
  if (team == SHMEM_TEAM_INVALID) fail(function, "team is SHMEM_TEAM_INVALID");
  if (!is_live_team(team)) fail(function, "team %p is not a valid team (destroyed, or never created)",
                                static_cast<void*>(team));
  return *team;
}

void check_ctx(const char* function, shmem_ctx_t ctx) {
  (void)state(function);
  if (TERN_LIKELY(ctx == &g_ctx_default)) return;
  if (ctx == SHMEM_CTX_INVALID) fail(function, "context is SHMEM_CTX_INVALID");
  if (!is_live_ctx(ctx)) {
    fail(function, "context %p is not a valid context (destroyed, or never created)", static_cast<void*>(ctx));
  }
}

int ctx_world_pe(const char* function, shmem_ctx_t ctx, int pe) {
  check_ctx(function, ctx);
  const tern_shmem_team* team = ctx->team;
  if (TERN_LIKELY(team == &g_team_world)) return pe;
  if (pe < 0 || static_cast<std::size_t>(pe) >= team->members.size()) {
    fail(function, "PE %d is out of range for the context's team (PEs 0..%zu)", pe, team->members.size() - 1);
  }
  return team->members[static_cast<std::size_t>(pe)];
}

}  // namespace tern::shmem

using namespace tern::shmem;

extern "C" {

int shmem_team_my_pe(shmem_team_t team) {
  if (team == SHMEM_TEAM_INVALID) return -1;
  return checked_team("shmem_team_my_pe", team).my_index;
}

int shmem_team_n_pes(shmem_team_t team) {
  if (team == SHMEM_TEAM_INVALID) return -1;
  return static_cast<int>(checked_team("shmem_team_n_pes", team).members.size());
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t* config) {
  constexpr const char* kFunction = "shmem_team_get_config";
  if (team == SHMEM_TEAM_INVALID) return -1;
  tern_shmem_team& t = checked_team(kFunction, team);
  if (config == nullptr) fail(kFunction, "config is a null pointer");
  if ((config_mask & SHMEM_TEAM_NUM_CONTEXTS) != 0) config->num_contexts = t.config.num_contexts;
  return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
  constexpr const char* kFunction = "shmem_team_translate_pe";
  if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID) return -1;
  tern_shmem_team& from = checked_team(kFunction, src_team);
  tern_shmem_team& to = checked_team(kFunction, dest_team);
  if (src_pe < 0 || static_cast<std::size_t>(src_pe) >= from.members.size()) return -1;
  return to.index_of[static_cast<std::size_t>(from.members[static_cast<std::size_t>(src_pe)])];
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t* config, long config_mask, shmem_team_t* new_team) {
  constexpr const char* kFunction = "shmem_team_split_strided";
  if (new_team == nullptr) fail(kFunction, "new_team is a null pointer");
  *new_team = SHMEM_TEAM_INVALID;
  if (parent_team == SHMEM_TEAM_INVALID) return -1;
  tern_shmem_team& parent = checked_team(kFunction, parent_team);
  const auto parent_size = static_cast<long long>(parent.members.size());
  const long long last = start + static_cast<long long>(stride) * (size - 1);
  if (size < 1 || start < 0 || start >= parent_size || last < 0 || last >= parent_size ||
      (stride == 0 && size > 1)) {
    // Every parent member sees the same arguments, so all return the error.
    return -1;
  }
  std::vector<int> members;
  for (int i = 0; i < size; ++i) {
    members.push_back(parent.members[static_cast<std::size_t>(start + static_cast<long long>(stride) * i)]);
  }
  *new_team = make_team(kFunction, parent, std::move(members), config, config_mask);
  return 0;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t* xaxis_config,
                        long xaxis_mask, shmem_team_t* xaxis_team, const shmem_team_config_t* yaxis_config,
                        long yaxis_mask, shmem_team_t* yaxis_team) {
  constexpr const char* kFunction = "shmem_team_split_2d";
  if (xaxis_team == nullptr || yaxis_team == nullptr) fail(kFunction, "xaxis_team or yaxis_team is a null pointer");
  *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
  if (parent_team == SHMEM_TEAM_INVALID || xrange <= 0) return -1;
  tern_shmem_team& parent = checked_team(kFunction, parent_team);
  const int n = static_cast<int>(parent.members.size());
  const int x = std::min(xrange, n);
  const int rows = (n + x - 1) / x;
  // Each PE is in one row (its x-axis team) and one column (its y-axis team);
  // all parent members take part in every split so slots stay agreed.
  for (int row = 0; row < rows; ++row) {
    std::vector<int> members;
    for (int i = row * x; i < std::min(n, (row + 1) * x); ++i) members.push_back(parent.members[static_cast<std::size_t>(i)]);
    shmem_team_t team = make_team(kFunction, parent, std::move(members), xaxis_config, xaxis_mask);
    if (team != SHMEM_TEAM_INVALID) *xaxis_team = team;
  }
  for (int column = 0; column < x; ++column) {
    std::vector<int> members;
    for (int i = column; i < n; i += x) members.push_back(parent.members[static_cast<std::size_t>(i)]);
    shmem_team_t team = make_team(kFunction, parent, std::move(members), yaxis_config, yaxis_mask);
    if (team != SHMEM_TEAM_INVALID) *yaxis_team = team;
  }
  return 0;
}

void shmem_team_destroy(shmem_team_t team) {
  constexpr const char* kFunction = "shmem_team_destroy";
  if (team == SHMEM_TEAM_INVALID) return;
  tern_shmem_team& t = checked_team(kFunction, team);
  if (t.predefined) fail(kFunction, "the predefined teams (SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED) cannot be destroyed");
  team_barrier(t);  // its slot may be reused only once every member is done with it
  std::lock_guard lock(g_registry_mutex);
  for (tern_shmem_ctx& ctx : g_context_slots) {
    if (ctx.live.load(std::memory_order_relaxed) && ctx.team == team) ctx.live.store(false, std::memory_order_release);
  }
  g_used_slots &= ~(uint64_t{1} << t.slot);
  g_teams.erase(team);
  delete team;
}

void* shmem_team_ptr(shmem_team_t team, const void* dest, int pe) {
  constexpr const char* kFunction = "shmem_team_ptr";
  if (team == SHMEM_TEAM_INVALID) return nullptr;
  tern_shmem_team& t = checked_team(kFunction, team);
  if (pe < 0 || static_cast<std::size_t>(pe) >= t.members.size()) return nullptr;
  return try_remote(dest, 1, t.members[static_cast<std::size_t>(pe)]);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx) {
  constexpr const char* kFunction = "shmem_team_create_ctx";
  if (ctx == nullptr) fail(kFunction, "ctx is a null pointer");
  *ctx = SHMEM_CTX_INVALID;
  if (team == SHMEM_TEAM_INVALID) return -1;
  (void)checked_team(kFunction, team);
  std::lock_guard lock(g_registry_mutex);
  for (tern_shmem_ctx& slot : g_context_slots) {
    if (slot.live.load(std::memory_order_relaxed)) continue;
    slot.options = options;
    slot.team = team;
    slot.live.store(true, std::memory_order_release);
    *ctx = &slot;
    return 0;
  }
  return -1;  // every slot in use: the specification's answer is a non-zero return
}

int shmem_ctx_create(long options, shmem_ctx_t* ctx) {
  (void)state("shmem_ctx_create");
  return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx) {
  constexpr const char* kFunction = "shmem_ctx_destroy";
  if (ctx == SHMEM_CTX_INVALID) return;
  check_ctx(kFunction, ctx);
  if (ctx == &g_ctx_default) fail(kFunction, "SHMEM_CTX_DEFAULT cannot be destroyed");
  quiet();  // destroying a context completes its operations
  std::lock_guard lock(g_registry_mutex);
  ctx->live.store(false, std::memory_order_release);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team) {
  constexpr const char* kFunction = "shmem_ctx_get_team";
  if (team == nullptr) fail(kFunction, "team is a null pointer");
  if (ctx == SHMEM_CTX_INVALID) {
    *team = SHMEM_TEAM_INVALID;
    return -1;
  }
  check_ctx(kFunction, ctx);
  *team = ctx->team;
  return 0;
}

int shmem_team_sync(shmem_team_t team) {
  if (team == SHMEM_TEAM_INVALID) return -1;
  team_barrier(checked_team("shmem_team_sync", team));
  return 0;
}

}  // extern "C"
