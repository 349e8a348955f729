#include "tcp_iface.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "tern/runtime/compiler.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine::transport {
namespace tcp {

struct TcpIface::Watch {
  int listen_fd = -1;
};

namespace {

// Epoll data of a connection is the connection itself; of a listener, its
// Watch with the low bit set (both are at least 2-byte aligned).
void* tag_listener(void* watch) { return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(watch) | 1); }

}  // namespace

std::unique_ptr<Iface> TcpIface::create(const IfaceParams& params, Status& status) {
  std::vector<InterfaceAddress> interfaces;
  std::string error;
  if (!select_interfaces(params.config.tcp_interfaces, interfaces, error)) {
    TERN_LOG(Error, "tcp: %s", error.c_str());
    status = Status::InvalidParam;
    return nullptr;
  }
  if (interfaces.empty()) {
    TERN_LOG(Debug, "tcp: no interface selected (TERN_TCP_IF=%s)", params.config.tcp_interfaces.c_str());
    status = Status::Unsupported;
    return nullptr;
  }
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) {
    TERN_LOG(Error, "tcp: epoll_create1: %s", std::strerror(errno));
    status = Status::IoError;
    return nullptr;
  }
  std::unique_ptr<TcpIface> iface(new TcpIface(params, epoll_fd));
  if (getrandom(iface->own_address_.secret.data(), kSecretBytes, 0) != static_cast<ssize_t>(kSecretBytes)) {
    TERN_LOG(Error, "tcp: getrandom: %s", std::strerror(errno));
    status = Status::IoError;
    return nullptr;
  }
  if (Status s = iface->open_listeners(interfaces); s != Status::Ok) {
    status = s;
    return nullptr;
  }
  status = Status::Ok;
  return iface;
}

TcpIface::TcpIface(const IfaceParams& params, int epoll_fd)
    : uuid_(params.worker_uuid), epoll_fd_(epoll_fd), on_failure_(params.on_failure), failure_arg_(params.failure_arg) {
  const runtime::Config& config = params.config;
  attr_.name = "tcp";
  attr_.flags = kCapAmShort | kCapAmBcopy | kCapGetZcopy | kCapPutZcopy | kCapWakeup | kCapRma;
  attr_.max_bcopy = config.tcp_fragment_size;
  attr_.max_short = attr_.max_bcopy - sizeof(uint64_t);
  attr_.max_zcopy = SIZE_MAX;
  attr_.rndv_threshold = config.tcp_rndv_threshold;
  attr_.rndv_threshold_mapped = attr_.rndv_threshold;
  attr_.rndv_threshold_drained = attr_.rndv_threshold;
  attr_.rndv_threshold_metered = attr_.rndv_threshold;
  attr_.priority = 10;
  nodelay_ = config.tcp_nodelay != runtime::Switch::Off;
  sndbuf_ = static_cast<int>(std::min<std::size_t>(config.tcp_sndbuf, INT32_MAX));
  rcvbuf_ = static_cast<int>(std::min<std::size_t>(config.tcp_rcvbuf, INT32_MAX));
  // Room for the largest frame and, for small ones, many per read.
  rx_capacity_ = std::max<std::size_t>(std::size_t{256} << 10, attr_.max_bcopy + 4 * sizeof(FrameHeader));
  tx_limit_ = std::max<std::size_t>(std::size_t{4} << 20, 4 * attr_.max_bcopy);
  scratch_.resize(attr_.max_bcopy);
  own_address_.worker_uuid = uuid_;
  own_address_.host = local_host_id();
}

TcpIface::~TcpIface() {
  while (TcpEp* ep = eps_.front()) {
    eps_.remove(ep);
    delete ep;
  }
  shut_down_connections();
  connections_.clear();
  for (int fd : listen_fds_) close(fd);
  close(epoll_fd_);
}

