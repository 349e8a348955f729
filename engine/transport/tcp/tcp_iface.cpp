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

// One GetReply frame carries at most this much (its length field is 32 bits).
constexpr std::size_t kMaxReplyData = std::size_t{1} << 30;

bool equal_secret(const uint8_t* a, const uint8_t* b) noexcept {
  uint8_t difference = 0;  // constant time: no early exit on the first wrong byte
  for (std::size_t i = 0; i < kSecretBytes; ++i) difference = static_cast<uint8_t>(difference | (a[i] ^ b[i]));
  return difference == 0;
}

std::string peer_of(int fd) {
  sockaddr_in peer{};
  socklen_t length = sizeof(peer);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) != 0 || peer.sin_family != AF_INET) return "?";
  InterfaceAddress address;
  address.ip = peer.sin_addr.s_addr;
  address.port = peer.sin_port;
  return address.to_string();
}

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

TcpIface::TcpIface(const IfaceParams& params, int epoll_fd) : uuid_(params.worker_uuid), epoll_fd_(epoll_fd) {
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

void TcpIface::start_connect(TcpConnection& connection) {
  auto target = targets_.find(&connection);
  if (target == targets_.end() || target->second.listeners.empty()) {
    connection_failed(connection, Status::Unreachable, 0);
    return;
  }
  const InterfaceAddress& to = target->second.listeners.front();
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    connection_failed(connection, Status::IoError, errno);
    return;
  }
  const int one = 1;
  if (nodelay_) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (sndbuf_ > 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf_, sizeof(sndbuf_));
  if (rcvbuf_ > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf_, sizeof(rcvbuf_));
  sockaddr_in peer{};
  peer.sin_family = AF_INET;
  peer.sin_addr.s_addr = to.ip;
  peer.sin_port = to.port;
  connection.replace_socket(fd, TcpConnection::State::Connecting);
  ++sockets_;
  if (connect(fd, reinterpret_cast<sockaddr*>(&peer), sizeof(peer)) != 0 && errno != EINPROGRESS) {
    connection_failed(connection, Status::Unreachable, errno);
    return;
  }
  // Writable once connected (or failed).
  watch(connection, EPOLLIN | EPOLLOUT);
}

