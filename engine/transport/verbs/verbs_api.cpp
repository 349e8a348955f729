#include "verbs_api.hpp"

namespace tern::engine::transport::verbs {

const char* to_string(WcStatus status) noexcept {
  switch (status) {
    case WcStatus::Success: return "success";
    case WcStatus::LocalLengthError: return "local length error";
    case WcStatus::LocalProtectionError: return "local protection error";
    case WcStatus::RemoteAccessError: return "remote access error";
    case WcStatus::RemoteInvalidRequest: return "remote invalid request";
    case WcStatus::RnrRetryExceeded: return "receiver not ready, retries exceeded";
    case WcStatus::RetryExceeded: return "transport retries exceeded";
    case WcStatus::Flushed: return "flushed";
    case WcStatus::GeneralError: return "general error";
  }
  return "unknown";
}

}  // namespace tern::engine::transport::verbs