Status TcpIface::open_listeners(const std::vector<InterfaceAddress>& interfaces) {
  for (const InterfaceAddress& candidate : interfaces) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      TERN_LOG(Error, "tcp: socket: %s", std::strerror(errno));
      return Status::IoError;
    }
    sockaddr_in bind_to{};
    bind_to.sin_family = AF_INET;
    bind_to.sin_addr.s_addr = candidate.ip;
    bind_to.sin_port = 0;
    socklen_t length = sizeof(bind_to);
    if (bind(fd, reinterpret_cast<sockaddr*>(&bind_to), sizeof(bind_to)) != 0 || listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&bind_to), &length) != 0) {
      TERN_LOG(Warn, "tcp: cannot listen on %s (%s): %s", candidate.name.c_str(), candidate.to_string().c_str(),
               std::strerror(errno));
      close(fd);
      continue;
    }
    auto watch = std::make_unique<Watch>();
    watch->listen_fd = fd;
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.ptr = tag_listener(watch.get());
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) {
      close(fd);
      return Status::IoError;
    }
    InterfaceAddress listening = candidate;
    listening.port = bind_to.sin_port;
    TERN_LOG(Debug, "tcp: listening on %s (%s)", listening.to_string().c_str(), listening.name.c_str());
    interfaces_.push_back(listening);
    own_address_.listeners.push_back(listening);
    listen_fds_.push_back(fd);
    listen_watches_.push_back(std::move(watch));
  }
  if (listen_fds_.empty()) {
    TERN_LOG(Error, "tcp: could not listen on any selected interface");
    return Status::IoError;
  }
  return Status::Ok;
}

std::vector<std::byte> TcpIface::address() const { return pack_address(own_address_); }

bool TcpIface::is_reachable(std::span<const std::byte> remote_address) const {
  TcpAddress remote;
  InterfaceAddress to;
  std::string via;
  return unpack_address(remote_address, remote) && choose_route(interfaces_, remote, to, via);
}

void TcpIface::set_am_handler(uint8_t id, AmHandler handler, void* arg) {
  if (id < kMaxAmId) handlers_[id] = {handler, arg};
}

TcpConnection* TcpIface::new_connection(int fd, TcpConnection::State state, std::string peer_name) {
  auto connection = std::make_unique<TcpConnection>(*this, fd, state, rx_capacity_, tx_limit_);
  connection->peer_name = std::move(peer_name);
  TcpConnection* raw = connection.get();
  connections_.push_back(std::move(connection));
  if (fd >= 0) ++sockets_;
  return raw;
}

Ep* TcpIface::create_ep(std::span<const std::byte> remote_address, Status& status) {
  TcpAddress remote;
  if (!unpack_address(remote_address, remote)) {
    status = Status::InvalidParam;
    return nullptr;
  }
  InterfaceAddress to;
  std::string via;
  if (!choose_route(interfaces_, remote, to, via)) {
    status = Status::Unreachable;
    return nullptr;
  }
  TcpConnection* connection = nullptr;
  if (auto it = by_peer_.find(remote.worker_uuid); it != by_peer_.end()) {
    connection = it->second;
  } else {
    // Made on first send (want_write), with the target kept until then.
    connection = new_connection(-1, TcpConnection::State::Idle, to.to_string());
    connection->peer_uuid = remote.worker_uuid;
    by_peer_[remote.worker_uuid] = connection;
    connection->via = via;
    TcpAddress target = remote;
    target.listeners = {to};
    targets_[connection] = std::move(target);
  }
  auto* ep = new TcpEp(*this, *connection);
  eps_.push_back(ep);
  TERN_LOG(Debug, "tcp: endpoint to %016llx at %s via %s", static_cast<unsigned long long>(remote.worker_uuid),
           to.to_string().c_str(), via.c_str());
  status = Status::Ok;
  return ep;
}

void TcpIface::destroy_ep(Ep* ep) {
  if (ep == nullptr) return;
  TcpEp* found = eps_.front();
  while (found != nullptr && found != ep) found = eps_.next(found);
  if (found == nullptr) {
    TERN_LOG(Error, "tcp: destroy_ep of an endpoint this iface did not create");
    return;
  }
  eps_.remove(found);
  delete found;
}

