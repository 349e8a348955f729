#include "verbs_emulated.hpp"

#include "verbs_emulated_fabric.hpp"
#include "verbs_emulated_tags.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <vector>

namespace tern::engine::transport::verbs {
namespace emulation {

class EmuCq;
class EmuSrq;

class EmuCq final : public Cq {
 public:
  EmuCq(Fabric fabric, uint32_t entries) : fabric_(std::move(fabric)), capacity_(entries) {
    fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  }
  ~EmuCq() override {
    if (fd_ >= 0) close(fd_);
  }
  int poll(std::span<WorkCompletion> out) override;
  [[nodiscard]] int event_fd() const noexcept override { return fd_; }
  Status request_notify() override {
    std::lock_guard lock(fabric_->mutex);
    armed_ = true;
    return Status::Ok;
  }
  void consume_event() override {
    uint64_t value = 0;
    (void)!read(fd_, &value, sizeof(value));
  }

  // With the fabric locked.
  void push(const WorkCompletion& wc, Device* device, uint32_t covers) {
    if (entries_.size() >= capacity_) {
      overrun_ = true;
      return;
    }
    entries_.push_back({wc, device, covers});
    if (armed_) {
      armed_ = false;
      const uint64_t one = 1;
      (void)!write(fd_, &one, sizeof(one));
    }
  }
  std::vector<std::pair<Device*, uint32_t>> senders;  // QPs that send through this CQ

 private:
  struct Entry {
    WorkCompletion wc;
    Device* device;
    uint32_t covers;
  };
  Fabric fabric_;
  uint32_t capacity_;
  std::deque<Entry> entries_;
  bool overrun_ = false;
  bool armed_ = false;
  int fd_ = -1;
};

// Every SRQ is a TagSrq; a basic one has no tag list and refuses list
// operations.
class EmuSrq final : public TagSrq {
 public:
  EmuSrq(Fabric fabric, Device* device, uint64_t pd, uint32_t max_wr)
      : device_(device), fabric_(std::move(fabric)), pd_(pd), max_wr_(max_wr) {}
  EmuSrq(Fabric fabric, Device* device, uint64_t pd, const TagSrqParams& params)
      : EmuSrq(std::move(fabric), device, pd, params.max_wr) {
    tags = std::make_unique<EmulatedTagList>(params.max_tags);
    list_cq = static_cast<EmuCq*>(params.cq);
  }
  Status post_recv(const RecvWr& wr) override;
  Status post_tag_op(const TagListWr& wr, uint32_t& handle) override {
    std::lock_guard lock(fabric_->mutex);
    if (!tags) return Status::Unsupported;
    WorkCompletion done;
    bool complete = false;
    const Status status = tags->post(wr, handle, done, complete);
    if (status == Status::Ok && complete) list_cq->push(done, device_, 0);
    return status;
  }

  std::deque<RecvWr> receives;
  std::vector<uint32_t> waiters;  // QPNs (on this device's fabric) whose SEND waits for a receive
  Device* device_;
  std::unique_ptr<EmulatedTagList> tags;  // a TM SRQ's
  EmuCq* list_cq = nullptr;

