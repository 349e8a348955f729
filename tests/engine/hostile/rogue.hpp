// What the hostile tests attack with: two workers of one job in this
// process (a target and a well-behaved peer that it knows), and a rogue
// that writes into the target's shared-memory FIFO as a stray or confused
// local process could: well-formed cells of any content, through an shm
// endpoint of its own, and the FIFO's shared indices, through the target's
// segment mapped by name.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/address.hpp"
#include "tag/wire.hpp"
#include "tern/engine/worker.hpp"
#include "transport/iface.hpp"
#include "transport/iface_params.hpp"
#include "transport/shm/segment_layout.hpp"
#include "transport/shm/shm_address.hpp"
#include "transport/shm/shm_segment.hpp"

namespace tern::engine::hostile {

inline std::string unique_job_id(const char* what) {
  static std::atomic<unsigned> counter{0};
  return std::string("th") + what + "-" + std::to_string(getpid()) + "x" + std::to_string(counter++);
}

inline uint64_t uuid_of(const Worker& worker) {
  WorkerAddress address;
  return unpack_worker_address(worker.address(), address) == Status::Ok ? address.uuid : 0;
}

// The packed address of `transport` in a worker's address (empty if none).
inline std::vector<std::byte> transport_address(const Worker& worker, std::string_view transport) {
  WorkerAddress address;
  if (unpack_worker_address(worker.address(), address) != Status::Ok) return {};
  for (const TransportAddress& entry : address.transports) {
    if (entry.name == transport) return {entry.address.begin(), entry.address.end()};
  }
  return {};
}

// A message of exactly `bytes`, for am_bcopy.
struct Bytes {
  const void* data;
  std::size_t length;
  static std::size_t pack(void* dest, std::size_t capacity, void* arg) {
    auto* self = static_cast<Bytes*>(arg);
    const std::size_t length = self->length <= capacity ? self->length : capacity;
    if (length != 0) std::memcpy(dest, self->data, length);
    return length;
  }
};

// Header then payload, as one message's bytes.
template <typename Header>
std::vector<std::byte> message(const Header& header, std::size_t payload_length, std::byte fill = std::byte{0x41}) {
  std::vector<std::byte> bytes(sizeof(Header) + payload_length, fill);
  std::memcpy(bytes.data(), &header, sizeof(Header));
  return bytes;
}

class ShmRogue {
 public:
  // Aims at the shm transport of `target` (a worker of job `job_id`).
  ShmRogue(const Worker& target, const std::string& job_id) {
    transport::IfaceParams params;
    params.job_id = job_id;
    params.worker_uuid = 0x0badc0de;
    params.config.transports = "shm";
    Status status = Status::InvalidParam;
    iface_ = transport::create_shm_iface(params, status);
    const std::vector<std::byte> address = transport_address(target, "shm");
    if (!iface_ || address.empty()) return;
    ep_ = iface_->create_ep(address, status);
    transport::shm::ShmAddress unpacked;
    if (!transport::shm::unpack_address(address, unpacked)) return;
    if (transport::shm::ShmSegment::attach(unpacked.segment_name, transport::shm::segment_size(unpacked.geometry),
                                           segment_) != Status::Ok) {
      return;
    }
    max_message_ = unpacked.geometry.max_message();
  }
  ~ShmRogue() {
    if (ep_ != nullptr) iface_->destroy_ep(ep_);
  }
  ShmRogue(const ShmRogue&) = delete;
  ShmRogue& operator=(const ShmRogue&) = delete;

  [[nodiscard]] bool ready() const { return ep_ != nullptr && segment_.base() != nullptr; }
  [[nodiscard]] std::size_t max_message() const { return max_message_; }

  // One FIFO cell of id `am_id` holding exactly these bytes.
  [[nodiscard]] Status send(uint8_t am_id, const void* data, std::size_t length) {
    Bytes bytes{data, length};
    const ssize_t sent = ep_->am_bcopy(am_id, &Bytes::pack, &bytes);
    return sent < 0 ? static_cast<Status>(sent) : Status::Ok;
  }
  [[nodiscard]] Status send(uint8_t am_id, const std::vector<std::byte>& bytes) {
    return send(am_id, bytes.data(), bytes.size());
  }
  // A short message (which may go through the target's ring).
  [[nodiscard]] Status send_short(uint8_t am_id, uint64_t header, const void* payload, std::size_t length) {
    return ep_->am_short(am_id, header, payload, length);
  }

  // The target's FIFO indices, which only its senders (head) and itself
  // (tail) should ever write.
  [[nodiscard]] transport::FifoIndices& indices() {
    return static_cast<transport::shm::SegmentHeader*>(segment_.base())->fifo;
  }

