// Teams (OpenSHMEM 1.5): SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED (one node:
// every PE), team_my_pe, team_n_pes, team_get_config, team_translate_pe,
// split_strided (PEs outside the new team get SHMEM_TEAM_INVALID; invalid
// triplets and an invalid parent fail on every PE), splits of splits,
// split_2d, team_sync, shmem_team_ptr, team_create_ctx (PE numbers on the
// context are team-relative), ctx_get_team, team_destroy.
#include <shmem.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "check.h"

#if TERN_SHMEM_1_5
namespace {

long g_slots[64];
long g_counter = 0;

// The PEs whose heap this PE can point into.
std::vector<int> shared_pes() {
  static long probe;  // static data is symmetric
  std::vector<int> shared;
  for (int pe = 0; pe < shmem_n_pes(); ++pe) {
    if (shmem_ptr(&probe, pe) != nullptr) shared.push_back(pe);
  }
  return shared;
}

// Checks what a team of the given world members reports on this PE.
void check_team(shmem_team_t team, const std::vector<int>& members, const char* what) {
  (void)what;
  const int me = shmem_my_pe();
  int my_index = -1;
  for (size_t k = 0; k < members.size(); ++k) {
    if (members[k] == me) my_index = static_cast<int>(k);
  }
  if (my_index < 0) {
    CHECK(team == SHMEM_TEAM_INVALID);
    return;
  }
  if (!CHECK(team != SHMEM_TEAM_INVALID)) return;
  const int size = static_cast<int>(members.size());
  CHECK(shmem_team_my_pe(team) == my_index);
  CHECK(shmem_team_n_pes(team) == size);
  for (int k = 0; k < size; ++k) {
    CHECK(shmem_team_translate_pe(team, k, SHMEM_TEAM_WORLD) == members[static_cast<size_t>(k)]);
  }
  for (int pe = 0; pe < shmem_n_pes(); ++pe) {
    int expected = -1;
    for (int k = 0; k < size; ++k) {
      if (members[static_cast<size_t>(k)] == pe) expected = k;
    }
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, team) == expected);
  }
  CHECK(shmem_team_translate_pe(team, size, SHMEM_TEAM_WORLD) == -1);  // no such team PE
  CHECK(shmem_team_translate_pe(team, -1, SHMEM_TEAM_WORLD) == -1);
  CHECK(shmem_team_translate_pe(team, 0, SHMEM_TEAM_INVALID) == -1);
  CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, team) == -1);
  // team_sync: a ring of puts inside the team.
  for (int r = 0; r < 3; ++r) {
    const int next = members[static_cast<size_t>((my_index + 1) % size)];
    shmem_long_p(&g_slots[my_index % 64], 100L * r + my_index, next);
    shmem_quiet();
    CHECK(shmem_team_sync(team) == 0);
    const int prev = (my_index + size - 1) % size;
    CHECK(g_slots[prev % 64] == 100L * r + prev);
    CHECK(shmem_team_sync(team) == 0);
  }
}

void test_predefined() {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  std::vector<int> world;
  for (int pe = 0; pe < n; ++pe) world.push_back(pe);
  check_team(SHMEM_TEAM_WORLD, world, "world");
  // The shared team is every PE whose memory this one maps (shmem_ptr), in
  // world order: all of them on one node, those of this host across hosts.
  std::vector<int> shared = shared_pes();
  CHECK(SHMEM_TEAM_SHARED != SHMEM_TEAM_INVALID);
  CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == static_cast<int>(shared.size()));
  for (size_t k = 0; k < shared.size(); ++k) {
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, static_cast<int>(k), SHMEM_TEAM_WORLD) == shared[k]);
    if (shared[k] == me) CHECK(shmem_team_my_pe(SHMEM_TEAM_SHARED) == static_cast<int>(k));
  }
  check_team(SHMEM_TEAM_SHARED, shared, "shared");
  // The invalid team.
  CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1);
  CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1);
  shmem_team_config_t config;
  config.num_contexts = -1;
  CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &config) == 0);
  CHECK(config.num_contexts >= 0);
  CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &config) != 0);
  shmem_barrier_all();
}