void TcpIface::on_writable(TcpConnection& connection) {
  if (connection.state() == TcpConnection::State::Connecting) {
    int error = 0;
    socklen_t length = sizeof(error);
    if (getsockopt(connection.fd(), SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
    if (error != 0) {
      connection_failed(connection, Status::Unreachable, error);
      return;
    }
    HandshakeBody hello{kHandshakeMagic, kHandshakeVersion, static_cast<uint16_t>(HandshakeKind::Hello), uuid_, {}};
    auto target = targets_.find(&connection);
    if (target != targets_.end()) std::memcpy(hello.secret, target->second.secret.data(), kSecretBytes);
    if (connection.send_handshake(hello) != Status::Ok) {
      connection_failed(connection, Status::IoError, errno);
      return;
    }
    connection.set_state(TcpConnection::State::Handshaking);
    watch(connection, EPOLLIN);
    return;
  }
  (void)connection.flush();
  if (connection.state() == TcpConnection::State::Open && connection.tx_idle() && connection.write_armed) {
    watch(connection, EPOLLIN);
  }
}

std::string TcpIface::interface_of(int fd) const {
  sockaddr_in local{};
  socklen_t length = sizeof(local);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
    for (const InterfaceAddress& candidate : interfaces_) {
      if (candidate.ip == local.sin_addr.s_addr) return candidate.name;
    }
  }
  return "?";
}

void TcpIface::accept_all(int listen_fd) {
  for (;;) {
    const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) TERN_LOG(Warn, "tcp: accept: %s", std::strerror(errno));
      return;
    }
    const int one = 1;
    if (nodelay_) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (sndbuf_ > 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf_, sizeof(sndbuf_));
    if (rcvbuf_ > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf_, sizeof(rcvbuf_));
    TcpConnection* connection = new_connection(fd, TcpConnection::State::Accepting, peer_of(fd));
    connection->via = interface_of(fd);
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.ptr = connection;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) {
      TERN_LOG(Error, "tcp: epoll_ctl: %s", std::strerror(errno));
      discard(*connection);
    }
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
      if (handler.fn != nullptr) handler.fn(handler.arg, body, length);
      return;
    }
    case FrameType::GetRequest: {
      GetRequestBody request{};
      if (length != sizeof(request)) break;
      std::memcpy(&request, body, sizeof(request));
      serve_get(connection, request);
      return;
    }
    case FrameType::Flush: {
      FlushBody flush{};
      if (length != sizeof(flush)) break;
      std::memcpy(&flush, body, sizeof(flush));
      FrameHeader reply{sizeof(flush), static_cast<uint8_t>(FrameType::FlushReply), 0, 0};
      if (connection.send_copy(reply, &flush, sizeof(flush)) == Status::WouldBlock) {
        // Replies may exceed the queue limit: dropping one would hang the peer.
        (void)connection.flush();
        while (connection.send_copy(reply, &flush, sizeof(flush)) == Status::WouldBlock) (void)connection.flush();
      }
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

void TcpIface::on_handshake(TcpConnection& connection, const HandshakeBody& body) {
  if (body.magic != kHandshakeMagic || body.version != kHandshakeVersion) {
    protocol_error(connection, "handshake with a wrong magic number or version");
    return;
  }
  const auto kind = static_cast<HandshakeKind>(body.kind);
  if (connection.state() == TcpConnection::State::Accepting) {
    if (kind != HandshakeKind::Hello || !equal_secret(body.secret, own_address_.secret.data())) {
      TERN_LOG(Warn, "tcp: refused a connection from %s: it did not present this job's secret",
               connection.peer_name.c_str());
      discard(connection);
      return;
    }
    connection.peer_uuid = body.worker_uuid;
    auto it = by_peer_.find(body.worker_uuid);
    TcpConnection* existing = it == by_peer_.end() ? nullptr : it->second;
    if (existing == nullptr) {
      by_peer_[body.worker_uuid] = &connection;
      open_connection(connection);
      return;
    }
    using State = TcpConnection::State;
    const bool ours_in_flight = existing->state() == State::Connecting || existing->state() == State::Handshaking;
    if (existing->state() == State::Failed) {
      TERN_LOG(Warn, "tcp: refused a new connection from peer %016llx (%s): its earlier one failed",
               static_cast<unsigned long long>(body.worker_uuid), connection.peer_name.c_str());
      discard(connection);
      return;
    }
    if (existing->state() == State::Open) {
      // The peer's own attempt, given up once ours was accepted.
      TERN_LOG(Debug, "tcp: refused a second connection from peer %016llx (%s)",
               static_cast<unsigned long long>(body.worker_uuid), connection.peer_name.c_str());
      discard(connection);
      return;
    }
    if (ours_in_flight && uuid_ > body.worker_uuid) {
      // Both connected at once and ours wins: the peer waits for it.
      HandshakeBody reject{kHandshakeMagic, kHandshakeVersion, static_cast<uint16_t>(HandshakeKind::Reject), uuid_, {}};
      (void)connection.send_handshake(reject);
      discard(connection);
      return;
    }
    adopt(*existing, connection);
    return;
  }
  if (connection.state() == TcpConnection::State::Handshaking) {
    if (kind == HandshakeKind::Accept) {
      open_connection(connection);
    } else if (kind == HandshakeKind::Reject) {
      // The peer's own connection is on its way; ours goes.
      if (connection.fd() >= 0) {
        epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, connection.fd(), nullptr);
        --sockets_;
      }
      connection.replace_socket(-1, TcpConnection::State::Waiting);
    } else {
      protocol_error(connection, "unexpected handshake");
    }
    return;
  }
  protocol_error(connection, "handshake on an open connection");
}

void TcpIface::adopt(TcpConnection& existing, TcpConnection& accepted) {
  // The existing connection object keeps its queue and its endpoints; it
  // takes the accepted socket (and drops its own attempt, if any).
  const int fd = accepted.release_socket();
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  if (existing.fd() >= 0) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, existing.fd(), nullptr);
    --sockets_;
  }
  existing.peer_name = accepted.peer_name;
  existing.via = accepted.via;
  existing.replace_socket(fd, TcpConnection::State::Accepting);
  existing.take_unread(accepted);
  // `accepted` counted its socket, which `existing` now holds.
  discard(accepted);
  watch(existing, EPOLLIN);
  open_connection(existing);
  // A peer sends nothing before our Accept; a stranger may have.
  (void)existing.parse_buffered();
}

void TcpIface::open_connection(TcpConnection& connection) {
  if (connection.state() == TcpConnection::State::Accepting) {
    HandshakeBody accept{kHandshakeMagic, kHandshakeVersion, static_cast<uint16_t>(HandshakeKind::Accept), uuid_, {}};
    if (connection.send_handshake(accept) != Status::Ok) {
      connection_failed(connection, Status::IoError, errno);
      return;
    }
  }
  connection.set_state(TcpConnection::State::Open);
  TERN_LOG(Debug, "tcp: connected to peer %016llx (%s)", static_cast<unsigned long long>(connection.peer_uuid),
           connection.peer_name.c_str());
  (void)connection.flush();
  if (!connection.tx_idle()) watch(connection, EPOLLIN | EPOLLOUT);
  if (!connection.pending.empty()) blocked_.push_back(&connection);
}