void TcpIface::watch(TcpConnection& connection, uint32_t events) {
  epoll_event event{};
  event.events = events;
  event.data.ptr = &connection;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, connection.fd(), &event) != 0) {
    if (errno != ENOENT || epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, connection.fd(), &event) != 0) {
      TERN_LOG(Error, "tcp: epoll_ctl: %s", std::strerror(errno));
    }
  }
  connection.write_armed = (events & EPOLLOUT) != 0;
}

void TcpIface::want_write(TcpConnection& connection) {
  if (connection.state() == TcpConnection::State::Idle) {
    start_connect(connection);
    return;
  }
  if (connection.state() == TcpConnection::State::Open && !connection.write_armed) {
    watch(connection, EPOLLIN | EPOLLOUT);
  }
}

void TcpIface::on_frame(TcpConnection& connection, const FrameHeader& header, const std::byte* body,
                        std::size_t length) {
  const auto type = static_cast<FrameType>(header.type);
  if (type == FrameType::Handshake) {
    HandshakeBody handshake{};
    if (length != sizeof(handshake)) {
      protocol_error(connection, "handshake of the wrong length");
      return;
    }
    std::memcpy(&handshake, body, sizeof(handshake));
    on_handshake(connection, handshake);
    return;
  }
  if (TERN_UNLIKELY(connection.state() != TcpConnection::State::Open)) {
    protocol_error(connection, "frame before the handshake");
    return;
  }
  switch (type) {
    case FrameType::Am: {
      if (TERN_UNLIKELY(header.am_id >= kMaxAmId || length < sizeof(uint64_t))) {
        protocol_error(connection, "active message with a bad id or no header");
        return;
      }
      const Handler& handler = handlers_[header.am_id];
      if (handler.fn != nullptr && TERN_UNLIKELY(!handler.fn(handler.arg, body, length))) {
        protocol_error(connection, "malformed active message");
      }
      return;
    }
    case FrameType::GetRequest: {
      GetRequestBody request{};
      if (length != sizeof(request)) break;
      if (TERN_UNLIKELY(!connection.backlog_bearable())) {
        protocol_error(connection, "requests keep coming while their replies are not read");
        return;
      }
      std::memcpy(&request, body, sizeof(request));
      serve_get(connection, request);
      return;
    }
    case FrameType::Flush: {
      FlushBody flush{};
      if (length != sizeof(flush)) break;
      if (TERN_UNLIKELY(!connection.backlog_bearable())) {
        protocol_error(connection, "requests keep coming while their replies are not read");
        return;
      }
      std::memcpy(&flush, body, sizeof(flush));
      FrameHeader reply{sizeof(flush), static_cast<uint8_t>(FrameType::FlushReply), 0, 0};
      // Replies may exceed the queue limit (dropping one would hang the
      // peer), up to the bound checked above.
      (void)connection.send_zcopy(reply, &flush, sizeof(flush), nullptr, 0, nullptr);
      return;
    }
    case FrameType::FlushReply: {
      FlushBody flush{};
      if (length != sizeof(flush)) break;
      std::memcpy(&flush, body, sizeof(flush));
      FlushInFlight* pending = flushes_.find(flush.flush_id);
      if (pending == nullptr || pending->connection != &connection) {
        protocol_error(connection, "reply to a flush that is not in flight");
        return;
      }
      Completion* comp = pending->comp;
      flushes_.remove(flush.flush_id);
      if (comp != nullptr) comp->finish_one(Status::Ok);
      return;
    }
    case FrameType::Atomic: {
      AtomicBody request{};
      if (length != sizeof(request)) break;
      if (TERN_UNLIKELY(!connection.backlog_bearable())) {
        protocol_error(connection, "requests keep coming while their replies are not read");
        return;
      }
      std::memcpy(&request, body, sizeof(request));
      serve_atomic(connection, request);
      return;
    }
    case FrameType::AtomicReply: {
      AtomicReplyBody reply{};
      if (length != sizeof(reply)) break;
      std::memcpy(&reply, body, sizeof(reply));
      on_atomic_reply(connection, reply);
      return;
    }
    default:
      break;
  }
  protocol_error(connection, "frame of an unexpected type or length");
}

