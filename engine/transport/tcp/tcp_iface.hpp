// The TCP transport: workers on different hosts. One listening socket per
// chosen interface (TERN_TCP_IF), one connection per pair of workers made on
// first send (a simultaneous connect keeps the one opened by the larger
// worker uuid), and one epoll set, whose fd is the iface's wakeup fd.
//
// A connection is accepted only after its first frame presents the secret
// this iface published in its address (which only the job's ranks read,
// through the bootstrap); anything else is closed and logged. Get and put are
// frames that the peer's progress serves from, or writes into, memory it
// offered (rendezvous) or registered; data moves straight between the socket
// and that memory.
#pragma once

#include <sys/epoll.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "transport/slot_table.hpp"
#include "tcp_address.hpp"
#include "tcp_connection.hpp"
#include "tcp_ep.hpp"
#include "transport/iface.hpp"
#include "transport/iface_params.hpp"
#include "tern/runtime/intrusive_list.hpp"

namespace tern::engine::transport::tcp {

class TcpIface final : public Iface {
 public:
  [[nodiscard]] static std::unique_ptr<Iface> create(const IfaceParams& params, Status& status);
  ~TcpIface() override;
  TcpIface(const TcpIface&) = delete;
  TcpIface& operator=(const TcpIface&) = delete;

  [[nodiscard]] const IfaceAttr& attr() const noexcept override { return attr_; }
  unsigned progress() override;
  void set_am_handler(uint8_t id, AmHandler handler, void* arg) override;
  [[nodiscard]] std::vector<std::byte> address() const override;
  [[nodiscard]] bool is_reachable(std::span<const std::byte> remote_address) const override;
  [[nodiscard]] Ep* create_ep(std::span<const std::byte> remote_address, Status& status) override;
  void destroy_ep(Ep* ep) override;
  [[nodiscard]] int event_fd() const noexcept override { return epoll_fd_; }
  [[nodiscard]] Status arm() override;
  void disarm() override {}

  // --- for endpoints
  [[nodiscard]] uint64_t register_region(const void* base, std::size_t length);
  void deregister_region(uint64_t key) noexcept { regions_.remove(key); }
  [[nodiscard]] uint64_t mem_register(const void* base, std::size_t length) override {
    return base == nullptr || length == 0 ? 0 : register_region(base, length);
  }
  void mem_deregister(uint64_t key) noexcept override { deregister_region(key); }
  [[nodiscard]] Status start_atomic(TcpConnection& connection, const AtomicArgs& args, RemoteMemory remote,
                                    Completion* comp);
  [[nodiscard]] Status start_get(TcpConnection& connection, void* local, std::size_t length, RemoteMemory remote,
                                 Completion* comp);
  [[nodiscard]] Status start_flush(TcpConnection& connection, Completion* comp);
  [[nodiscard]] std::byte* bcopy_scratch() noexcept { return scratch_.data(); }

  // --- for connections
  void on_frame(TcpConnection& connection, const FrameHeader& header, const std::byte* body, std::size_t length);
  [[nodiscard]] std::byte* bulk_destination(TcpConnection& connection, const FrameHeader& header,
                                            const std::byte* body, std::size_t data_length);
  void bulk_done(TcpConnection& connection, const FrameHeader& header, const std::byte* body,
                 std::size_t data_length);
  // `error_number` 0: the peer closed the connection.
  void connection_failed(TcpConnection& connection, Status reason, int error_number);
  void protocol_error(TcpConnection& connection, const char* what);
  // The connection has bytes queued: write them once the socket takes them
  // (and connect first if it has no socket yet).
  void want_write(TcpConnection& connection);

 private:
  struct Watch;  // what an epoll event points at
  struct Region {
    uintptr_t base = 0;
    std::size_t length = 0;
  };
  struct GetInFlight {
    std::byte* destination = nullptr;
    std::size_t length = 0;
    std::size_t received = 0;
    Completion* comp = nullptr;
    TcpConnection* connection = nullptr;
  };
  struct FlushInFlight {
    Completion* comp = nullptr;
    TcpConnection* connection = nullptr;
  };
  struct AtomicInFlight {
    uint64_t* result = nullptr;
    Completion* comp = nullptr;
    TcpConnection* connection = nullptr;
  };

  TcpIface(const IfaceParams& params, int epoll_fd);
  [[nodiscard]] Status open_listeners(const std::vector<InterfaceAddress>& interfaces);
  [[nodiscard]] TcpConnection* new_connection(int fd, TcpConnection::State state, std::string peer_name);
  void watch(TcpConnection& connection, uint32_t events);
  void accept_all(int listen_fd);
  [[nodiscard]] std::string interface_of(int fd) const;
  void start_connect(TcpConnection& connection);
  void on_writable(TcpConnection& connection);
  void on_handshake(TcpConnection& connection, const HandshakeBody& body);
  void adopt(TcpConnection& existing, TcpConnection& accepted);
  void open_connection(TcpConnection& connection);
  void serve_get(TcpConnection& connection, const GetRequestBody& request);
  void serve_atomic(TcpConnection& connection, const AtomicBody& request);
  void on_atomic_reply(TcpConnection& connection, const AtomicReplyBody& reply);
  [[nodiscard]] std::byte* region_pointer(uint64_t key, uint64_t address, uint64_t length) noexcept;
  // Quietly drops a connection that never became a peer's (a stranger, a
  // loser of a simultaneous connect).
  void discard(TcpConnection& connection);
  void fail_outstanding(TcpConnection& connection, Status reason);
  void reap();
  void shut_down_connections() noexcept;

  IfaceAttr attr_;
  uint64_t uuid_;
  TcpAddress own_address_;
  std::vector<InterfaceAddress> interfaces_;
  int epoll_fd_;
  std::vector<int> listen_fds_;
  std::vector<std::unique_ptr<Watch>> listen_watches_;
  bool nodelay_ = true;
  int sndbuf_ = 0;
  int rcvbuf_ = 0;
  std::size_t rx_capacity_ = 0;
  std::size_t tx_limit_ = 0;

  struct Handler {
    AmHandler fn = nullptr;
    void* arg = nullptr;
  };
  Handler handlers_[kMaxAmId];

  std::vector<std::unique_ptr<TcpConnection>> connections_;  // all, in use or being accepted
  std::unordered_map<uint64_t, TcpConnection*> by_peer_;
  std::unordered_map<TcpConnection*, TcpAddress> targets_;  // where to connect a connection without a socket
  std::vector<TcpConnection*> graveyard_;
  std::vector<TcpConnection*> blocked_;  // connections whose pending entries wait for room
  unsigned sockets_ = 0;  // connections with a socket
  unsigned idle_polls_ = 0;
  runtime::IntrusiveList<TcpEp, &TcpEp::iface_hook> eps_;

  SlotTable<Region> regions_;
  SlotTable<GetInFlight> gets_;
  SlotTable<FlushInFlight> flushes_;
  SlotTable<AtomicInFlight> atomics_;
  std::vector<std::byte> scratch_;  // am_bcopy packs here
  FailureHandler on_failure_;
  void* failure_arg_;
};

}  // namespace tern::engine::transport::tcp