std::byte* TcpIface::region_pointer(uint64_t key, uint64_t address, uint64_t length) noexcept {
  const Region* region = regions_.find(key);
  if (region == nullptr || address < region->base || address - region->base > region->length ||
      length > region->length - (address - region->base)) {
    return nullptr;
  }
  return reinterpret_cast<std::byte*>(address);
}

uint64_t TcpIface::register_region(const void* base, std::size_t length) {
  return regions_.add({reinterpret_cast<uintptr_t>(base), length});
}

void TcpIface::serve_get(TcpConnection& connection, const GetRequestBody& request) {
  const std::byte* source = region_pointer(request.key, request.address, request.length);
  FrameHeader header{0, static_cast<uint8_t>(FrameType::GetReply), 0, 0};
  if (source == nullptr) {
    TERN_LOG(Error, "tcp: peer %s asked for %llu bytes at %#llx, which it was not offered",
             connection.peer_name.c_str(), static_cast<unsigned long long>(request.length),
             static_cast<unsigned long long>(request.address));
    GetReplyBody reply{request.get_id, 0, static_cast<int64_t>(Status::InvalidParam)};
    header.length = sizeof(reply);
    (void)connection.send_zcopy(header, &reply, sizeof(reply), nullptr, 0, nullptr);
    return;
  }
  for (uint64_t offset = 0; offset < request.length || offset == 0;) {
    const std::size_t chunk = static_cast<std::size_t>(std::min<uint64_t>(request.length - offset, kMaxReplyData));
    GetReplyBody reply{request.get_id, offset, static_cast<int64_t>(Status::Ok)};
    header.length = static_cast<uint32_t>(sizeof(reply) + chunk);
    if (connection.send_zcopy(header, &reply, sizeof(reply), source + offset, chunk, nullptr) == Status::IoError) {
      return;
    }
    offset += chunk;
    if (chunk == 0) break;
  }
}

