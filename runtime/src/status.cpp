#include "tern/runtime/status.hpp"

namespace tern {

const char* to_string(Status status) noexcept {
  switch (status) {
    case Status::Ok: return "success";
    case Status::InProgress: return "operation in progress";
    case Status::WouldBlock: return "no resources available, try again";
    case Status::Busy: return "busy";
    case Status::InvalidParam: return "invalid parameter";
    case Status::Truncated: return "message truncated";
    case Status::Canceled: return "request canceled";
    case Status::NotFound: return "not found";
    case Status::Unreachable: return "destination is unreachable";
    case Status::NoMemory: return "out of memory";
    case Status::IoError: return "input/output error";
    case Status::Unsupported: return "operation not supported";
    case Status::TimedOut: return "timed out";
    case Status::MessageTooLong: return "message too long";
  }
  return "unknown status";
}

}  // namespace tern
