// One TCP connection between two workers: a non-blocking socket, the frames
// queued for it (copied, or zero copy from the caller's memory until written)
// and the parser of what arrives. The iface decides what frames mean; the
// connection only moves and checks bytes.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "tcp_wire.hpp"
#include "transport/completion.hpp"
#include "transport/ep_pending_queue.hpp"
#include "tern/runtime/status.hpp"

namespace tern::engine::transport::tcp {

class TcpIface;

class TcpConnection {
 public:
  enum class State : uint8_t {
    Idle,         // no socket yet: connects on first send
    Connecting,   // connect() in progress
    Handshaking,  // our Hello sent; waiting for Accept or Reject
    Accepting,    // accepted; waiting for the peer's Hello
    Waiting,      // lost a simultaneous connect: no socket, the peer's is coming
    Open,
    Failed,
  };

  TcpConnection(TcpIface& iface, int fd, State state, std::size_t rx_capacity, std::size_t tx_limit);
  ~TcpConnection();
  TcpConnection(const TcpConnection&) = delete;
  TcpConnection& operator=(const TcpConnection&) = delete;

  [[nodiscard]] int fd() const noexcept { return fd_; }
  [[nodiscard]] State state() const noexcept { return state_; }
  void set_state(State state) noexcept { state_ = state; }
  // Gives the connection another socket (the winner of a simultaneous
  // connect); the old one, if any, is closed. Queued frames stay queued.
  void replace_socket(int fd, State state) noexcept;
  // Hands the socket over (to the connection that adopts it): this one is
  // left without, failed, and closes nothing.
  [[nodiscard]] int release_socket() noexcept {
    const int fd = fd_;
    fd_ = -1;
    state_ = State::Failed;
    return fd;
  }

  // Bytes `from` read past its handshake, parsed here next (a connection
  // that adopts another's socket).
  void take_unread(TcpConnection& from);
  // Parses what is buffered without reading the socket; returns frames handled.
  unsigned parse_buffered() { return parse(); }

  // Queues one frame of `header` and up to two pieces (copied). Ok once
  // queued or written; WouldBlock when too much is queued already; IoError on
  // a failed connection.
  [[nodiscard]] Status send_copy(FrameHeader header, const void* a, std::size_t a_length, const void* b = nullptr,
                                 std::size_t b_length = 0);
  // A frame of `header`, `body` (copied) and `data`, which is read from the
  // caller's memory as the socket takes it: Ok when all of it was written at
  // once, InProgress when `comp` fires later (IoError if the connection fails).
  [[nodiscard]] Status send_zcopy(FrameHeader header, const void* body, std::size_t body_length, const void* data,
                                  std::size_t data_length, Completion* comp);
  // Handshake frames go out ahead of anything queued.
  [[nodiscard]] Status send_handshake(const HandshakeBody& body);

  [[nodiscard]] bool has_room() const noexcept { return staged_bytes() < tx_limit_; }
  // Replies to the peer's requests (gets, flushes, atomics) are queued
  // past tx_limit, since dropping one would hang the peer; but a peer that
  // keeps asking and never reads is not served without end.
  [[nodiscard]] bool backlog_bearable() const noexcept {
    return staged_bytes() <= kBacklogLimits * tx_limit_ && tx_.size() <= kMaxQueuedFrames;
  }
  [[nodiscard]] bool tx_idle() const noexcept { return tx_.empty(); }
  [[nodiscard]] bool wants_write() const noexcept { return !tx_.empty() && state_ == State::Open; }

  // Writes what the socket takes. Returns completions fired.
  unsigned flush();
  // Reads what the socket has and hands complete frames to the iface.
  // Returns frames handled.
  unsigned read();

  // Fails every queued zero copy with `reason` and closes the socket.
  void fail(Status reason) noexcept;

  EpPendingQueue pending;
  uint64_t peer_uuid = 0;
  std::string peer_name;  // the peer's address and port, for messages
  std::string via;        // our interface it goes through
  bool write_armed = false;  // EPOLLOUT is in the epoll set
  bool puts_unflushed = false;  // a put went out since the last flush

 private:
  static constexpr std::size_t kBacklogLimits = 16;
  static constexpr std::size_t kMaxQueuedFrames = std::size_t{1} << 20;

  struct TxItem {
    const std::byte* data;  // zero copy: the caller's bytes; null: at `staged` in staging_
    std::size_t staged;
    std::size_t length;
    Completion* comp;
  };

  [[nodiscard]] std::size_t staged_bytes() const noexcept { return staging_.size() - staging_consumed_; }
  void stage(const void* data, std::size_t length);
  void stage_iov(const iovec* iov, int count, std::size_t skip);
  // Bytes of `iov` written at once (0 when the socket is full), or -1 on error.
  [[nodiscard]] ssize_t write_now(const iovec* iov, int count);
  void compact_staging() noexcept;
  // After the bulk data of a GetReply or Put has fully arrived.
  unsigned finish_bulk();
  // Parses whole frames from the rx buffer; returns frames handled.
  unsigned parse();
  unsigned parse_frames();
  void release_rx() noexcept;
  void read_failed(ssize_t result);

  TcpIface& iface_;
  int fd_;
  State state_;
  std::size_t tx_limit_;
  std::deque<TxItem> tx_;
  std::size_t tx_head_written_ = 0;  // bytes of tx_.front() already written
  std::vector<std::byte> staging_;
  std::size_t staging_consumed_ = 0;  // leading bytes of staging_ already written

  unsigned parsing_ = 0;  // parse() calls under way
  std::size_t rx_capacity_;
  std::vector<std::byte> rx_;
  std::size_t rx_begin_ = 0;
  std::size_t rx_end_ = 0;
  // A GetReply or Put whose data goes straight to its destination.
  bool bulk_active_ = false;
  FrameHeader bulk_header_{};
  std::byte bulk_body_[sizeof(GetReplyBody)] = {};
  std::byte* bulk_destination_ = nullptr;
  std::size_t bulk_length_ = 0;
  std::size_t bulk_received_ = 0;
};

}  // namespace tern::engine::transport::tcp