void TcpIface::serve_atomic(TcpConnection& connection, const AtomicBody& request) {
  AtomicReplyBody reply{request.reply_id, 0, static_cast<int64_t>(Status::Ok)};
  std::byte* target = region_pointer(request.key, request.address, request.size);
  if (target == nullptr || (request.size != 4 && request.size != 8) ||
      reinterpret_cast<uintptr_t>(target) % request.size != 0) {
    TERN_LOG(Error, "tcp: peer %s sent an atomic on memory it may not reach", connection.peer_name.c_str());
    reply.status = static_cast<int64_t>(Status::InvalidParam);
  } else {
    auto apply = [&](auto* word) {
      using T = std::remove_pointer_t<decltype(word)>;
      const T operand = static_cast<T>(request.operand);
      T old = 0;
      switch (static_cast<AtomicOp>(request.op)) {
        case AtomicOp::Add: case AtomicOp::FetchAdd: old = __atomic_fetch_add(word, operand, __ATOMIC_SEQ_CST); break;
        case AtomicOp::And: case AtomicOp::FetchAnd: old = __atomic_fetch_and(word, operand, __ATOMIC_SEQ_CST); break;
        case AtomicOp::Or: case AtomicOp::FetchOr: old = __atomic_fetch_or(word, operand, __ATOMIC_SEQ_CST); break;
        case AtomicOp::Xor: case AtomicOp::FetchXor: old = __atomic_fetch_xor(word, operand, __ATOMIC_SEQ_CST); break;
        case AtomicOp::Swap: old = __atomic_exchange_n(word, operand, __ATOMIC_SEQ_CST); break;
        case AtomicOp::CompareSwap: {
          T expected = static_cast<T>(request.compare);
          __atomic_compare_exchange_n(word, &expected, operand, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
          old = expected;
          break;
        }
        default:
          reply.status = static_cast<int64_t>(Status::InvalidParam);
      }
      reply.value = static_cast<uint64_t>(old);
    };
    if (request.size == 4) apply(reinterpret_cast<uint32_t*>(target));
    else apply(reinterpret_cast<uint64_t*>(target));
  }
  if (request.reply_id == 0) return;
  FrameHeader header{sizeof(reply), static_cast<uint8_t>(FrameType::AtomicReply), 0, 0};
  (void)connection.send_zcopy(header, &reply, sizeof(reply), nullptr, 0, nullptr);
}

Status TcpIface::start_get(TcpConnection& connection, void* local, std::size_t length, RemoteMemory remote,
                           Completion* comp) {
  if (length == 0) return Status::Ok;
  if (local == nullptr || remote.address == 0 || remote.key == 0) return Status::InvalidParam;
  if (connection.state() == TcpConnection::State::Failed) return Status::IoError;
  const uint64_t get_id = gets_.add({static_cast<std::byte*>(local), length, 0, comp, &connection});
  GetRequestBody request{remote.address, remote.key, length, get_id};
  FrameHeader header{sizeof(request), static_cast<uint8_t>(FrameType::GetRequest), 0, 0};
  // A request is small and must not be refused for a full queue: the engine
  // does not retry gets.
  const Status status = connection.send_zcopy(header, &request, sizeof(request), nullptr, 0, nullptr);
  if (status == Status::IoError) {
    gets_.remove(get_id);
    return status;
  }
  return Status::InProgress;
}

Status TcpIface::start_flush(TcpConnection& connection, Completion* comp) {
  if (connection.state() == TcpConnection::State::Failed) return Status::IoError;
  bool outstanding = !connection.tx_idle();
  gets_.for_each([&](uint64_t, GetInFlight& get) { outstanding = outstanding || get.connection == &connection; });
  if (!outstanding && !connection.puts_unflushed) return Status::Ok;
  const uint64_t flush_id = flushes_.add({comp, &connection});
  FlushBody body{flush_id};
  FrameHeader header{sizeof(body), static_cast<uint8_t>(FrameType::Flush), 0, 0};
  if (connection.send_zcopy(header, &body, sizeof(body), nullptr, 0, nullptr) == Status::IoError) {
    flushes_.remove(flush_id);
    return Status::IoError;
  }
  connection.puts_unflushed = false;
  return Status::InProgress;
}

std::byte* TcpIface::bulk_destination(TcpConnection& connection, const FrameHeader& header, const std::byte* body,
                                      std::size_t data_length) {
  if (connection.state() != TcpConnection::State::Open) {
    protocol_error(connection, "data before the handshake");
    return nullptr;
  }
  if (static_cast<FrameType>(header.type) == FrameType::Put) {
    PutBody put{};
    std::memcpy(&put, body, sizeof(put));
    std::byte* destination = region_pointer(put.key, put.address, data_length);
    if (destination == nullptr) {
      TERN_LOG(Error, "tcp: peer %s put %zu bytes at %#llx, which is not registered memory",
               connection.peer_name.c_str(), data_length, static_cast<unsigned long long>(put.address));
    }
    return destination;
  }
  GetReplyBody reply{};
  std::memcpy(&reply, body, sizeof(reply));
  GetInFlight* get = gets_.find(reply.get_id);
  if (get == nullptr || get->connection != &connection) {
    protocol_error(connection, "reply to a get that is not in flight");
    return nullptr;
  }
  if (reply.status != 0) {
    if (data_length != 0) {
      protocol_error(connection, "a failed get's reply carries data");
      return nullptr;
    }
    return nullptr;
  }
  if (reply.offset > get->length || data_length > get->length - reply.offset) {
    protocol_error(connection, "get reply beyond the get's buffer");
    return nullptr;
  }
  return get->destination + reply.offset;
}

void TcpIface::bulk_done(TcpConnection& connection, const FrameHeader& header, const std::byte* body,
                         std::size_t data_length) {
  if (static_cast<FrameType>(header.type) == FrameType::Put) return;
  GetReplyBody reply{};
  std::memcpy(&reply, body, sizeof(reply));
  GetInFlight* get = gets_.find(reply.get_id);
  if (get == nullptr || get->connection != &connection) return;  // checked in bulk_destination
  Completion* comp = get->comp;
  if (reply.status != 0) {
    TERN_LOG(Error, "tcp: peer %s refused a get of %zu bytes: %s", connection.peer_name.c_str(), get->length,
             to_string(static_cast<Status>(reply.status)));
    gets_.remove(reply.get_id);
    if (comp != nullptr) comp->finish_one(static_cast<Status>(reply.status));
    return;
  }
  get->received += data_length;
  if (get->received < get->length) return;
  gets_.remove(reply.get_id);
  if (comp != nullptr) comp->finish_one(Status::Ok);
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
  if (outstanding || reason == Status::Unreachable) {
    TERN_LOG(Error, "tcp: connection to peer %016llx (%s) failed: %s", static_cast<unsigned long long>(connection.peer_uuid),
             connection.peer_name.c_str(), why);
  } else {
    TERN_LOG(Debug, "tcp: connection to peer %016llx (%s) ended: %s", static_cast<unsigned long long>(connection.peer_uuid),
             connection.peer_name.c_str(), why);
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
  if (connection.state() == TcpConnection::State::Accepting) {
    TERN_LOG(Warn, "tcp: refused a connection from %s: %s", connection.peer_name.c_str(), what);
    discard(connection);
    return;
  }
  TERN_LOG(Error, "tcp: dropping the connection to peer %016llx (%s): %s",
           static_cast<unsigned long long>(connection.peer_uuid), connection.peer_name.c_str(), what);
  if (connection.fd() >= 0) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, connection.fd(), nullptr);
    --sockets_;
  }
  connection.fail(Status::IoError);
  fail_outstanding(connection, Status::IoError);
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
