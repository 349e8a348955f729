// The lane of an endpoint whose peer was disconnected (it broke the
// protocol, or its queue was found corrupted): every operation fails with
// the reason, so the calls that need that peer end in an error instead of
// waiting for it. Swapping it in costs the hot paths nothing.
#pragma once

#include "transport/iface.hpp"

namespace tern::engine {

class FailedLane final : public transport::Ep {
 public:
  [[nodiscard]] Status am_short(uint8_t, uint64_t, const void*, std::size_t) override { return kReason; }
  [[nodiscard]] ssize_t am_bcopy(uint8_t, transport::PackCallback, void*) override {
    return static_cast<ssize_t>(kReason);
  }
  [[nodiscard]] Status get_zcopy(void*, std::size_t, transport::RemoteMemory, transport::Completion*) override {
    return kReason;
  }
  [[nodiscard]] Status put_zcopy(const void*, std::size_t, transport::RemoteMemory,
                                 transport::Completion*) override {
    return kReason;
  }
  [[nodiscard]] Status pending_add(transport::PendingEntry*) override { return kReason; }
  void pending_remove(transport::PendingEntry*) override {}
  [[nodiscard]] bool supports_zcopy() const noexcept override { return false; }
  [[nodiscard]] Status atomic(const transport::AtomicArgs&, transport::RemoteMemory, transport::Completion*) override {
    return kReason;
  }
  [[nodiscard]] Status flush(transport::Completion*) override { return kReason; }
  [[nodiscard]] Status fence() override { return kReason; }

  static constexpr Status kReason = Status::IoError;
};

}  // namespace tern::engine
