// What the timing examples share: one clock for the ranks of a host, and a
// stand-in for the program's own work.
#pragma once

#include <chrono>

namespace tern_examples {

// steady_clock is CLOCK_MONOTONIC on Linux: one clock for every process of a
// host, so the ranks' times can be compared.
inline double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Stands for the program's own work, done without any engine call.
inline double compute(std::chrono::milliseconds duration) {
  const auto until = std::chrono::steady_clock::now() + duration;
  double x = 1;
  while (std::chrono::steady_clock::now() < until) x = x * 1.0000001 + 1e-9;
  return x;
}

}  // namespace tern_examples
