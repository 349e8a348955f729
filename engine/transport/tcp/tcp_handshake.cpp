// Making connections: connecting on first send, accepting, the handshake
// that checks a connecting peer's secret before anything else is read, and
// the simultaneous-connect tie-break (the connection opened by the larger
// worker uuid wins; the other side adopts its socket).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tcp_iface.hpp"
#include "tern/runtime/compiler.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine::transport::tcp {
namespace {

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

}  // namespace tern::engine::transport::tcp
