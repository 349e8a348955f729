// Communication contexts: ctx_create with every option (0, PRIVATE,
// SERIALIZED, NOSTORE), many at once, destroyed in any order; RMA and AMOs on
// a created context; ctx_fence orders puts on the context; ctx_quiet
// completes them (seen by the target through a flag sent on another
// context); ctx_destroy completes what is pending; ctx_get_team (1.5).
#include <shmem.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "check.h"

namespace {

constexpr size_t kLen = 4096;
long g_data[kLen];
long g_flag = 0;
long g_ack = 0;
long g_counter = 0;

void test_create_destroy() {
  const long options[] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE,
                          SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED};
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n;
  std::vector<shmem_ctx_t> contexts;
  std::vector<bool> may_store;
  for (long option : options) {
    for (int copy = 0; copy < 3; ++copy) {
      shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
      const int rc = shmem_ctx_create(option, &ctx);
      if (CHECK(rc == 0)) {
        CHECK(ctx != SHMEM_CTX_DEFAULT);
        contexts.push_back(ctx);
        may_store.push_back((option & SHMEM_CTX_NOSTORE) == 0);
      }
    }
  }
  // All distinct and all usable.
  for (size_t i = 0; i < contexts.size(); ++i) {
    for (size_t j = i + 1; j < contexts.size(); ++j) CHECK(contexts[i] != contexts[j]);
  }
  g_counter = 0;
  shmem_barrier_all();
  long stores = 0;
  for (size_t i = 0; i < contexts.size(); ++i) {
    if (may_store[i]) {
      shmem_ctx_long_atomic_inc(contexts[i], &g_counter, right);
      shmem_ctx_quiet(contexts[i]);
      ++stores;
    } else {
      (void)shmem_ctx_long_g(contexts[i], &g_counter, right);  // no stores on NOSTORE
    }
  }
  shmem_barrier_all();
  CHECK(g_counter == stores);
  // Destroy from both ends towards the middle.
  size_t lo = 0, hi = contexts.size();
  while (lo < hi) {
    shmem_ctx_destroy(contexts[--hi]);
    if (lo < hi) shmem_ctx_destroy(contexts[lo++]);
  }
  shmem_barrier_all();
}

// A put on the context, ctx_quiet, then a flag on the default context: the
// target sees the data once it sees the flag.
void test_quiet_and_fence() {
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  if (!CHECK(shmem_ctx_create(0, &ctx) == 0)) return;
  std::vector<long> out(kLen);
  g_flag = 0;
  g_ack = 0;
  shmem_barrier_all();
  for (int r = 0; r < 12; ++r) {
    const size_t len = (r % 3 == 0) ? 1 : (r % 3 == 1) ? 100 : kLen;
    for (size_t i = 0; i < len; ++i) out[i] = 1000000L * r + 1000L * me + static_cast<long>(i);
    if (r % 2 == 0) {
      shmem_ctx_long_put(ctx, g_data, out.data(), len, right);
    } else {
      shmem_ctx_long_put_nbi(ctx, g_data, out.data(), len, right);
    }
    if (r % 4 < 2) {
      // Completion, then the flag on another context.
      shmem_ctx_quiet(ctx);
      shmem_long_atomic_set(&g_flag, r + 1, right);
    } else {
      // Ordering on the same context.
      shmem_ctx_fence(ctx);
      shmem_ctx_long_atomic_set(ctx, &g_flag, r + 1, right);
    }
    shmem_long_wait_until(&g_flag, SHMEM_CMP_GE, r + 1);
    bool ok = true;
    for (size_t i = 0; i < len; ++i) ok = ok && g_data[i] == 1000000L * r + 1000L * left + static_cast<long>(i);
    CHECK(ok);
    shmem_long_atomic_set(&g_ack, r + 1, left);
    shmem_long_wait_until(&g_ack, SHMEM_CMP_GE, r + 1);
    shmem_ctx_quiet(ctx);  // the nbi source is rewritten next round
  }
  shmem_barrier_all();
  // RMA and AMOs on the context, read back on it.
  shmem_ctx_long_p(ctx, &g_data[0], 42 + me, right);
  shmem_ctx_quiet(ctx);
  CHECK(shmem_ctx_long_g(ctx, &g_data[0], right) == 42 + me);
  std::vector<long> back(16);
  shmem_ctx_long_get(ctx, back.data(), g_data, 1, right);
  CHECK(back[0] == 42 + me);
  shmem_ctx_long_get_nbi(ctx, back.data(), g_data, 1, right);
  shmem_ctx_quiet(ctx);
  CHECK(back[0] == 42 + me);
  CHECK(shmem_ctx_long_atomic_fetch_add(ctx, &g_data[0], 8, right) == 42 + me);
  CHECK(shmem_ctx_long_atomic_swap(ctx, &g_data[0], 7, right) == 50 + me);
  CHECK(shmem_ctx_long_atomic_compare_swap(ctx, &g_data[0], 7, 9, right) == 7);
  CHECK(shmem_ctx_long_atomic_fetch(ctx, &g_data[0], right) == 9);
  shmem_barrier_all();
  // Destroying a context completes what is pending on it.
  for (size_t i = 0; i < kLen; ++i) out[i] = -static_cast<long>(i) - me;
  shmem_ctx_long_put_nbi(ctx, g_data, out.data(), kLen, right);
  shmem_ctx_destroy(ctx);
  shmem_long_atomic_set(&g_flag, 1000, right);
  shmem_long_wait_until(&g_flag, SHMEM_CMP_EQ, 1000);
  bool ok = true;
  for (size_t i = 0; i < kLen; ++i) ok = ok && g_data[i] == -static_cast<long>(i) - left;
  CHECK(ok);
  shmem_barrier_all();
}

void test_get_team() {
#if TERN_SHMEM_1_5
  shmem_team_t team = SHMEM_TEAM_INVALID;
  CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team) == 0);
  CHECK(team == SHMEM_TEAM_WORLD);
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  if (CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0)) {
    team = SHMEM_TEAM_INVALID;
    CHECK(shmem_ctx_get_team(ctx, &team) == 0);
    CHECK(team == SHMEM_TEAM_WORLD);
    shmem_ctx_destroy(ctx);
  }
  team = SHMEM_TEAM_WORLD;
  CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team) != 0);
  CHECK(team == SHMEM_TEAM_INVALID);
#endif
}

}  // namespace

int main() {
  shmem_init();
  test_create_destroy();
  test_quiet_and_fence();
  test_get_team();
  const int rc = tern_conclude("shmem_ctx");
  shmem_finalize();
  return rc;
}
