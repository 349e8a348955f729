// An endpoint of the `self` transport: it writes into its own iface's FIFO,
// which the same worker drains from progress().
#pragma once

#include <cstddef>
#include <cstdint>

#include "transport/ep_pending_queue.hpp"
#include "transport/fifo.hpp"
#include "transport/iface.hpp"
#include "tern/runtime/intrusive_list.hpp"

namespace tern::engine::transport::self {

class SelfIface;

class SelfEp final : public Ep {
 public:
  SelfEp(SelfIface& iface, FifoSender fifo, std::size_t max_message) noexcept;
  ~SelfEp() override = default;
  SelfEp(const SelfEp&) = delete;
  SelfEp& operator=(const SelfEp&) = delete;

  [[nodiscard]] Status am_short(uint8_t id, uint64_t header, const void* payload, std::size_t length) override;
  [[nodiscard]] ssize_t am_bcopy(uint8_t id, PackCallback pack, void* arg) override;
  [[nodiscard]] Status get_zcopy(void* local, std::size_t length, RemoteMemory remote, Completion* comp) override;
  [[nodiscard]] Status put_zcopy(const void* local, std::size_t length, RemoteMemory remote,
                                 Completion* comp) override;
  [[nodiscard]] Status pending_add(PendingEntry* entry) override;
  void pending_remove(PendingEntry* entry) override;
  [[nodiscard]] Status flush(Completion* comp) override;
  [[nodiscard]] Status fence() override;

  // For the iface's progress.
  [[nodiscard]] bool pending_empty() const noexcept { return pending_.empty(); }
  [[nodiscard]] bool has_room() noexcept { return fifo_.has_room(); }
  unsigned dispatch_pending() { return pending_.dispatch(); }
  void drop_pending() noexcept { pending_.clear(); }

  runtime::ListHook iface_hook;    // in the iface's list of endpoints
  runtime::ListHook pending_hook;  // in the iface's list of endpoints with pending entries

 private:
  FifoSender fifo_;
  SelfIface& iface_;
  std::size_t max_short_;
  std::size_t max_bcopy_;
  EpPendingQueue pending_;
};

}  // namespace tern::engine::transport::self
