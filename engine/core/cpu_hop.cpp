#include "core/cpu_hop.hpp"

#include "tern/runtime/log.hpp"

namespace tern::engine {
namespace {

// Two partners that notice together must not both move (they would land
// together again), so each moves at the end of a streak only half the time;
// a process the kernel keeps putting back gives up after this many moves.
constexpr unsigned kMaxHops = 16;

}  // namespace

void CpuHop::init(uint64_t seed) noexcept {
  random_ = seed | 1;
  enabled_ = sched_getaffinity(0, sizeof(allowed_), &allowed_) == 0 && CPU_COUNT(&allowed_) > 1;
}

void CpuHop::hop() noexcept {
  streak_ = 0;
  random_ ^= random_ << 13;
  random_ ^= random_ >> 7;
  random_ ^= random_ << 17;
  if ((random_ & 1) != 0) return;
  if (hops_ >= kMaxHops) {
    enabled_ = false;  // the kernel keeps putting us back: stop trying
    return;
  }
  const int here = sched_getcpu();
  const int count = CPU_COUNT(&allowed_);
  if (here < 0 || count < 2) return;
  // A random allowed CPU other than this one.
  int pick = static_cast<int>((random_ >> 1) % static_cast<uint64_t>(count - 1));
  int target = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE && target < 0; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed_) || cpu == here) continue;
    if (pick-- == 0) target = cpu;
  }
  if (target < 0) return;
  cpu_set_t only;
  CPU_ZERO(&only);
  CPU_SET(target, &only);
  // Moving there takes effect at once; the full mask back leaves us there
  // until the kernel has a reason to move us.
  if (sched_setaffinity(0, sizeof(only), &only) == 0) {
    (void)sched_setaffinity(0, sizeof(allowed_), &allowed_);
    ++hops_;
    last_target_ = target;
    TERN_LOG(Debug, "wait: kept meeting a partner on CPU %d; moved to CPU %d", here, target);
  }
}

}  // namespace tern::engine