void TcpIface::fail_outstanding(TcpConnection& connection, Status reason) {
  gets_.for_each([&](uint64_t id, GetInFlight& get) {
    if (get.connection != &connection) return;
    Completion* comp = get.comp;
    gets_.remove(id);
    if (comp != nullptr) comp->finish_one(reason);
  });
  flushes_.for_each([&](uint64_t id, FlushInFlight& flush) {
    if (flush.connection != &connection) return;
    Completion* comp = flush.comp;
    flushes_.remove(id);
    if (comp != nullptr) comp->finish_one(reason);
  });
  atomics_.for_each([&](uint64_t id, AtomicInFlight& atomic) {
    if (atomic.connection != &connection) return;
    Completion* comp = atomic.comp;
    atomics_.remove(id);
    if (comp != nullptr) comp->finish_one(reason);
  });
}

void TcpIface::connection_failed(TcpConnection& connection, Status reason, int error_number) {
  if (connection.state() == TcpConnection::State::Failed) return;
  const bool known_peer = connection.state() != TcpConnection::State::Accepting;
  bool outstanding = !connection.tx_idle();
  gets_.for_each([&](uint64_t, GetInFlight& get) { outstanding = outstanding || get.connection == &connection; });
  outstanding = outstanding || flushes_.size() != 0;
  atomics_.for_each([&](uint64_t, AtomicInFlight& atomic) { outstanding = outstanding || atomic.connection == &connection; });
  const char* why = error_number == 0 ? "closed by the peer" : std::strerror(error_number);
  if (!known_peer) {
    TERN_LOG(Debug, "tcp: connection from %s ended before its handshake: %s", connection.peer_name.c_str(), why);
    discard(connection);
    return;
  }
  // A peer that finished closes its sockets: only a loss with work under way
  // is an error.
  // Named by address: the worker, which knows the peer's rank, says more.
  if (outstanding || reason == Status::Unreachable) {
    TERN_LOG(Error, "tcp: connection to %s failed: %s", connection.peer_name.c_str(), why);
  } else {
    TERN_LOG(Debug, "tcp: connection to %s ended: %s", connection.peer_name.c_str(), why);
  }
  if (connection.fd() >= 0) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, connection.fd(), nullptr);
    --sockets_;
  }
  connection.fail(reason);
  fail_outstanding(connection, reason);
  // Senders waiting for room learn of it when their entries run.
  if (!connection.pending.empty()) blocked_.push_back(&connection);
}

void TcpIface::protocol_error(TcpConnection& connection, const char* what) {
  if (connection.state() == TcpConnection::State::Failed) return;
  if (connection.state() == TcpConnection::State::Accepting) {
    TERN_LOG(Warn, "tcp: refused a connection from %s: %s", connection.peer_name.c_str(), what);
    discard(connection);
    return;
  }
  TERN_LOG(Error, "tcp: dropping the connection to %s: %s", connection.peer_name.c_str(), what);
  if (connection.fd() >= 0) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, connection.fd(), nullptr);
    --sockets_;
  }
  connection.fail(Status::IoError);
  fail_outstanding(connection, Status::IoError);
  // The endpoints on it fail from now on; their owner learns why.
  if (on_failure_ != nullptr) {
    for (TcpEp* ep = eps_.front(); ep != nullptr; ep = eps_.next(ep)) {
      if (&ep->connection() == &connection) on_failure_(failure_arg_, this, ep, what);
    }
  }
}

void TcpIface::discard(TcpConnection& connection) {
  if (connection.fd() >= 0) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, connection.fd(), nullptr);
    --sockets_;
  }
  connection.fail(Status::Canceled);
  if (std::find(graveyard_.begin(), graveyard_.end(), &connection) == graveyard_.end()) {
    graveyard_.push_back(&connection);
  }
}

