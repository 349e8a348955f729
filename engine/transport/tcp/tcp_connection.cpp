#include "tcp_connection.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tcp_iface.hpp"
#include "tern/runtime/compiler.hpp"

namespace tern::engine::transport::tcp {

namespace {

// A put of one naturally aligned word lands with one atomic store (release,
// for the acquire load of a waiter): the target may be a variable another
// thread of the target process watches (an OpenSHMEM wait_until while a
// progress thread delivers the put), and a word written piecewise or
// non-atomically would race with that read.
template <typename Word>
bool store_word(std::byte* destination, const std::byte* source) noexcept {
  if (reinterpret_cast<uintptr_t>(destination) % sizeof(Word) != 0) return false;
  Word word;
  std::memcpy(&word, source, sizeof(Word));
  __atomic_store_n(reinterpret_cast<Word*>(destination), word, __ATOMIC_RELEASE);
  return true;
}

void copy_to_target(std::byte* destination, const std::byte* source, std::size_t length) noexcept {
  const bool stored = (length == 1 && store_word<uint8_t>(destination, source)) ||
                      (length == 2 && store_word<uint16_t>(destination, source)) ||
                      (length == 4 && store_word<uint32_t>(destination, source)) ||
                      (length == 8 && store_word<uint64_t>(destination, source));
  if (!stored) std::memcpy(destination, source, length);
}

constexpr int kMaxIov = 64;

std::size_t bulk_body_size(FrameType type) noexcept {
  return type == FrameType::GetReply ? sizeof(GetReplyBody) : sizeof(PutBody);
}

bool is_bulk(uint8_t type) noexcept {
  return type == static_cast<uint8_t>(FrameType::GetReply) || type == static_cast<uint8_t>(FrameType::Put);
}

}  // namespace

TcpConnection::TcpConnection(TcpIface& iface, int fd, State state, std::size_t rx_capacity, std::size_t tx_limit)
    : iface_(iface), fd_(fd), state_(state), tx_limit_(tx_limit), rx_capacity_(rx_capacity), rx_(rx_capacity) {}

TcpConnection::~TcpConnection() {
  if (fd_ >= 0) close(fd_);
}

void TcpConnection::replace_socket(int fd, State state) noexcept {
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
  state_ = state;
  write_armed = false;
  rx_begin_ = rx_end_ = 0;
  if (rx_.size() < rx_capacity_) rx_.resize(rx_capacity_);
  bulk_active_ = false;
}

void TcpConnection::stage(const void* data, std::size_t length) {
  if (length == 0) return;
  const std::size_t at = staging_.size();
  const auto* bytes = static_cast<const std::byte*>(data);
  staging_.insert(staging_.end(), bytes, bytes + length);
  // Consecutive copied bytes make one item, so a burst of small frames
  // leaves in one iovec.
  if (!tx_.empty() && tx_.back().data == nullptr && tx_.back().staged + tx_.back().length == at) {
    tx_.back().length += length;
  } else {
    tx_.push_back({nullptr, at, length, nullptr});
  }
}

void TcpConnection::stage_iov(const iovec* iov, int count, std::size_t skip) {
  for (int i = 0; i < count; ++i) {
    if (skip >= iov[i].iov_len) {
      skip -= iov[i].iov_len;
      continue;
    }
    stage(static_cast<const std::byte*>(iov[i].iov_base) + skip, iov[i].iov_len - skip);
    skip = 0;
  }
}

ssize_t TcpConnection::write_now(const iovec* iov, int count) {
  msghdr message{};
  message.msg_iov = const_cast<iovec*>(iov);
  message.msg_iovlen = static_cast<std::size_t>(count);
  for (;;) {
    const ssize_t written = sendmsg(fd_, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (written >= 0) return written;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    return -1;
  }
}

Status TcpConnection::send_copy(FrameHeader header, const void* a, std::size_t a_length, const void* b,
                                std::size_t b_length) {
  if (TERN_UNLIKELY(state_ == State::Failed)) return Status::IoError;
  const iovec iov[3] = {{&header, sizeof(header)}, {const_cast<void*>(a), a_length}, {const_cast<void*>(b), b_length}};
  const int count = b_length != 0 ? 3 : (a_length != 0 ? 2 : 1);
  std::size_t written = 0;
  if (TERN_LIKELY(tx_.empty() && state_ == State::Open)) {
    const ssize_t result = write_now(iov, count);
    if (TERN_UNLIKELY(result < 0)) {
      iface_.connection_failed(*this, Status::IoError, errno);
      return Status::IoError;
    }
    written = static_cast<std::size_t>(result);
    if (TERN_LIKELY(written == sizeof(header) + a_length + b_length)) return Status::Ok;
  } else if (!has_room()) {
    return Status::WouldBlock;
  }
  stage_iov(iov, count, written);
  iface_.want_write(*this);
  return Status::Ok;
}

Status TcpConnection::send_zcopy(FrameHeader header, const void* body, std::size_t body_length, const void* data,
                                 std::size_t data_length, Completion* comp) {
  if (state_ == State::Failed) return Status::IoError;
  const iovec iov[3] = {{&header, sizeof(header)}, {const_cast<void*>(body), body_length},
                        {const_cast<void*>(data), data_length}};
  std::size_t written = 0;
  if (tx_.empty() && state_ == State::Open) {
    const ssize_t result = write_now(iov, 3);
    if (result < 0) {
      iface_.connection_failed(*this, Status::IoError, errno);
      return Status::IoError;
    }
    written = static_cast<std::size_t>(result);
    if (written == sizeof(header) + body_length + data_length) return Status::Ok;
  }
  const std::size_t head = sizeof(header) + body_length;
  if (written < head) {
    stage_iov(iov, 2, written);
    written = head;
  }
  const std::size_t data_done = written - head;
  // Without data the frame is copied whole: nothing of the caller's to wait for.
  if (data_length == 0) {
    iface_.want_write(*this);
    return Status::Ok;
  }
  tx_.push_back({static_cast<const std::byte*>(data) + data_done, 0, data_length - data_done, comp});
  iface_.want_write(*this);
  return Status::InProgress;
}

Status TcpConnection::send_handshake(const HandshakeBody& body) {
  FrameHeader header{sizeof(body), static_cast<uint8_t>(FrameType::Handshake), 0, 0};
  const iovec iov[2] = {{&header, sizeof(header)}, {const_cast<HandshakeBody*>(&body), sizeof(body)}};
  // A new socket's buffer takes 40 bytes; anything else is a broken socket.
  const ssize_t written = write_now(iov, 2);
  return written == static_cast<ssize_t>(sizeof(header) + sizeof(body)) ? Status::Ok : Status::IoError;
}

void TcpConnection::take_unread(TcpConnection& from) {
  const std::size_t unread = from.rx_end_ - from.rx_begin_;
  if (unread == 0) return;
  if (rx_end_ + unread > rx_.size()) rx_.resize(rx_end_ + unread);
  std::memcpy(rx_.data() + rx_end_, from.rx_.data() + from.rx_begin_, unread);
  rx_end_ += unread;
  from.rx_begin_ = from.rx_end_ = 0;
}

void TcpConnection::compact_staging() noexcept {
  if (staging_consumed_ == 0) return;
  if (tx_.empty()) {
    staging_.clear();
    staging_consumed_ = 0;
    return;
  }
  // Only now and then: moving the unsent bytes costs their length.
  if (staging_consumed_ < (std::size_t{64} << 10) || staging_consumed_ < staging_.size() / 2) return;
  staging_.erase(staging_.begin(), staging_.begin() + static_cast<std::ptrdiff_t>(staging_consumed_));
  for (TxItem& item : tx_) {
    if (item.data == nullptr) item.staged -= staging_consumed_;
  }
  staging_consumed_ = 0;
}

unsigned TcpConnection::flush() {
  unsigned completions = 0;
  while (!tx_.empty() && state_ == State::Open) {
    iovec iov[kMaxIov];
    int count = 0;
    std::size_t skip = tx_head_written_;
    for (auto it = tx_.begin(); it != tx_.end() && count < kMaxIov; ++it, ++count) {
      const std::byte* base = it->data != nullptr ? it->data : staging_.data() + it->staged;
      iov[count] = {const_cast<std::byte*>(base) + skip, it->length - skip};
      skip = 0;
    }
    ssize_t result = write_now(iov, count);
    if (result < 0) {
      iface_.connection_failed(*this, Status::IoError, errno);
      return completions;
    }
    if (result == 0) break;
    auto left = static_cast<std::size_t>(result);
    while (left > 0 && !tx_.empty()) {
      TxItem& front = tx_.front();
      const std::size_t remaining = front.length - tx_head_written_;
      if (left < remaining) {
        tx_head_written_ += left;
        break;
      }
      left -= remaining;
      tx_head_written_ = 0;
      if (front.data == nullptr) staging_consumed_ = front.staged + front.length;
      Completion* comp = front.comp;
      tx_.pop_front();
      if (comp != nullptr) {
        comp->finish_one(Status::Ok);
        ++completions;
      }
    }
    compact_staging();
  }
  if (tx_.empty()) compact_staging();
  return completions;
}

void TcpConnection::fail(Status reason) noexcept {
  state_ = State::Failed;
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  // The callbacks may queue more on this connection: take the queue first.
  std::deque<TxItem> items;
  items.swap(tx_);
  staging_.clear();
  staging_consumed_ = 0;
  tx_head_written_ = 0;
  for (TxItem& item : items) {
    if (item.comp != nullptr) item.comp->finish_one(reason);
  }
  bulk_active_ = false;
  std::vector<std::byte>().swap(staging_);
  if (parsing_ == 0) release_rx();
}

void TcpConnection::release_rx() noexcept {
  // A failed connection stays known (its peer may not come back) but
  // keeps no buffer: peers that fail one connection after another must
  // not pile up their receive buffers here. Not while a frame in it is
  // being handled (a handler's reply may fail the connection).
  std::vector<std::byte>().swap(rx_);
  rx_begin_ = rx_end_ = 0;
}

void TcpConnection::read_failed(ssize_t result) {
  if (result == 0) {
    iface_.connection_failed(*this, Status::IoError, 0);
  } else {
    iface_.connection_failed(*this, Status::IoError, errno);
  }
}

unsigned TcpConnection::read() {
  unsigned handled = 0;
  while (fd_ >= 0 && state_ != State::Failed && state_ != State::Connecting) {
    if (bulk_active_) {
      const std::size_t wanted = bulk_length_ - bulk_received_;
      const ssize_t got = recv(fd_, bulk_destination_ + bulk_received_, wanted, MSG_DONTWAIT);
      if (got <= 0) {
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return handled;
        read_failed(got);
        return handled;
      }
      bulk_received_ += static_cast<std::size_t>(got);
      if (bulk_received_ < bulk_length_) return handled;
      handled += finish_bulk();
      continue;
    }
    if (rx_begin_ == rx_end_) {
      rx_begin_ = rx_end_ = 0;
    } else if (rx_end_ == rx_.size()) {
      std::memmove(rx_.data(), rx_.data() + rx_begin_, rx_end_ - rx_begin_);
      rx_end_ -= rx_begin_;
      rx_begin_ = 0;
    }
    const std::size_t room = rx_.size() - rx_end_;
    const ssize_t got = recv(fd_, rx_.data() + rx_end_, room, MSG_DONTWAIT);
    if (got <= 0) {
      if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return handled;
      read_failed(got);
      return handled;
    }
    rx_end_ += static_cast<std::size_t>(got);
    handled += parse();
    // A short read drained the socket; a full one may have left more.
    if (static_cast<std::size_t>(got) < room && !bulk_active_) return handled;
  }
  return handled;
}

unsigned TcpConnection::parse() {
  ++parsing_;
  const unsigned handled = parse_frames();
  if (--parsing_ == 0 && state_ == State::Failed) release_rx();
  return handled;
}

unsigned TcpConnection::parse_frames() {
  unsigned handled = 0;
  while (state_ != State::Failed && !bulk_active_) {
    const std::size_t available = rx_end_ - rx_begin_;
    if (available < sizeof(FrameHeader)) break;
    FrameHeader header;
    std::memcpy(&header, rx_.data() + rx_begin_, sizeof(header));
    if (header.type == 0 || header.type > kLastFrameType) {
      iface_.protocol_error(*this, "unknown frame type");
      return handled;
    }
    const std::byte* body = rx_.data() + rx_begin_ + sizeof(header);
    if (is_bulk(header.type)) {
      const auto type = static_cast<FrameType>(header.type);
      const std::size_t fixed = bulk_body_size(type);
      if (header.length < fixed) {
        iface_.protocol_error(*this, "bulk frame shorter than its header");
        return handled;
      }
      if (available < sizeof(header) + fixed) break;
      const std::size_t data_length = header.length - fixed;
      std::byte* destination = iface_.bulk_destination(*this, header, body, data_length);
      if (state_ == State::Failed) return handled;
      if (destination == nullptr && data_length != 0) {
        iface_.protocol_error(*this, "bulk data for memory that was not offered or registered");
        return handled;
      }
      bulk_header_ = header;
      std::memcpy(bulk_body_, body, fixed);
      bulk_destination_ = destination;
      bulk_length_ = data_length;
      rx_begin_ += sizeof(header) + fixed;
      const std::size_t buffered = std::min(data_length, rx_end_ - rx_begin_);
      if (buffered != 0) copy_to_target(destination, rx_.data() + rx_begin_, buffered);
      rx_begin_ += buffered;
      bulk_received_ = buffered;
      bulk_active_ = true;
      if (bulk_received_ == bulk_length_) handled += finish_bulk();
      continue;
    }
    if (header.length > rx_.size() - sizeof(header)) {
      iface_.protocol_error(*this, "frame longer than the receive buffer");
      return handled;
    }
    if (available < sizeof(header) + header.length) break;
    rx_begin_ += sizeof(header) + header.length;
    iface_.on_frame(*this, header, body, header.length);
    ++handled;
  }
  return handled;
}

unsigned TcpConnection::finish_bulk() {
  bulk_active_ = false;
  iface_.bulk_done(*this, bulk_header_, bulk_body_, bulk_length_);
  return 1;
}

}  // namespace tern::engine::transport::tcp
