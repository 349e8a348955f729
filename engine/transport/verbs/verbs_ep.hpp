// An endpoint of the verbs transport: a handle on the iface's connection to
// one peer worker (one RC QP per pair, shared by every endpoint to that
// peer and by the peer's sends to us).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "transport/iface.hpp"
#include "tern/runtime/intrusive_list.hpp"
#include "verbs_connection.hpp"

namespace tern::engine::transport::verbs {

class VerbsIface;

class VerbsEp final : public Ep {
 public:
  VerbsEp(VerbsIface& iface, Connection& connection) noexcept : iface_(iface), connection_(connection) {}
  ~VerbsEp() override = default;
  VerbsEp(const VerbsEp&) = delete;
  VerbsEp& operator=(const VerbsEp&) = delete;

  [[nodiscard]] Status am_short(uint8_t id, uint64_t header, const void* payload, std::size_t length) override;
  [[nodiscard]] ssize_t am_bcopy(uint8_t id, PackCallback pack, void* arg) override;
  [[nodiscard]] Status get_zcopy(void* local, std::size_t length, RemoteMemory remote, Completion* comp) override;
  [[nodiscard]] Status put_zcopy(const void* local, std::size_t length, RemoteMemory remote,
                                 Completion* comp) override;
  // The buffer's registration, whose rkey the peer's get uses; it stays
  // registered (cached) after the withdrawal.
  [[nodiscard]] uint64_t offer_zcopy(const void* local, std::size_t length) noexcept override;
  [[nodiscard]] Status pending_add(PendingEntry* entry) override;
  void pending_remove(PendingEntry* entry) override;
  [[nodiscard]] Status atomic(const AtomicArgs& args, RemoteMemory remote, Completion* comp) override;
  [[nodiscard]] Status flush(Completion* comp) override;
  [[nodiscard]] Status fence() override;
  // An eager send with a tag-matching header, which the peer's HCA matches
  // against its posted receives; what it does not match arrives as an
  // eager message (verbs_tag_device.hpp).
  [[nodiscard]] Status tag_offload_send(uint64_t tag, uint64_t sender_uuid, const void* buffer, std::size_t length,
                                        std::size_t unmapped_threshold) override;
  [[nodiscard]] bool tag_offload_matches_at_send() const noexcept override { return false; }
  [[nodiscard]] std::string route() const override;

  [[nodiscard]] Connection& connection() noexcept { return connection_; }

  runtime::ListHook iface_hook;  // in the iface's list of endpoints

 private:
  VerbsIface& iface_;
  Connection& connection_;
};

}  // namespace tern::engine::transport::verbs