void TcpIface::reap() {
  for (TcpConnection* dead : graveyard_) {
    auto owned = std::find_if(connections_.begin(), connections_.end(),
                              [&](const auto& c) { return c.get() == dead; });
    if (owned == connections_.end()) continue;
    for (auto it = by_peer_.begin(); it != by_peer_.end(); ++it) {
      if (it->second == dead) {
        by_peer_.erase(it);
        break;
      }
    }
    blocked_.erase(std::remove(blocked_.begin(), blocked_.end(), dead), blocked_.end());
    connections_.erase(owned);
  }
  graveyard_.clear();
}

unsigned TcpIface::progress() {
  // Before any connection exists only a listener can have news, and an
  // accept that waits a few polls costs nothing: keep the syscall out of
  // the wait loops of jobs that talk only through shm.
  if (TERN_LIKELY(sockets_ == 0) && blocked_.empty()) {
    if ((++idle_polls_ & 31) != 0) return 0;
  }
  epoll_event events[32];
  const int ready = epoll_wait(epoll_fd_, events, 32, 0);
  unsigned handled = 0;
  for (int i = 0; i < ready; ++i) {
    const auto raw = reinterpret_cast<uintptr_t>(events[i].data.ptr);
    if ((raw & 1) != 0) {
      accept_all(reinterpret_cast<Watch*>(raw & ~uintptr_t{1})->listen_fd);
      continue;
    }
    auto* connection = static_cast<TcpConnection*>(events[i].data.ptr);
    if (std::find(graveyard_.begin(), graveyard_.end(), connection) != graveyard_.end()) continue;
    if (connection->fd() < 0) continue;
    if ((events[i].events & EPOLLOUT) != 0) on_writable(*connection);
    if ((events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0 &&
        connection->state() != TcpConnection::State::Connecting) {
      handled += connection->read();
    }
    if (connection->has_room() && !connection->pending.empty()) blocked_.push_back(connection);
  }
  if (TERN_UNLIKELY(!blocked_.empty())) {
    std::vector<TcpConnection*> ready_now;
    ready_now.swap(blocked_);
    for (TcpConnection* connection : ready_now) {
      if (connection->pending.empty()) continue;
      if (connection->state() == TcpConnection::State::Open && !connection->has_room()) {
        blocked_.push_back(connection);
        continue;
      }
      if (connection->state() != TcpConnection::State::Open && connection->state() != TcpConnection::State::Failed) {
        continue;  // opening: open_connection schedules it again
      }
      handled += connection->pending.dispatch();
    }
  }
  if (TERN_UNLIKELY(!graveyard_.empty())) reap();
  return handled;
}

Status TcpIface::arm() {
  if (!blocked_.empty()) return Status::Busy;
  epoll_event event;
  // Level triggered: looking does not consume the event.
  return epoll_wait(epoll_fd_, &event, 1, 0) > 0 ? Status::Busy : Status::Ok;
}

void TcpIface::shut_down_connections() noexcept {
  // A send is complete once its bytes are queued, so queued bytes must still
  // reach the peer (the last message of a barrier, an acknowledgement), even
  // where the connection is still being made. Arriving messages are dropped:
  // the worker is going away. A peer that is gone ends the wait early (its
  // connection fails); a stuck one after a few seconds.
  for (Handler& handler : handlers_) handler = {};
  auto queued = [&] {
    for (auto& connection : connections_) {
      if (!connection->tx_idle() && connection->state() != TcpConnection::State::Failed) return true;
    }
    return false;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (queued() && std::chrono::steady_clock::now() < deadline) {
    if (progress() == 0) usleep(50);
  }
  if (queued()) TERN_LOG(Warn, "tcp: messages to some peers were still unsent after 5 s at shutdown");
  for (auto& connection : connections_) {
    if (connection->fd() >= 0) shutdown(connection->fd(), SHUT_WR);
  }
}

}  // namespace tcp

std::unique_ptr<Iface> create_tcp_iface(const IfaceParams& params, Status& status) {
  return tcp::TcpIface::create(params, status);
}

}  // namespace tern::engine::transport