 private:
  Fabric fabric_;
  uint64_t pd_;
  uint32_t max_wr_;
};

class EmuAh final : public AddressHandle {
 public:
  explicit EmuAh(const PortAddress& to) : to(to) {}
  PortAddress to;
};

class EmuQp final : public Qp {
 public:
  EmuQp(Fabric fabric, Device* device, uint64_t pd, const QpParams& params)
      : device_(device), pd_(pd), params_(params), fabric_(std::move(fabric)) {
    std::lock_guard lock(fabric_->mutex);
    qpn_ = fabric_->next_qpn();
    device_->qps[qpn_] = this;
    static_cast<EmuCq*>(params_.send_cq)->senders.emplace_back(device_, qpn_);
  }
  ~EmuQp() override {
    std::lock_guard lock(fabric_->mutex);
    device_->qps.erase(qpn_);
    auto& senders = static_cast<EmuCq*>(params_.send_cq)->senders;
    std::erase(senders, std::make_pair(device_, qpn_));
  }
  [[nodiscard]] uint32_t qpn() const noexcept override { return qpn_; }
  [[nodiscard]] QpState state() const noexcept override { return state_; }
  [[nodiscard]] uint32_t max_inline() const noexcept override { return params_.max_inline; }
  Status to_init(uint32_t access_or_qkey) override {
    std::lock_guard lock(fabric_->mutex);
    if (state_ != QpState::Reset) return Status::InvalidParam;
    (params_.type == QpType::Rc ? access_ : qkey_) = access_or_qkey;
    state_ = QpState::Init;
    return Status::Ok;
  }
  Status to_rtr(const RcConnect& connect) override {
    std::lock_guard lock(fabric_->mutex);
    if (state_ != QpState::Init) return Status::InvalidParam;
    if (params_.type == QpType::Rc && connect.remote_qpn == 0) return Status::InvalidParam;
    connect_ = connect;
    state_ = QpState::Rtr;
    return Status::Ok;
  }
  Status to_rts(const RcConnect& connect) override {
    std::lock_guard lock(fabric_->mutex);
    if (state_ != QpState::Rtr) return Status::InvalidParam;
    connect_.rnr_retry = connect.rnr_retry;
    connect_.retry_count = connect.retry_count;
    state_ = QpState::Rts;
    return Status::Ok;
  }
  Status to_error() override {
    std::lock_guard lock(fabric_->mutex);
    fail();
    return Status::Ok;
  }
  Status post_send(const SendWr& wr) override;
  Status post_recv(const RecvWr& wr) override;

  // With the fabric locked: runs queued work requests until one waits for a
  // receive (RNR) or all ran. `timer` is an RNR timer expiry.
  void run(bool timer);
  // Takes a SEND from `sender` into a receive; false when none is posted.
  enum class Arrival { Placed, NoReceive, Refused };
  Arrival arrive(const Queued& queued, const std::byte* data, uint32_t length, uint32_t src_qpn, const Gid& src_gid);
  // A tagged message matched `entry`: its payload goes to the entry's buffer.
  void place_tagged(const TagListEntry& entry, const std::byte* payload, uint32_t length, WorkCompletion& wc);
  void fail();

  Device* device_;
  uint64_t pd_;
  QpParams params_;
  uint32_t access_ = 0;
  uint32_t qkey_ = 0;
  RcConnect connect_;

 private:
  // Why a request did not run yet: no receive posted (RNR), or no answer
  // from the peer (no such QP, not connected to us, not in RTR yet).
  enum class Wait : uint8_t { None, Rnr, NoAnswer };
  [[nodiscard]] WcStatus execute(const Queued& queued, Wait& wait);
  [[nodiscard]] WcStatus execute_send(const Queued& queued, Wait& wait);
  [[nodiscard]] WcStatus execute_rdma(const Queued& queued, Wait& wait);
  // The QP our RC requests reach, or null when none answers.
  [[nodiscard]] EmuQp* responder() const;
  // False once the transport retries ran out.
  [[nodiscard]] bool retry_later();
  void complete(const Queued& queued, WcStatus status);

  Fabric fabric_;
  uint32_t qpn_ = 0;
  QpState state_ = QpState::Reset;
  std::deque<Queued> send_queue_;
  std::deque<RecvWr> recv_queue_;
  uint32_t sq_used_ = 0;
  uint32_t unsignaled_ = 0;
  bool rnr_waiting_ = false;
  uint32_t rnr_left_ = 0;
  bool answer_waiting_ = false;
  uint32_t retry_left_ = 0;
  std::chrono::steady_clock::time_point next_timeout_{};

 public:
  [[nodiscard]] bool waiting() const noexcept { return rnr_waiting_ || answer_waiting_; }

 private:

  friend class EmuCq;
  friend class EmuSrq;
};

int EmuCq::poll(std::span<WorkCompletion> out) {
  std::lock_guard lock(fabric_->mutex);
  // Time passes for the senders: each poll is one RNR timer expiry.
  for (auto [device, qpn] : std::vector(senders)) {
    auto it = device->qps.find(qpn);
    if (it != device->qps.end() && it->second->waiting()) it->second->run(true);
  }
  if (overrun_) return -1;
  std::size_t n = 0;
  while (n < out.size() && !entries_.empty()) {
    const Entry& entry = entries_.front();
    out[n++] = entry.wc;
    if (entry.wc.opcode < WcOpcode::Recv) {  // the send queue's
      auto it = entry.device->qps.find(entry.wc.qp_num);
      if (it != entry.device->qps.end()) it->second->sq_used_ -= std::min(it->second->sq_used_, entry.covers);
    }
    entries_.pop_front();
  }
  return static_cast<int>(n);
}

Status EmuSrq::post_recv(const RecvWr& wr) {
  std::lock_guard lock(fabric_->mutex);
  if (receives.size() >= max_wr_) return Status::WouldBlock;
  receives.push_back(wr);
  // Senders waiting for a receive here try again now, in the order they
  // first found none.
  std::vector<uint32_t> waiting;
  waiting.swap(waiters);
  for (uint32_t qpn : waiting) {
    for (Device& device : fabric_->devices()) {
      auto it = device.qps.find(qpn);
      if (it != device.qps.end() && it->second->rnr_waiting_) it->second->run(false);
    }
  }
  return Status::Ok;
}

Status EmuQp::post_send(const SendWr& wr) {
  std::lock_guard lock(fabric_->mutex);
  if (state_ != QpState::Rts) return Status::InvalidParam;
  const bool ud = params_.type == QpType::Ud;
  const bool send = wr.op == SendOp::Send || wr.op == SendOp::SendWithImm;
  if (ud && (!send || wr.ah == nullptr)) return Status::InvalidParam;
  if (wr.inline_data && (!send && wr.op != SendOp::RdmaWrite)) return Status::InvalidParam;
  if (wr.inline_data && wr.sge.length > params_.max_inline) return Status::InvalidParam;
  if ((wr.op == SendOp::FetchAdd || wr.op == SendOp::CompareSwap) && wr.sge.length != 8) return Status::InvalidParam;
  if (sq_used_ >= params_.max_send_wr) return Status::WouldBlock;
  Queued queued;
  queued.wr = wr;
  if (wr.inline_data && wr.sge.length != 0) {
    const auto* from = reinterpret_cast<const std::byte*>(wr.sge.address);
    queued.inline_bytes.assign(from, from + wr.sge.length);
  }
  ++sq_used_;
  if (wr.signaled) {
    queued.covers = unsignaled_ + 1;
    unsignaled_ = 0;
  } else {
    ++unsignaled_;
  }
  send_queue_.push_back(std::move(queued));
  if (send_queue_.size() == 1) run(false);
  return Status::Ok;
}

Status EmuQp::post_recv(const RecvWr& wr) {
  std::lock_guard lock(fabric_->mutex);
  if (params_.srq != nullptr) return Status::InvalidParam;
  if (state_ == QpState::Error) {
    WorkCompletion wc;
    wc.wr_id = wr.wr_id;
    wc.status = WcStatus::Flushed;
    wc.opcode = WcOpcode::Recv;
    wc.qp_num = qpn_;
    static_cast<EmuCq*>(params_.recv_cq)->push(wc, device_, 0);
    return Status::Ok;
  }
  if (recv_queue_.size() >= params_.max_recv_wr) return Status::WouldBlock;
  recv_queue_.push_back(wr);
  return Status::Ok;
}

void EmuQp::complete(const Queued& queued, WcStatus status) {
  if (status == WcStatus::Success && !queued.wr.signaled) return;
  WorkCompletion wc;
  wc.wr_id = queued.wr.wr_id;
  wc.status = status;
  wc.qp_num = qpn_;
  switch (queued.wr.op) {
    case SendOp::Send:
    case SendOp::SendWithImm: wc.opcode = WcOpcode::Send; break;
    case SendOp::RdmaWrite: wc.opcode = WcOpcode::RdmaWrite; break;
    case SendOp::RdmaRead:
      wc.opcode = WcOpcode::RdmaRead;
      wc.byte_len = queued.wr.sge.length;
      break;
    case SendOp::FetchAdd: wc.opcode = WcOpcode::FetchAdd; break;
    case SendOp::CompareSwap: wc.opcode = WcOpcode::CompareSwap; break;
  }
  // An error completion also frees the unsignaled requests before it.
  static_cast<EmuCq*>(params_.send_cq)->push(wc, device_, queued.covers);
}

void EmuQp::fail() {
  state_ = QpState::Error;
  rnr_waiting_ = false;
  answer_waiting_ = false;
  while (!send_queue_.empty()) {
    Queued queued = std::move(send_queue_.front());
    send_queue_.pop_front();
    queued.wr.signaled = true;
    complete(queued, WcStatus::Flushed);
  }
  while (!recv_queue_.empty()) {
    WorkCompletion wc;
    wc.wr_id = recv_queue_.front().wr_id;
    wc.status = WcStatus::Flushed;
    wc.opcode = WcOpcode::Recv;
    wc.qp_num = qpn_;
    recv_queue_.pop_front();
    static_cast<EmuCq*>(params_.recv_cq)->push(wc, device_, 0);
  }
}

void EmuQp::run(bool timer) {
  fabric_->note_released();
  while (!send_queue_.empty() && state_ == QpState::Rts) {
    Wait wait = Wait::None;
    WcStatus status = execute(send_queue_.front(), wait);
    if (wait == Wait::NoAnswer) {
      if (retry_later()) return;
      status = WcStatus::RetryExceeded;
    }
    answer_waiting_ = false;
    if (wait == Wait::Rnr) {
      // The first refusal starts the count; each timer expiry is a retry.
      if (!rnr_waiting_) {
        rnr_waiting_ = true;
        rnr_left_ = connect_.rnr_retry;
      } else if (timer && connect_.rnr_retry != 7 && rnr_left_ > 0) {
        --rnr_left_;
      }
      if (rnr_left_ > 0 || connect_.rnr_retry == 7) return;
      Queued queued = std::move(send_queue_.front());
      send_queue_.pop_front();
      queued.wr.signaled = true;
      complete(queued, WcStatus::RnrRetryExceeded);
      fail();
      return;
    }
    rnr_waiting_ = false;
    Queued queued = std::move(send_queue_.front());
    send_queue_.pop_front();
    if (status != WcStatus::Success) {
      queued.wr.signaled = true;
      complete(queued, status);
      fail();
      return;
    }
    complete(queued, status);
  }
}

WcStatus EmuQp::execute(const Queued& queued, Wait& wait) {
  const SendOp op = queued.wr.op;
  if (op == SendOp::Send || op == SendOp::SendWithImm) return execute_send(queued, wait);
  return execute_rdma(queued, wait);
}

EmuQp* EmuQp::responder() const {
  Device* target = fabric_->find(connect_.remote);
  if (target == nullptr) return nullptr;
  auto it = target->qps.find(connect_.remote_qpn);
  if (it == target->qps.end()) return nullptr;
  EmuQp* peer = it->second;
  if (peer->params_.type != QpType::Rc || peer->connect_.remote_qpn != qpn_ ||
      (peer->state_ != QpState::Rtr && peer->state_ != QpState::Rts)) {
    return nullptr;
  }
  return peer;
}

bool EmuQp::retry_later() {
  // Each attempt is free (so a peer that becomes ready is found at once);
  // what counts is time: one retry per expiry of the QP's timeout, 4.096 us
  // times 2^timeout (0: no timeout), as the hardware's.
  const auto now = std::chrono::steady_clock::now();
  const auto timeout = std::chrono::nanoseconds(uint64_t{4096} << std::min<uint8_t>(connect_.timeout, 31));
  if (!answer_waiting_) {
    answer_waiting_ = true;
    retry_left_ = connect_.retry_count;
    next_timeout_ = now + timeout;
    return true;
  }
  if (connect_.timeout == 0 || now < next_timeout_) return true;
  if (retry_left_ == 0) return false;
  --retry_left_;
  next_timeout_ = now + timeout;
  return true;
}

WcStatus EmuQp::execute_send(const Queued& queued, Wait& wait) {
  const SendWr& wr = queued.wr;
  const std::byte* data = queued.inline_bytes.data();
  if (!wr.inline_data && wr.sge.length != 0) {
    if (find_region(device_->by_lkey, wr.sge.lkey, pd_, wr.sge.address, wr.sge.length, 0) == nullptr) {
      return WcStatus::LocalProtectionError;
    }
    data = reinterpret_cast<const std::byte*>(wr.sge.address);
  }
  if (params_.type == QpType::Ud) {
    // Lost datagrams, unknown targets and a wrong qkey all look the same to
    // the sender: the send completes.
    if (fabric_->datagrams_to_drop > 0) {
      --fabric_->datagrams_to_drop;
      return WcStatus::Success;
    }
    Device* target = fabric_->find(static_cast<EmuAh*>(wr.ah)->to);
    if (target == nullptr) return WcStatus::Success;
    auto it = target->qps.find(wr.remote_qpn);
    if (it == target->qps.end()) return WcStatus::Success;
    EmuQp& peer = *it->second;
    if (peer.params_.type != QpType::Ud || peer.qkey_ != wr.qkey) return WcStatus::Success;
    (void)peer.arrive(queued, data, wr.sge.length, qpn_, device_->info.gid);
    return WcStatus::Success;
  }
  EmuQp* responder_qp = responder();
  if (responder_qp == nullptr) {
    wait = Wait::NoAnswer;
    return WcStatus::Success;
  }
  EmuQp& peer = *responder_qp;
  switch (peer.arrive(queued, data, wr.sge.length, qpn_, device_->info.gid)) {
    case Arrival::Placed: return WcStatus::Success;
    case Arrival::Refused: return WcStatus::RemoteInvalidRequest;
    case Arrival::NoReceive:
      wait = Wait::Rnr;
      if (params_.type == QpType::Rc && peer.params_.srq != nullptr) {
        auto& waiters = static_cast<EmuSrq*>(peer.params_.srq)->waiters;
        if (std::find(waiters.begin(), waiters.end(), qpn_) == waiters.end()) waiters.push_back(qpn_);
      }
      return WcStatus::Success;
  }
  return WcStatus::GeneralError;
}

EmuQp::Arrival EmuQp::arrive(const Queued& queued, const std::byte* data, uint32_t length, uint32_t src_qpn,
                             const Gid& src_gid) {
  auto* srq = static_cast<EmuSrq*>(params_.srq);
  std::deque<RecvWr>& receives = srq != nullptr ? srq->receives : recv_queue_;
  WorkCompletion wc;
  wc.opcode = WcOpcode::Recv;
  wc.qp_num = qpn_;
  wc.src_qp = src_qpn;
  wc.has_imm = queued.wr.op == SendOp::SendWithImm;
  wc.imm = wc.has_imm ? queued.wr.imm : 0;
  auto* recv_cq = static_cast<EmuCq*>(params_.recv_cq);
  if (srq != nullptr && srq->tags) {
    // A TM SRQ reads the tag-matching header of every message.
    TagHeader header;
    if (!unpack_tag_header(data, length, header) || header.opcode == TagOpcode::Rendezvous ||
        header.opcode == TagOpcode::Fin) {
      return Arrival::Refused;  // the rendezvous offload is not modelled
    }
    if (header.opcode == TagOpcode::Eager) {
      wc.tag_flags = kWcTagged;
      wc.tag = header.tag;
      wc.app_context = header.app_context;
      if (std::optional<TagListEntry> entry = srq->tags->match(header.tag)) {
        place_tagged(*entry, data + kTagHeaderBytes, length - static_cast<uint32_t>(kTagHeaderBytes), wc);
        return Arrival::Placed;
      }
      if (receives.empty()) return Arrival::NoReceive;
      if (srq->tags->count_unexpected()) wc.tag_flags |= kWcSyncRequest;
    }
  }
  if (receives.empty()) return params_.type == QpType::Ud ? Arrival::Placed : Arrival::NoReceive;
  const RecvWr recv = receives.front();
  receives.pop_front();
  const bool ud = params_.type == QpType::Ud;
  const uint64_t needed = uint64_t{length} + (ud ? kGrhBytes : 0);
  wc.wr_id = recv.wr_id;
  if (needed > recv.sge.length) {
    wc.status = WcStatus::LocalLengthError;
  } else if (find_region(device_->by_lkey, recv.sge.lkey, pd_, recv.sge.address, recv.sge.length,
                         kAccessLocalWrite) == nullptr) {
    wc.status = WcStatus::LocalProtectionError;
  }
  if (wc.status != WcStatus::Success) {
    recv_cq->push(wc, device_, 0);
    if (!ud) fail();
    return ud ? Arrival::Placed : Arrival::Refused;
  }
  auto* to = reinterpret_cast<std::byte*>(recv.sge.address);
  if (ud) {
    std::memset(to, 0, kGrhBytes);
    std::memcpy(to + 8, src_gid.data(), src_gid.size());  // the GRH's source GID
    to += kGrhBytes;
  }
  if (length != 0) std::memcpy(to, data, length);
  wc.byte_len = static_cast<uint32_t>(needed);
  recv_cq->push(wc, device_, 0);
  return Arrival::Placed;
}

void EmuQp::place_tagged(const TagListEntry& entry, const std::byte* payload, uint32_t length, WorkCompletion& wc) {
  wc.wr_id = entry.recv_wr_id;
  wc.opcode = WcOpcode::TagRecv;
  wc.tag_flags |= kWcTagDataValid;  // eager: matched and placed at once
  wc.byte_len = length;
  const uint32_t placed = std::min(length, entry.sge.length);
  if (length > entry.sge.length) wc.status = WcStatus::LocalLengthError;
  if (placed != 0 && find_region(device_->by_lkey, entry.sge.lkey, pd_, entry.sge.address, placed,
                                 kAccessLocalWrite) == nullptr) {
    wc.status = WcStatus::LocalProtectionError;
  } else if (placed != 0) {
    std::memcpy(reinterpret_cast<std::byte*>(entry.sge.address), payload, placed);
  }
  static_cast<EmuCq*>(params_.recv_cq)->push(wc, device_, 0);
}

WcStatus EmuQp::execute_rdma(const Queued& queued, Wait& wait) {
  const SendWr& wr = queued.wr;
  EmuQp* responder_qp = responder();
  if (responder_qp == nullptr) {
    wait = Wait::NoAnswer;
    return WcStatus::Success;
  }
  EmuQp& peer = *responder_qp;
  uint32_t remote_access = kAccessRemoteWrite;
  uint32_t local_access = 0;
  if (wr.op == SendOp::RdmaRead) {
    remote_access = kAccessRemoteRead;
    local_access = kAccessLocalWrite;
  } else if (wr.op == SendOp::FetchAdd || wr.op == SendOp::CompareSwap) {
    if (!fabric_->params().atomics) return WcStatus::RemoteInvalidRequest;
    remote_access = kAccessRemoteAtomic;
    local_access = kAccessLocalWrite;
  }
  const std::byte* source = queued.inline_bytes.data();
  if (!wr.inline_data && wr.sge.length != 0 &&
      find_region(device_->by_lkey, wr.sge.lkey, pd_, wr.sge.address, wr.sge.length, local_access) == nullptr) {
    return WcStatus::LocalProtectionError;
  }
  if (!wr.inline_data) source = reinterpret_cast<const std::byte*>(wr.sge.address);
  if ((peer.access_ & remote_access) != remote_access ||
      find_region(peer.device_->by_rkey, wr.rkey, peer.pd_, wr.remote_address, wr.sge.length, remote_access) == nullptr) {
    return WcStatus::RemoteAccessError;
  }
  auto* remote = reinterpret_cast<std::byte*>(wr.remote_address);
  auto* local = reinterpret_cast<std::byte*>(wr.sge.address);
  if (wr.sge.length == 0) return WcStatus::Success;
  switch (wr.op) {
    case SendOp::RdmaWrite: std::memmove(remote, source, wr.sge.length); break;
    case SendOp::RdmaRead: std::memmove(local, remote, wr.sge.length); break;
    case SendOp::FetchAdd:
    case SendOp::CompareSwap: {
      if (wr.remote_address % 8 != 0) return WcStatus::RemoteInvalidRequest;
      uint64_t old = 0;
      std::memcpy(&old, remote, 8);
      uint64_t next = old;
      if (wr.op == SendOp::FetchAdd) {
        next = old + wr.compare_add;
      } else if (old == wr.compare_add) {
        next = wr.swap;
      }
      std::memcpy(remote, &next, 8);
      std::memcpy(local, &old, 8);
      break;
    }
    default: return WcStatus::GeneralError;
  }
  return WcStatus::Success;
}

class EmuMr final : public Mr {
 public:
  EmuMr(Fabric fabric, Device* device, uint32_t lkey, uint32_t rkey, const Region& region)
      : fabric_(std::move(fabric)), device_(device), lkey_(lkey), rkey_(rkey), region_(region) {}
  ~EmuMr() override {
    std::lock_guard lock(fabric_->mutex);
    device_->by_lkey.erase(lkey_);
    device_->by_rkey.erase(rkey_);
  }
  [[nodiscard]] uint32_t lkey() const noexcept override { return lkey_; }
  [[nodiscard]] uint32_t rkey() const noexcept override { return rkey_; }
  [[nodiscard]] uintptr_t address() const noexcept override { return region_.address; }
  [[nodiscard]] std::size_t length() const noexcept override { return region_.length; }

