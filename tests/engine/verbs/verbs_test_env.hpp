// Where the verbs tests run: on the in-process emulation by default, on the
// machine's RDMA device through libibverbs with TERN_TEST_VERBS=1 (the
// transport and worker tests; the emulation's own tests stay emulated).
#pragma once

#include <cstdlib>
#include <cstring>

namespace tern::engine::transport::verbs::testing {

inline bool on_hardware() {
  const char* value = std::getenv("TERN_TEST_VERBS");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

}  // namespace tern::engine::transport::verbs::testing