 private:
  std::unique_ptr<transport::Iface> iface_;
  transport::Ep* ep_ = nullptr;
  transport::shm::ShmSegment segment_;
  std::size_t max_message_ = 0;
};

// A target worker and a peer it knows (connected both ways, over shm
// unless `transports` says otherwise), with what the target's failure
// handler was told.
class Pair {
 public:
  explicit Pair(const char* what, const std::string& transports = "self,shm") : job_id_(unique_job_id(what)) {
    params_.job_id = job_id_;
    params_.config.transports = transports;
    params_.config.tcp_interfaces = "lo";
    if (Worker::create(params_, target_) != Status::Ok) return;
    target_->on_peer_failure(&Pair::record_failure, this);
    (void)replace_peer();
  }

  // A new peer in place of the present one, which stays alive (but unused)
  // until the pair goes: the target may have been made to disconnect it.
  bool replace_peer() {
    if (peer_) retired_.push_back(std::move(peer_));
    target_to_peer_ = peer_to_target_ = nullptr;
    if (Worker::create(params_, peer_) != Status::Ok) return false;
    if (peer_->connect(target_->address(), peer_to_target_) != Status::Ok) return false;
    if (target_->connect(peer_->address(), target_to_peer_) != Status::Ok) return false;
    for (int i = 0; i < 100; ++i) progress();  // the hellos
    return true;
  }

  [[nodiscard]] bool ready() const { return target_to_peer_ != nullptr && peer_to_target_ != nullptr; }
  void progress() {
    (void)target_->progress();
    (void)peer_->progress();
  }
  // Progresses both until `done()` or `seconds` pass.
  template <typename Done>
  bool until(Done&& done, double seconds = 10) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      progress();
    }
    return true;
  }

  // The target still works: a message from the peer arrives whole.
  [[nodiscard]] bool target_still_receives(std::size_t length, uint64_t tag = 0x5eed) {
    std::vector<unsigned char> sent(length), received(length + 16, 0xee);
    for (std::size_t i = 0; i < length; ++i) sent[i] = static_cast<unsigned char>(i * 7 + 3);
    Request* recv = nullptr;
    Request* send = nullptr;
    TagRecvInfo info;
    if (target_->tag_recv_nb(received.data(), length, tag, kTagMaskAll, recv, &info) != Status::InProgress) {
      return false;
    }
    const Status s = peer_->tag_send_nb(peer_to_target_, sent.data(), length, tag, send);
    if (s != Status::Ok && s != Status::InProgress) return false;
    if (!until([&] { return recv->done() && (send == nullptr || send->done()); })) return false;
    const bool ok = recv->status() == Status::Ok && recv->info().length == length &&
                    std::memcmp(sent.data(), received.data(), length) == 0 && received[length] == 0xee;
    target_->release(recv);
    if (send != nullptr) peer_->release(send);
    return ok;
  }

  WorkerParams params_;
  std::string job_id_;
  std::unique_ptr<Worker> target_;
  std::vector<std::unique_ptr<Worker>> retired_;  // before peer_: goes after it
  std::unique_ptr<Worker> peer_;
  Endpoint* target_to_peer_ = nullptr;
  Endpoint* peer_to_target_ = nullptr;
  std::vector<Endpoint*> failed_;  // as the target's failure handler was told

 private:
  static void record_failure(void* arg, Endpoint* endpoint, Status) {
    static_cast<Pair*>(arg)->failed_.push_back(endpoint);
  }
};

// A peer that speaks TCP frames but not the tag protocol: a bare tcp iface
// of the job, which introduces itself with a hello like a worker does.
class TcpRogue {
 public:
  TcpRogue(const Worker& target, const std::string& job_id, uint64_t uuid) : uuid_(uuid) {
    transport::IfaceParams params;
    params.job_id = job_id;
    params.worker_uuid = uuid;
    params.config.tcp_interfaces = "lo";
    Status status = Status::InvalidParam;
    iface_ = transport::create_tcp_iface(params, status);
    if (!iface_) return;
    iface_->set_am_handler(
        tag::kAmHello, [](void* arg, const void*, std::size_t) -> bool { return *static_cast<bool*>(arg) = true; },
        &greeted_);
    ep_ = iface_->create_ep(transport_address(target, "tcp"), status);
  }
  ~TcpRogue() {
    if (ep_ != nullptr) iface_->destroy_ep(ep_);
  }

  [[nodiscard]] bool ready() const { return ep_ != nullptr; }
  [[nodiscard]] Status hello() {
    const std::vector<std::byte> tcp = iface_->address();
    const TransportAddress entry{"tcp", tcp};
    const std::vector<std::byte> address = pack_worker_address(uuid_, "rogue-host", {&entry, 1});
    Bytes bytes{address.data(), address.size()};
    const ssize_t sent = ep_->am_bcopy(tag::kAmHello, &Bytes::pack, &bytes);
    return sent < 0 ? static_cast<Status>(sent) : Status::Ok;
  }
  [[nodiscard]] transport::Ep& ep() { return *ep_; }
  // The target said hello back: it has an endpoint to us.
  [[nodiscard]] bool greeted() const { return greeted_; }
  void progress() { (void)iface_->progress(); }

 private:
  uint64_t uuid_;
  std::unique_ptr<transport::Iface> iface_;
  transport::Ep* ep_ = nullptr;
  bool greeted_ = false;
};

}  // namespace tern::engine::hostile