 private:
  Fabric fabric_;
  Device* device_;
  uint32_t lkey_;
  uint32_t rkey_;
  Region region_;
};

class EmuPd final : public Pd {
 public:
  EmuPd(Fabric fabric, Device* device) : fabric_(std::move(fabric)), device_(device), id_(fabric_->next_pd()) {}
  std::unique_ptr<Mr> reg_mr(void* address, std::size_t length, uint32_t access, Status& status) override {
    if (address == nullptr || length == 0) {
      status = Status::InvalidParam;
      return nullptr;
    }
    std::lock_guard lock(fabric_->mutex);
    fabric_->note_released();  // what was released before concerns older registrations only
    const Region region{reinterpret_cast<uintptr_t>(address), length, access, id_};
    const uint32_t lkey = fabric_->next_key();
    const uint32_t rkey = fabric_->next_key() | 0x80000000u;
    device_->by_lkey[lkey] = region;
    device_->by_rkey[rkey] = region;
    status = Status::Ok;
    return std::make_unique<EmuMr>(fabric_, device_, lkey, rkey, region);
  }
  std::unique_ptr<Srq> create_srq(uint32_t max_wr, Status& status) override {
    if (max_wr == 0 || max_wr > device_->info.max_srq_wr) {
      status = Status::InvalidParam;
      return nullptr;
    }
    status = Status::Ok;
    return std::make_unique<EmuSrq>(fabric_, device_, id_, max_wr);
  }
  std::unique_ptr<TagSrq> create_tag_srq(const TagSrqParams& params, Status& status) override {
    const DeviceInfo& info = device_->info;
    if (info.tm_max_tags == 0) {
      status = Status::Unsupported;
      return nullptr;
    }
    if (params.max_wr == 0 || params.max_wr > info.max_srq_wr || params.max_tags == 0 ||
        params.max_tags > info.tm_max_tags || params.max_ops == 0 || params.max_ops > info.tm_max_ops ||
        params.cq == nullptr) {
      status = Status::InvalidParam;
      return nullptr;
    }
    status = Status::Ok;
    return std::make_unique<EmuSrq>(fabric_, device_, id_, params);
  }
  std::unique_ptr<Qp> create_qp(const QpParams& params, Status& status) override {
    if (params.send_cq == nullptr || params.recv_cq == nullptr || params.max_send_wr == 0 ||
        params.max_send_wr > device_->info.max_qp_wr || params.max_inline > fabric_->params().max_inline ||
        (params.srq != nullptr && params.type != QpType::Rc)) {
      status = Status::InvalidParam;
      return nullptr;
    }
    status = Status::Ok;
    return std::make_unique<EmuQp>(fabric_, device_, id_, params);
  }
  std::unique_ptr<AddressHandle> create_ah(const PortAddress& to, Status& status) override {
    status = Status::Ok;
    return std::make_unique<EmuAh>(to);
  }

