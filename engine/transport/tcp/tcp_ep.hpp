// An endpoint of the TCP transport: a handle on the iface's connection to
// one peer (connections are shared by every endpoint to that peer, and by
// the peer's own sends to us, so a pair of workers uses one socket).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tcp_connection.hpp"
#include "transport/iface.hpp"
#include "tern/runtime/intrusive_list.hpp"

namespace tern::engine::transport::tcp {

class TcpIface;

class TcpEp final : public Ep {
 public:
  TcpEp(TcpIface& iface, TcpConnection& connection) noexcept : iface_(iface), connection_(connection) {}
  ~TcpEp() override = default;
  TcpEp(const TcpEp&) = delete;
  TcpEp& operator=(const TcpEp&) = delete;

  [[nodiscard]] Status am_short(uint8_t id, uint64_t header, const void* payload, std::size_t length) override;
  [[nodiscard]] ssize_t am_bcopy(uint8_t id, PackCallback pack, void* arg) override;
  [[nodiscard]] Status get_zcopy(void* local, std::size_t length, RemoteMemory remote, Completion* comp) override;
  [[nodiscard]] Status put_zcopy(const void* local, std::size_t length, RemoteMemory remote,
                                 Completion* comp) override;
  [[nodiscard]] uint64_t offer_zcopy(const void* local, std::size_t length) noexcept override;
  void withdraw_zcopy(uint64_t key) noexcept override;
  [[nodiscard]] Status pending_add(PendingEntry* entry) override;
  void pending_remove(PendingEntry* entry) override;
  [[nodiscard]] Status atomic(const AtomicArgs& args, RemoteMemory remote, Completion* comp) override;
  [[nodiscard]] Status flush(Completion* comp) override;
  [[nodiscard]] Status fence() override;
  [[nodiscard]] std::string route() const override { return "on " + connection_.via; }

  [[nodiscard]] TcpConnection& connection() noexcept { return connection_; }

  runtime::ListHook iface_hook;  // in the iface's list of endpoints

 private:
  TcpIface& iface_;
  TcpConnection& connection_;
};

}  // namespace tern::engine::transport::tcp
