// Completion of zero-copy transport operations. The caller embeds a
// Completion in its own request; the transport calls `callback` once `count`
// operations have finished with the caller's buffers. One Completion can cover
// several operations (fragments): set count to their number. The first error
// is kept.
#pragma once

#include <cstdint>

#include "tern/runtime/status.hpp"

namespace tern::engine::transport {

struct Completion {
  using Callback = void (*)(Completion* self);

  Callback callback = nullptr;
  int32_t count = 0;
  Status status = Status::Ok;

  // Called by transports when one covered operation has finished.
  void finish_one(Status result) noexcept {
    if (is_error(result) && status == Status::Ok) status = result;
    if (--count == 0 && callback != nullptr) callback(this);
  }
};

}  // namespace tern::engine::transport