 private:
  Fabric fabric_;
  Device* device_;
  uint64_t id_;
};

class EmuContext final : public Context {
 public:
  EmuContext(Fabric fabric, Device* device) : fabric_(std::move(fabric)), device_(device) {}
  [[nodiscard]] const DeviceInfo& info() const noexcept override { return device_->info; }
  std::unique_ptr<Pd> alloc_pd(Status& status) override {
    status = Status::Ok;
    return std::make_unique<EmuPd>(fabric_, device_);
  }
  std::unique_ptr<Cq> create_cq(uint32_t entries, Status& status) override {
    if (entries == 0 || entries > device_->info.max_cqe) {
      status = Status::InvalidParam;
      return nullptr;
    }
    status = Status::Ok;
    return std::make_unique<EmuCq>(fabric_, entries);
  }

 private:
  Fabric fabric_;
  Device* device_;
};

class EmuProvider final : public Provider {
 public:
  explicit EmuProvider(Fabric fabric) : fabric_(std::move(fabric)) {}
  [[nodiscard]] const char* name() const noexcept override { return "emulated"; }
  std::vector<DeviceInfo> list_devices(std::string& why) override {
    std::vector<DeviceInfo> found;
    for (const Device& device : fabric_->devices()) found.push_back(device.info);
    if (found.empty()) why = "no RDMA device (the emulated fabric has none)";
    return found;
  }
  std::unique_ptr<Context> open(const std::string& device, Status& status) override {
    for (Device& candidate : fabric_->devices()) {
      if (candidate.info.name == device) {
        status = Status::Ok;
        return std::make_unique<EmuContext>(fabric_, &candidate);
      }
    }
    status = Status::NotFound;
    return nullptr;
  }

 private:
  Fabric fabric_;
};

}  // namespace emulation

using emulation::EmuProvider;

std::shared_ptr<EmulatedFabric> make_emulated_fabric(const EmulatedFabricParams& params) {
  return std::make_shared<EmulatedFabric>(params);
}

std::unique_ptr<Provider> make_emulated_provider(std::shared_ptr<EmulatedFabric> fabric) {
  return std::make_unique<EmuProvider>(std::move(fabric));
}

std::shared_ptr<EmulatedFabric> shared_emulated_fabric() {
  static std::mutex mutex;
  static std::shared_ptr<EmulatedFabric> fabric;
  std::lock_guard lock(mutex);
  if (!fabric) {
    EmulatedFabricParams params;
    params.devices = 1;
    fabric = make_emulated_fabric(params);
  }
  return fabric;
}

void emulated_drop_datagrams(EmulatedFabric& fabric, unsigned count) {
  std::lock_guard lock(fabric.mutex);
  fabric.datagrams_to_drop = count;
}

}  // namespace tern::engine::transport::verbs
