// The `self` transport: loopback to the same worker. Messages go through a
// FIFO in private memory and are delivered from progress(), never from
// inside the send, because the engine may send from inside a handler; get
// and put are plain copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "self_ep.hpp"
#include "transport/fifo.hpp"
#include "transport/fifo_inbox.hpp"
#include "transport/iface.hpp"
#include "transport/iface_params.hpp"
#include "tern/runtime/intrusive_list.hpp"

namespace tern::engine::transport::self {

class SelfIface final : public Iface {
 public:
  [[nodiscard]] static std::unique_ptr<Iface> create(const IfaceParams& params, Status& status);
  ~SelfIface() override;
  SelfIface(const SelfIface&) = delete;
  SelfIface& operator=(const SelfIface&) = delete;

  [[nodiscard]] const IfaceAttr& attr() const noexcept override { return attr_; }
  unsigned progress() override;
  void set_am_handler(uint8_t id, AmHandler handler, void* arg) override;
  [[nodiscard]] std::vector<std::byte> address() const override;
  [[nodiscard]] bool is_reachable(std::span<const std::byte> remote_address) const override;
  [[nodiscard]] Ep* create_ep(std::span<const std::byte> remote_address, Status& status) override;
  void destroy_ep(Ep* ep) override;
  [[nodiscard]] int event_fd() const noexcept override { return event_fd_; }
  [[nodiscard]] Status arm() override;
  void disarm() override;

  // For SelfEp: a message was queued; wake the fd if someone sleeps on it.
  void notify() noexcept {
    if (TERN_UNLIKELY(armed_)) wake();
  }
  // For SelfEp: `ep` has pending entries now.
  void schedule_pending(SelfEp& ep) noexcept;

 private:
  struct FreeCells {
    void operator()(std::byte* cells) const noexcept;
  };

  SelfIface(const IfaceParams& params, FifoGeometry geometry, std::byte* cells, int event_fd);
  void wake() noexcept;
  unsigned dispatch_pending();

  FifoIndices indices_;
  FifoInbox inbox_;
  bool armed_ = false;
  IfaceAttr attr_;
  FifoGeometry geometry_;
  uint64_t uuid_;
  std::unique_ptr<std::byte, FreeCells> cells_;
  int event_fd_;
  runtime::IntrusiveList<SelfEp, &SelfEp::iface_hook> eps_;
  runtime::IntrusiveList<SelfEp, &SelfEp::pending_hook> pending_eps_;
};

}  // namespace tern::engine::transport::self