void test_split_strided() {
  const int n = shmem_n_pes();
  shmem_team_config_t config;
  config.num_contexts = 0;
  struct Case {
    int start, stride, size;
  };
  std::vector<Case> cases = {{0, 2, (n + 1) / 2}, {0, 1, n}, {n - 1, 1, 1}, {0, 1, 1}};
  if (n >= 2) cases.push_back({1, 2, n / 2});
  if (n >= 2) cases.push_back({1, 1, n - 1});
  if (n >= 4) cases.push_back({0, 3, (n + 2) / 3});
  for (const Case& c : cases) {
    shmem_team_t team = SHMEM_TEAM_WORLD;  // must be overwritten
    const int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, c.start, c.stride, c.size, &config, 0, &team);
    CHECK(rc == 0);
    std::vector<int> members;
    for (int k = 0; k < c.size; ++k) members.push_back(c.start + k * c.stride);
    check_team(team, members, "split");
    shmem_barrier_all();
    if (team != SHMEM_TEAM_INVALID) shmem_team_destroy(team);
  }
  // A configuration is kept: ask for contexts.
  config.num_contexts = 2;
  shmem_team_t with_contexts = SHMEM_TEAM_INVALID;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, &config, SHMEM_TEAM_NUM_CONTEXTS, &with_contexts) == 0);
  if (CHECK(with_contexts != SHMEM_TEAM_INVALID)) {
    shmem_team_config_t got;
    got.num_contexts = -1;
    CHECK(shmem_team_get_config(with_contexts, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0);
    CHECK(got.num_contexts == 2);
    shmem_team_destroy(with_contexts);
  }
  shmem_barrier_all();
  // A config_mask of 0 takes the defaults, with a null config as in the
  // specification's own example.
  shmem_team_t defaults = SHMEM_TEAM_INVALID;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &defaults) == 0);
  if (CHECK(defaults != SHMEM_TEAM_INVALID)) shmem_team_destroy(defaults);
  shmem_barrier_all();
  // An invalid triplet fails on every PE.
  config.num_contexts = 0;
  shmem_team_t bad = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n + 1, &config, 0, &bad) != 0);
  CHECK(bad == SHMEM_TEAM_INVALID);
  shmem_barrier_all();
  // An invalid parent: no team, nonzero, no communication needed.
  shmem_team_t from_invalid = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, &config, 0, &from_invalid) != 0);
  CHECK(from_invalid == SHMEM_TEAM_INVALID);
  shmem_barrier_all();
}

// A split of a split: the even PEs, then all of them but the first.
void test_nested() {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  shmem_team_config_t config;
  config.num_contexts = 0;
  shmem_team_t even = SHMEM_TEAM_INVALID;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, &config, 0, &even) == 0);
  std::vector<int> even_members;
  for (int pe = 0; pe < n; pe += 2) even_members.push_back(pe);
  check_team(even, even_members, "even");
  if (me % 2 == 0 && even != SHMEM_TEAM_INVALID) {
    const int even_size = shmem_team_n_pes(even);
    if (even_size >= 2) {
      shmem_team_t tail = SHMEM_TEAM_INVALID;
      CHECK(shmem_team_split_strided(even, 1, 1, even_size - 1, &config, 0, &tail) == 0);
      std::vector<int> tail_members(even_members.begin() + 1, even_members.end());
      check_team(tail, tail_members, "even-tail");
      if (tail != SHMEM_TEAM_INVALID) {
        // Translation between two user teams.
        CHECK(shmem_team_translate_pe(tail, 0, even) == 1);
        CHECK(shmem_team_translate_pe(even, 0, tail) == -1);
        shmem_team_sync(tail);
        shmem_team_destroy(tail);
      }
    }
    shmem_team_sync(even);
  } else {
    // Not in the parent: an invalid parent gives an invalid team.
    shmem_team_t none = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(even, 0, 1, 1, &config, 0, &none) != 0);
    CHECK(none == SHMEM_TEAM_INVALID);
  }
  if (even != SHMEM_TEAM_INVALID) shmem_team_destroy(even);
  shmem_barrier_all();
}

void test_split_2d() {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  shmem_team_config_t config;
  config.num_contexts = 0;
  for (int xrange : {1, 2, 3, n}) {
    if (xrange > n) continue;
    shmem_team_t xteam = SHMEM_TEAM_INVALID, yteam = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, &config, 0, &xteam, &config, 0, &yteam) == 0);
    // (x, y) = (pe % xrange, pe / xrange); the x team is my row, the y team my column.
    const int x = me % xrange, y = me / xrange;
    std::vector<int> row, column;
    for (int pe = 0; pe < n; ++pe) {
      if (pe / xrange == y) row.push_back(pe);
      if (pe % xrange == x) column.push_back(pe);
    }
    check_team(xteam, row, "xteam");
    shmem_barrier_all();  // rows and columns overlap: one ring at a time
    check_team(yteam, column, "yteam");
    if (xteam != SHMEM_TEAM_INVALID) CHECK(shmem_team_my_pe(xteam) == x);
    if (yteam != SHMEM_TEAM_INVALID) CHECK(shmem_team_my_pe(yteam) == y);
    shmem_barrier_all();
    if (xteam != SHMEM_TEAM_INVALID) shmem_team_destroy(xteam);
    if (yteam != SHMEM_TEAM_INVALID) shmem_team_destroy(yteam);
  }
  shmem_barrier_all();
}

