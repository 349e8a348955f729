// When ranks outnumber cores and the kernel puts two partners on one CPU,
// they can only take turns: every message costs a context switch (about
// 5 us on a small VM), and since each hands the CPU straight to the other,
// neither ever sleeps and the kernel sees no reason to move either. A waiter
// notices this as waits that keep ending only after it yielded the CPU; it
// then moves itself to another CPU it may run on and lets the kernel settle
// from there (partners apart stay apart: they no longer yield).
#pragma once

#include <sched.h>

#include <cstdint>

namespace tern::engine {

class CpuHop {
 public:
  // Reads the affinity mask: a process bound to one CPU never hops.
  void init(uint64_t seed) noexcept;

  // After each blocking wait: `ended_after_yield` when its event arrived
  // only once this thread had yielded the CPU (and before it slept).
  void on_wait_done(bool ended_after_yield) noexcept {
    if (!enabled_) return;
    if (!ended_after_yield) {
      streak_ = 0;
      return;
    }
    if (++streak_ >= kStreak) hop();
  }

  [[nodiscard]] unsigned moves() const noexcept { return hops_; }
  [[nodiscard]] int last_move_to() const noexcept { return last_target_; }

 private:
  static constexpr unsigned kStreak = 64;

  void hop() noexcept;

  bool enabled_ = false;
  unsigned streak_ = 0;
  unsigned hops_ = 0;
  int last_target_ = -1;
  uint64_t random_ = 0;
  cpu_set_t allowed_{};
};

}  // namespace tern::engine
