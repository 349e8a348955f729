// What a transport needs to open an iface, and the factories of the built-in
// transports.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "iface.hpp"
#include "tern/runtime/config.hpp"

namespace tern::engine::transport {

struct IfaceParams {
  std::string job_id;           // names this job's shared resources; letters, digits, '-', '_'
  uint64_t worker_uuid = 0;     // unique per worker, job-wide
  unsigned expected_peers = 0;  // local processes that will attach; 0: not known
  runtime::Config config;
  FailureHandler on_failure = nullptr;  // may stay null
  void* failure_arg = nullptr;
};

[[nodiscard]] std::unique_ptr<Iface> create_self_iface(const IfaceParams& params, Status& status);
[[nodiscard]] std::unique_ptr<Iface> create_shm_iface(const IfaceParams& params, Status& status);
[[nodiscard]] std::unique_ptr<Iface> create_tcp_iface(const IfaceParams& params, Status& status);
// Unsupported when there is no RDMA device (verbs::unavailable_reason says why).
[[nodiscard]] std::unique_ptr<Iface> create_verbs_iface(const IfaceParams& params, Status& status);

}  // namespace tern::engine::transport