void test_team_ptr() {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  long* heap = static_cast<long*>(shmem_calloc(static_cast<size_t>(n), sizeof(long)));
  if (!CHECK(heap != nullptr)) return;
  const std::vector<int> shared = shared_pes();
  for (int pe = 0; pe < n; ++pe) {
    long* remote = static_cast<long*>(shmem_team_ptr(SHMEM_TEAM_WORLD, heap, pe));
    CHECK(remote == shmem_ptr(heap, pe));
    if (remote != nullptr) {
      remote[me] = 1 + me;
    } else {
      shmem_long_p(&heap[me], 1 + me, pe);  // on another host
    }
  }
  for (size_t k = 0; k < shared.size(); ++k) {
    long* in_team = static_cast<long*>(shmem_team_ptr(SHMEM_TEAM_SHARED, heap, static_cast<int>(k)));
    CHECK(in_team != nullptr && in_team == shmem_ptr(heap, shared[k]));
  }
  shmem_barrier_all();
  bool ok = true;
  for (int pe = 0; pe < n; ++pe) ok = ok && heap[pe] == 1 + pe;
  CHECK(ok);
  // Team-relative PE numbers.
  shmem_team_config_t config;
  config.num_contexts = 0;
  shmem_team_t odd = SHMEM_TEAM_INVALID;
  if (n >= 2) {
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, &config, 0, &odd) == 0);
    if (odd != SHMEM_TEAM_INVALID) {
      for (int k = 0; k < shmem_team_n_pes(odd); ++k) {
        CHECK(shmem_team_ptr(odd, heap, k) == shmem_ptr(heap, 1 + 2 * k));
      }
      shmem_team_destroy(odd);
    }
  }
  shmem_barrier_all();
  shmem_free(heap);
}

// A context created from a team addresses PEs by their number in the team.
void test_team_ctx() {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  shmem_team_config_t config;
  config.num_contexts = 1;
  shmem_team_t even = SHMEM_TEAM_INVALID;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, &config, SHMEM_TEAM_NUM_CONTEXTS, &even) == 0);
  for (long& s : g_slots) s = 0;
  g_counter = 0;
  shmem_barrier_all();
  if (even != SHMEM_TEAM_INVALID) {
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    const int rc = shmem_team_create_ctx(even, 0, &ctx);
    CHECK(rc == 0);
    if (rc == 0) {
      shmem_team_t back = SHMEM_TEAM_INVALID;
      CHECK(shmem_ctx_get_team(ctx, &back) == 0);
      CHECK(back == even);
      const int size = shmem_team_n_pes(even);
      const int my_index = shmem_team_my_pe(even);
      const int next = (my_index + 1) % size;  // team-relative
      shmem_ctx_long_p(ctx, &g_slots[my_index % 64], 500 + my_index, next);
      shmem_ctx_long_atomic_add(ctx, &g_counter, my_index + 1, 0);  // team PE 0 = world PE 0
      shmem_ctx_quiet(ctx);
      shmem_team_sync(even);
      const int prev = (my_index + size - 1) % size;
      CHECK(g_slots[prev % 64] == 500 + prev);
      CHECK(shmem_ctx_long_g(ctx, &g_slots[my_index % 64], next) == 500 + my_index);
      shmem_team_sync(even);
      if (me == 0) CHECK(g_counter == static_cast<long>(size) * (size + 1) / 2);
      shmem_ctx_destroy(ctx);
    }
  }
  shmem_barrier_all();
  // Odd PEs were never written to.
  if (me % 2 == 1) {
    bool untouched = true;
    for (long s : g_slots) untouched = untouched && s == 0;
    CHECK(untouched);
  }
  if (even != SHMEM_TEAM_INVALID) shmem_team_destroy(even);
  // Contexts of the predefined teams report them.
  shmem_team_t team = SHMEM_TEAM_INVALID;
  CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team) == 0);
  CHECK(team == SHMEM_TEAM_WORLD);
  shmem_ctx_t world_ctx = SHMEM_CTX_DEFAULT;
  if (CHECK(shmem_team_create_ctx(SHMEM_TEAM_WORLD, 0, &world_ctx) == 0)) {
    CHECK(shmem_ctx_get_team(world_ctx, &team) == 0);
    CHECK(team == SHMEM_TEAM_WORLD);
    shmem_ctx_destroy(world_ctx);
  }
  shmem_barrier_all();
}

}  // namespace
#endif  // TERN_SHMEM_1_5

int main() {
  shmem_init();
#if TERN_SHMEM_1_5
  test_predefined();
  test_split_strided();
  test_nested();
  test_split_2d();
  test_team_ptr();
  test_team_ctx();
#endif
  const int rc = tern_conclude("shmem_team");
  shmem_finalize();
  return rc;
}
