#include "verbs_iface.hpp"

#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "tern/runtime/compiler.hpp"
#include "tern/runtime/log.hpp"
#include "verbs_emulated.hpp"

namespace tern::engine::transport {
namespace verbs {
namespace {

// Keys handed to peers: an rkey with a tag above it, so that 0 (no key)
// and keys of other transports are refused.
constexpr uint64_t kKeyTag = 0x7652ull << 32;
constexpr uint64_t to_key(uint32_t rkey) { return kKeyTag | rkey; }
constexpr bool is_key(uint64_t key) { return (key & ~uint64_t{0xffffffffu}) == kKeyTag; }

// The largest piece of one RDMA request (devices allow 1-2 GiB).
constexpr std::size_t kMaxPiece = std::size_t{1} << 30;

}  // namespace

std::unique_ptr<Provider> default_provider(const runtime::Config& config) {
  if (config.verbs_emulation == runtime::Switch::On) return make_emulated_provider(shared_emulated_fabric());
  return make_ibv_provider();
}

VerbsLimits limits_for(const runtime::Config& config) {
  VerbsLimits limits;
  // Hardware tag matching only when asked for: it has not run on a device
  // yet, and it puts every message through the device's unexpected path.
  if (config.tm_offload == runtime::Switch::On) limits.tag_capacity = static_cast<uint32_t>(config.tm_capacity);
  return limits;
}

std::string unavailable_reason(const runtime::Config& config) {
  std::string why;
  if (default_provider(config)->list_devices(why).empty()) return why.empty() ? "no RDMA device" : why;
  return {};
}

VerbsIface::VerbsIface(const IfaceParams& params, std::unique_ptr<Provider> provider, const VerbsLimits& limits)
    : limits_(limits),
      uuid_(params.worker_uuid),
      on_failure_(params.on_failure),
      failure_arg_(params.failure_arg),
      provider_(std::move(provider)) {
  attr_.name = "verbs";
  attr_.flags = kCapAmShort | kCapAmBcopy | kCapGetZcopy | kCapPutZcopy | kCapWakeup | kCapRma;
  // Room for the tag-matching header that messages to a TM peer carry.
  attr_.max_bcopy = limits_.buffer_size - kTagHeaderBytes;
  attr_.max_short = attr_.max_bcopy - sizeof(uint64_t);
  attr_.max_zcopy = SIZE_MAX;
  // Not measured yet (no hardware): UCX's RC default, where a registration
  // cache hit makes zero copy pay.
  attr_.rndv_threshold = 16384;
  attr_.rndv_threshold_mapped = attr_.rndv_threshold;
  attr_.rndv_threshold_drained = attr_.rndv_threshold;
  attr_.rndv_threshold_metered = attr_.rndv_threshold;
  attr_.priority = 20;  // below shm, above tcp
  own_.worker_uuid = uuid_;
}

std::unique_ptr<VerbsIface> VerbsIface::create(const IfaceParams& params, std::unique_ptr<Provider> provider,
                                               const VerbsLimits& limits, Status& status, std::string* why) {
  std::string reason;
  const std::vector<DeviceInfo> devices = provider->list_devices(reason);
  if (devices.empty()) {
    if (why != nullptr) *why = reason;
    TERN_LOG(Debug, "verbs: %s", reason.c_str());
    status = Status::Unsupported;
    return nullptr;
  }
  // Before any buffer is allocated: the registration cache relies on it.
  memory_events::keep_malloc_memory_mapped();
  std::unique_ptr<VerbsIface> iface(new VerbsIface(params, std::move(provider), limits));
  status = iface->open(devices.front().name, reason);
  if (status != Status::Ok) {
    if (why != nullptr) *why = reason;
    TERN_LOG(Error, "verbs: %s", reason.c_str());
    return nullptr;
  }
  return iface;
}

Status VerbsIface::open(const std::string& device, std::string& why) {
  Status status = Status::Ok;
  context_ = provider_->open(device, status);
  if (!context_) {
    why = "cannot open " + device;
    return status;
  }
  const DeviceInfo& info = context_->info();
  const uint32_t cq_entries = limits_.rx_buffers + 2 * kServiceBuffers + limits_.max_connections * limits_.send_queue;
  if (pd_ = context_->alloc_pd(status); !pd_) {
    why = "cannot allocate a protection domain on " + device;
    return status;
  }
  const bool tags = limits_.tag_capacity != 0 && info.tm_max_tags != 0;
  cq_ = tags ? context_->create_tag_cq(std::min(cq_entries, info.max_cqe), status)
             : context_->create_cq(std::min(cq_entries, info.max_cqe), status);
  if (!cq_) {
    why = "cannot create a completion queue on " + device;
    return status;
  }
  if (tags) {
    if (Status s = open_tag_matching(why); s != Status::Ok) return s;
  } else if (srq_ = pd_->create_srq(limits_.rx_buffers, status); !srq_) {
    why = "cannot create a shared receive queue on " + device;
    return status;
  }
  const std::size_t buffer = limits_.buffer_size;
  tx_offset_ = std::size_t{limits_.rx_buffers} * buffer;
  ud_rx_offset_ = tx_offset_ + std::size_t{limits_.tx_buffers} * buffer;
  ud_tx_offset_ = ud_rx_offset_ + kServiceBuffers * kServiceBufferBytes;
  atomic_offset_ = ud_tx_offset_ + kServiceBuffers * kServiceBufferBytes;
  slab_.resize(atomic_offset_ + std::size_t{limits_.atomic_slots} * sizeof(uint64_t));
  if (slab_mr_ = pd_->reg_mr(slab_.data(), slab_.size(), kAccessLocalWrite, status); !slab_mr_) {
    why = "cannot register " + std::to_string(slab_.size()) + " bytes of buffers on " + device;
    // Registration pins pages, which the locked-memory limit bounds.
    rlimit limit{};
    if (getrlimit(RLIMIT_MEMLOCK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
      why += " (the locked-memory limit, ulimit -l, is " + std::to_string(limit.rlim_cur / 1024) + " KiB)";
    }
    return status;
  }
  handled_words_.assign(limits_.max_connections, 0);
  handled_mr_ = pd_->reg_mr(handled_words_.data(), handled_words_.size() * sizeof(uint64_t),
                            kAccessLocalWrite | kAccessRemoteWrite, status);
  if (!handled_mr_) {
    why = "cannot register the connections' counters on " + device;
    return status;
  }
  mr_cache_ = std::make_unique<MrCache>(*pd_);
  if (tag_srq_ != nullptr) {
    const uint32_t capacity = std::min(limits_.tag_capacity, info.tm_max_tags);
    tag_device_ = std::make_unique<VerbsTagDevice>(*this, *tag_srq_, *mr_cache_, capacity);
    own_.tag_matching = true;
  }
  for (uint32_t i = 0; i < limits_.rx_buffers; ++i) {
    if (Status s = post_rx(i); s != Status::Ok) {
      why = "cannot post receives on " + device;
      return s;
    }
  }
  for (uint32_t i = limits_.tx_buffers; i > 0; --i) free_tx_.push_back(static_cast<int32_t>(i - 1));
  for (uint32_t i = limits_.atomic_slots; i > 0; --i) free_results_.push_back(static_cast<int32_t>(i - 1));
  if (Status s = open_service(); s != Status::Ok) {
    why = "cannot open the connection service on " + device;
    return s;
  }
  if (getrandom(own_.secret.data(), own_.secret.size(), 0) != static_cast<ssize_t>(own_.secret.size())) {
    why = "getrandom failed";
    return Status::IoError;
  }
  own_.port = {info.link_layer, info.lid, info.gid, info.gid_index};
  own_.mtu = info.active_mtu;
  own_.ud_qpn = ud_qp_->qpn();
  own_.emulated_pid = std::strcmp(provider_->name(), "emulated") == 0 ? static_cast<uint32_t>(getpid()) : 0;
  if (Status s = cq_->request_notify(); s != Status::Ok) {
    why = "cannot arm the completion queue";
    return s;
  }
  TERN_LOG(Debug, "verbs: %s port %u (lid %u), connection service on QP %u", device.c_str(), info.port, info.lid,
           own_.ud_qpn);
  return Status::Ok;
}

VerbsIface::~VerbsIface() {
  while (VerbsEp* ep = eps_.front()) {
    eps_.remove(ep);
    delete ep;
  }
  if (cq_) drain();
  // Then the QPs (members below), the registrations, the queues and the
  // device go, children first.
}

void VerbsIface::drain() noexcept {
  // A send is complete once posted, so what is posted or queued (the last
  // message of a barrier, an acknowledgement) must still reach the peer,
  // connection set-up included: a QP destroyed with requests on it drops
  // them. For at most 5 s; nobody is called back any more, and arrivals are
  // dropped (the worker is going away).
  for (Handler& handler : handlers_) handler = {};
  if (tag_device_) tag_device_->set_completion_handler(nullptr, nullptr);
  for (auto& [uuid, c] : by_uuid_) {
    c->pending.clear();
    c->ops.for_each([](Op& op) {
      op.comp = nullptr;
      op.result = nullptr;
    });
  }
  blocked_.clear();
  ready_.clear();
  auto busy = [&] {
    for (auto& [uuid, c] : by_uuid_) {
      if (c->state != Connection::State::Failed && !c->ops.empty()) return true;
    }
    return false;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (busy() && std::chrono::steady_clock::now() < deadline) {
    if (progress() == 0) usleep(50);
  }
  if (busy()) TERN_LOG(Warn, "verbs: messages to some peers were still unsent after 5 s at shutdown");
}

Status VerbsIface::post_rx(uint32_t index) {
  const std::size_t offset = std::size_t{index} * limits_.buffer_size;
  return srq_->post_recv({wr_id(kWrRx, index), {slab_address(offset), limits_.buffer_size, slab_mr_->lkey()}});
}

Status VerbsIface::post_ud_rx(uint32_t index) {
  const std::size_t offset = ud_rx_offset_ + std::size_t{index} * kServiceBufferBytes;
  return ud_qp_->post_recv(
      {wr_id(kWrUdRx, index), {slab_address(offset), static_cast<uint32_t>(kServiceBufferBytes), slab_mr_->lkey()}});
}

void VerbsIface::set_am_handler(uint8_t id, AmHandler handler, void* arg) {
  if (id < kMaxAmId) handlers_[id] = {handler, arg};
}

bool VerbsIface::is_reachable(std::span<const std::byte> remote_address) const {
  VerbsAddress remote;
  if (!unpack_address(remote_address, remote) || remote.emulated_pid != own_.emulated_pid) return false;
  return port_reaches(own_.port, remote.port);
}

Ep* VerbsIface::create_ep(std::span<const std::byte> remote_address, Status& status) {
  VerbsAddress remote;
  if (!unpack_address(remote_address, remote)) {
    status = Status::InvalidParam;
    return nullptr;
  }
  if (!is_reachable(remote_address)) {
    status = Status::Unreachable;
    return nullptr;
  }
  Connection* c = nullptr;
  if (auto it = by_uuid_.find(remote.worker_uuid); it != by_uuid_.end()) {
    c = it->second.get();
  } else {
    c = new_connection(remote.worker_uuid, status);
    if (c == nullptr) return nullptr;
    c->peer_secret = remote.secret;
    c->peer_tags = remote.tag_matching;
    c->peer_ud_qpn = remote.ud_qpn;
    c->peer_ud = peer_service(remote.port);
    if (!c->peer_ud) {
      status = Status::IoError;
      connection_failed(*c, "cannot make an address handle for the peer");
      return nullptr;
    }
    send_request(*c);
  }
  auto* ep = new VerbsEp(*this, *c);
  ++c->eps;
  eps_.push_back(ep);
  status = Status::Ok;
  return ep;
}

void VerbsIface::destroy_ep(Ep* ep) {
  if (ep == nullptr) return;
  VerbsEp* found = eps_.front();
  while (found != nullptr && found != ep) found = eps_.next(found);
  if (found == nullptr) {
    TERN_LOG(Error, "verbs: destroy_ep of an endpoint this iface did not create");
    return;
  }
  // Its transfers may still run on the shared QP; their callers hear now.
  Connection& c = found->connection();
  c.ops.for_each([found](Op& op) {
    if (op.ep != found) return;
    if (op.comp != nullptr) op.comp->finish_one(Status::Canceled);
    op.comp = nullptr;
    op.result = nullptr;
    op.ep = nullptr;
  });
  --c.eps;
  eps_.remove(found);
  delete found;
}

Status VerbsIface::arm() {
  if (!stash_.empty() || !ready_.empty() || connecting_ > 0) return Status::Busy;
  if (Status s = cq_->request_notify(); s != Status::Ok) return s;
  // A completion that came before the request would raise no event: look.
  WorkCompletion wcs[16];
  const int n = cq_->poll(wcs);
  if (n == 0) return Status::Ok;
  if (n > 0) stash_.assign(wcs, wcs + n);
  return Status::Busy;
}

unsigned VerbsIface::progress() {
  // Before any connection exists only a connection request can come, and
  // one that waits a few polls costs nothing: keep the poll out of the wait
  // loops of ranks that talk only through shm.
  if (TERN_LIKELY(by_uuid_.empty() && stash_.empty()) && (++idle_polls_ & 31) != 0) return 0;
  unsigned handled = 0;
  if (TERN_UNLIKELY(!stash_.empty())) {
    std::vector<WorkCompletion> stashed;
    stashed.swap(stash_);
    for (const WorkCompletion& wc : stashed) handle(wc);
    handled += static_cast<unsigned>(stashed.size());
  }
  WorkCompletion wcs[32];
  // What the tag device's waits kept while the stash was handled is older
  // than anything in the CQ: it goes first, at the next call.
  for (int round = 0; round < 4 && stash_.empty(); ++round) {
    const int n = cq_->poll(wcs);
    if (TERN_UNLIKELY(n < 0)) {
      TERN_LOG(Error, "verbs: the completion queue overran; every connection fails");
      for (auto& [uuid, c] : by_uuid_) connection_failed(*c, "completion queue overrun");
      break;
    }
    for (int i = 0; i < n; ++i) handle(wcs[i]);
    handled += static_cast<unsigned>(n);
    if (n < static_cast<int>(std::size(wcs))) break;
  }
  if (TERN_UNLIKELY(connecting_ > 0)) repeat_requests();
  if (TERN_UNLIKELY(!unreported_.empty())) report_handled();
  if (TERN_UNLIKELY(!ready_.empty()) && !dispatching_) {
    // Swapped with a scratch list that keeps its capacity: dispatching may
    // schedule connections again (and, were an entry to progress us, must
    // not start over on the list it walks).
    dispatching_ = true;
    ready_scratch_.swap(ready_);
    for (Connection* c : ready_scratch_) {
      // A failed connection's entries run to learn of it.
      if (c->state == Connection::State::Failed ||
          (c->state == Connection::State::Open && c->credits > 0 && c->unposted == 0 && !free_tx_.empty())) {
        handled += c->pending.dispatch();
      }
      if (!c->pending.empty()) wait_for_room(*c);
    }
    ready_scratch_.clear();
    dispatching_ = false;
  }
  return handled;
}

void VerbsIface::handle(const WorkCompletion& wc) {
  switch (wr_kind(wc.wr_id)) {
    case kWrRx: on_receive(wc); return;
    case kWrUdRx: {
      const uint32_t index = wr_index(wc.wr_id);
      if (index >= kServiceBuffers) return;
      if (wc.status == WcStatus::Success && wc.byte_len > kGrhBytes && wc.byte_len <= kServiceBufferBytes) {
        on_wireup(slab_at(ud_rx_offset_ + std::size_t{index} * kServiceBufferBytes + kGrhBytes), wc.byte_len - kGrhBytes);
      }
      if (wc.status != WcStatus::Flushed) (void)post_ud_rx(index);
      return;
    }
    case kWrUdTx:
      if (ud_outstanding_ > 0) --ud_outstanding_;
      return;
    case kWrRc: {
      auto it = by_qpn_.find(wc.qp_num);
      if (it != by_qpn_.end()) on_send_done(*it->second, wc);
      return;
    }
    case kWrTag:
    case kWrTagOp: on_tag_completion(wc); return;
  }
  TERN_LOG(Error, "verbs: a completion of unknown origin (wr_id %016llx)", static_cast<unsigned long long>(wc.wr_id));
}

void VerbsIface::on_receive(const WorkCompletion& wc) {
  const uint32_t index = wr_index(wc.wr_id);
  if (TERN_UNLIKELY(index >= limits_.rx_buffers)) return;
  auto it = by_qpn_.find(wc.qp_num);
  Connection* c = it == by_qpn_.end() ? nullptr : it->second;
  // Every message to a TM SRQ is one the device counted as unexpected
  // (verbs_tag_device.hpp): handled once this returns.
  const bool counted = tag_device_ != nullptr && (wc.status == WcStatus::Success || (wc.tag_flags & kWcTagged) != 0);
  if (TERN_LIKELY(wc.status == WcStatus::Success) && c != nullptr && c->state != Connection::State::Failed) {
    const std::byte* data = slab_at(std::size_t{index} * limits_.buffer_size);
    uint32_t length = wc.byte_len;
    uint32_t id = wc.imm;
    bool has_id = wc.has_imm;
    if (tag_device_ != nullptr) {
      has_id = strip_tag_header(data, length, id);
      if (has_id && id != kAppContextTagged) count_ordinary(*c);
    }
    // The requester's first message: its QP is ready, ours may send.
    if (TERN_UNLIKELY(c->state == Connection::State::Accepted)) open_connection(*c);
    if (TERN_UNLIKELY(has_id && id == kImmReady && length == 0)) {
      // Nothing to deliver.
    } else if (TERN_UNLIKELY(has_id && id == kAppContextTagged && tag_device_ != nullptr)) {
      // A tagged send the device matched to nothing.
      tag_device_->on_unexpected(slab_at(std::size_t{index} * limits_.buffer_size), length);
    } else if (TERN_UNLIKELY(!has_id || id >= kMaxAmId || length < sizeof(uint64_t) ||
                             length > limits_.buffer_size)) {
      connection_failed(*c, "an active message with a bad id or length");
    } else if (const Handler& handler = handlers_[id]; handler.fn != nullptr) {
      if (TERN_UNLIKELY(!handler.fn(handler.arg, data, length))) {
        connection_failed(*c, "a malformed active message");
      }
    }
  } else if (wc.status != WcStatus::Success && wc.status != WcStatus::Flushed) {
    TERN_LOG(Error, "verbs: a receive failed: %s", to_string(wc.status));
  }
  if (counted) {
    tag_device_->count_handled();
    if ((wc.tag_flags & kWcSyncRequest) != 0) tag_device_->sync();
  }
  // The SRQ is the only flow control: give the buffer back at once.
  if (Status s = post_rx(index); TERN_UNLIKELY(s != Status::Ok)) {
    TERN_LOG(Error, "verbs: cannot post a receive again: %s", tern::to_string(s));
  }
}

void VerbsIface::on_send_done(Connection& c, const WorkCompletion& wc) {
  ++c.credits;
  retire_flushes(c);
  if (c.ops.empty() || !c.ops.front().posted) {
    connection_failed(c, "a completion for nothing posted");
    return;
  }
  Op op = std::move(c.ops.front());
  c.ops.pop_front();
  const Status status = wc.status == WcStatus::Success ? Status::Ok : Status::IoError;
  if (op.tx_buffer >= 0) free_tx_.push_back(op.tx_buffer);
  if (op.result_slot >= 0) {
    if (status == Status::Ok && op.result != nullptr) {
      uint64_t old = 0;
      std::memcpy(&old, slab_at(atomic_offset_ + std::size_t(op.result_slot) * sizeof(uint64_t)), sizeof(old));
      *op.result = old;
    }
    free_results_.push_back(op.result_slot);
  }
  if (status != Status::Ok) connection_failed(c, to_string(wc.status));
  if (op.comp != nullptr) op.comp->finish_one(c.state == Connection::State::Failed ? Status::IoError : status);
  retire_flushes(c);
  post_waiting(c);
  // A slot of this QP, perhaps a send buffer any connection waits for.
  for (Connection* waiting : blocked_) schedule(*waiting);
  blocked_.clear();
}

void VerbsIface::retire_flushes(Connection& c) {
  while (!c.ops.empty() && c.ops.front().kind == Op::Kind::Flush && c.ops.front().posted) {
    Completion* comp = c.ops.front().comp;
    c.ops.pop_front();
    if (comp != nullptr) comp->finish_one(c.state == Connection::State::Failed ? Status::IoError : Status::Ok);
  }
}

void VerbsIface::schedule(Connection& c) {
  if (std::find(ready_.begin(), ready_.end(), &c) == ready_.end()) ready_.push_back(&c);
}

void VerbsIface::wait_for_room(Connection& c) {
  if (std::find(blocked_.begin(), blocked_.end(), &c) == blocked_.end()) blocked_.push_back(&c);
}

Status VerbsIface::post(Connection& c, Op& op) {
  op.wr.wr_id = wr_id(kWrRc, 0);
  op.wr.signaled = true;
  op.wr.fence = op.wr.fence || c.fence_next;
  const Status status = c.qp->post_send(op.wr);
  if (status == Status::Ok) {
    c.fence_next = false;
    --c.credits;
    op.posted = true;
  }
  return status;
}

void VerbsIface::post_waiting(Connection& c) {
  if (c.state != Connection::State::Open) return;
  while (c.unposted > 0) {
    Op& op = c.ops[c.ops.size() - c.unposted];
    if (op.kind != Op::Kind::Flush) {
      if (c.credits == 0) break;
      const Status status = post(c, op);
      if (status == Status::WouldBlock) break;
      if (status != Status::Ok) {
        connection_failed(c, "a request the QP refused");
        return;
      }
    }
    op.posted = true;
    --c.unposted;
  }
  retire_flushes(c);
}

void VerbsIface::enqueue(Connection& c, Op&& op) {
  op.posted = false;
  c.ops.push_back(std::move(op));
  ++c.unposted;
  post_waiting(c);
}

Status VerbsIface::send_am(Connection& c, uint8_t id, const void* first, std::size_t first_length,
                           const void* second, std::size_t second_length) {
  if (TERN_UNLIKELY(!c.can_send())) {
    return c.state == Connection::State::Failed ? Status::IoError : Status::WouldBlock;
  }
  const std::size_t header = c.peer_tags ? kTagHeaderBytes : 0;
  const std::size_t total = header + first_length + second_length;
  Op op;
  op.kind = Op::Kind::Send;
  op.wr.op = c.peer_tags ? SendOp::Send : SendOp::SendWithImm;
  op.wr.imm = id;
  std::byte staging[256];
  std::byte* data = staging;
  if (total <= c.qp->max_inline() && total <= sizeof(staging)) {
    op.wr.inline_data = true;
  } else {
    if (free_tx_.empty()) return Status::WouldBlock;
    op.tx_buffer = free_tx_.back();
    free_tx_.pop_back();
    data = slab_at(tx_offset_ + std::size_t(op.tx_buffer) * limits_.buffer_size);
  }
  (void)put_tag_header(c, id, kUntaggedTag, data);
  std::memcpy(data + header, first, first_length);
  if (second_length != 0) std::memcpy(data + header + first_length, second, second_length);
  op.wr.sge = {reinterpret_cast<uint64_t>(data), static_cast<uint32_t>(total), slab_mr_->lkey()};
  if (Status s = post(c, op); s != Status::Ok) {
    if (op.tx_buffer >= 0) free_tx_.push_back(op.tx_buffer);
    return s == Status::WouldBlock ? s : Status::IoError;
  }
  c.ops.push_back(std::move(op));
  c.ordinary_sent += c.peer_tags ? 1 : 0;
  return Status::Ok;
}

ssize_t VerbsIface::send_bcopy(Connection& c, uint8_t id, PackCallback pack, void* arg) {
  if (TERN_UNLIKELY(!c.can_send() || free_tx_.empty())) {
    return static_cast<ssize_t>(c.state == Connection::State::Failed ? Status::IoError : Status::WouldBlock);
  }
  const int32_t buffer = free_tx_.back();
  std::byte* data = slab_at(tx_offset_ + std::size_t(buffer) * limits_.buffer_size);
  const std::size_t header = put_tag_header(c, id, kUntaggedTag, data);
  const std::size_t packed = pack(data + header, attr_.max_bcopy, arg);
  if (packed > attr_.max_bcopy) return static_cast<ssize_t>(Status::InvalidParam);
  free_tx_.pop_back();
  Op op;
  op.kind = Op::Kind::Send;
  op.wr.op = c.peer_tags ? SendOp::Send : SendOp::SendWithImm;
  op.wr.imm = id;
  op.wr.sge = {reinterpret_cast<uint64_t>(data), static_cast<uint32_t>(header + packed), slab_mr_->lkey()};
  // Small messages go inline (the device reads no buffer), so the buffer is
  // free again at once.
  op.wr.inline_data = header + packed <= c.qp->max_inline();
  if (!op.wr.inline_data) op.tx_buffer = buffer;
  const Status status = post(c, op);
  if (op.wr.inline_data || status != Status::Ok) free_tx_.push_back(buffer);
  if (status != Status::Ok) return static_cast<ssize_t>(status == Status::WouldBlock ? status : Status::IoError);
  c.ops.push_back(std::move(op));
  c.ordinary_sent += c.peer_tags ? 1 : 0;
  return static_cast<ssize_t>(packed);
}

Status VerbsIface::start_rdma(Connection& c, const VerbsEp* ep, SendOp kind, const void* local, std::size_t length,
                              RemoteMemory remote, Completion* comp) {
  if (length == 0) return Status::Ok;
  if (local == nullptr || remote.address == 0 || !is_key(remote.key) || remote.address + length < remote.address) {
    return Status::InvalidParam;
  }
  if (c.state == Connection::State::Failed) return Status::IoError;
  Status status = Status::Ok;
  const Mr* mr = mr_cache_->get(local, length, status);
  if (mr == nullptr) return status == Status::InvalidParam ? status : Status::IoError;
  // The caller counts one operation; each piece finishes one.
  const auto pieces = static_cast<int32_t>((length + kMaxPiece - 1) / kMaxPiece);
  if (comp != nullptr) comp->count += pieces - 1;
  for (std::size_t offset = 0; offset < length; offset += kMaxPiece) {
    const std::size_t piece = std::min(kMaxPiece, length - offset);
    Op op;
    op.kind = Op::Kind::Rdma;
    op.comp = comp;
    op.ep = ep;
    op.wr.op = kind;
    op.wr.sge = {reinterpret_cast<uint64_t>(local) + offset, static_cast<uint32_t>(piece), mr->lkey()};
    op.wr.remote_address = remote.address + offset;
    op.wr.rkey = static_cast<uint32_t>(remote.key);
    enqueue(c, std::move(op));
  }
  return Status::InProgress;
}

Status VerbsIface::start_atomic(Connection& c, const VerbsEp* ep, const AtomicArgs& args, RemoteMemory remote,
                                Completion* comp) {
  // Verbs has 8-byte fetch-add and compare-swap; the other operations
  // (and 4-byte words) are for a later compare-swap loop.
  const bool add = args.op == AtomicOp::Add || args.op == AtomicOp::FetchAdd;
  if (args.size != 8 || (!add && args.op != AtomicOp::CompareSwap) || !device().atomics) return Status::Unsupported;
  if (remote.address == 0 || remote.address % 8 != 0 || !is_key(remote.key)) return Status::InvalidParam;
  if (c.state == Connection::State::Failed) return Status::IoError;
  if (free_results_.empty()) return Status::NoMemory;
  Op op;
  op.kind = Op::Kind::Atomic;
  op.comp = comp;
  op.ep = ep;
  op.result = args.result;
  op.result_slot = free_results_.back();
  free_results_.pop_back();
  const std::size_t offset = atomic_offset_ + std::size_t(op.result_slot) * sizeof(uint64_t);
  op.wr.op = add ? SendOp::FetchAdd : SendOp::CompareSwap;
  op.wr.sge = {slab_address(offset), sizeof(uint64_t), slab_mr_->lkey()};
  op.wr.remote_address = remote.address;
  op.wr.rkey = static_cast<uint32_t>(remote.key);
  op.wr.compare_add = add ? args.operand : args.compare;
  op.wr.swap = args.operand;
  enqueue(c, std::move(op));
  return Status::InProgress;
}

Status VerbsIface::start_flush(Connection& c, Completion* comp) {
  if (c.ops.empty()) return c.state == Connection::State::Failed ? Status::IoError : Status::Ok;
  if (comp == nullptr) return Status::InProgress;
  Op op;
  op.kind = Op::Kind::Flush;
  op.comp = comp;
  enqueue(c, std::move(op));
  return Status::InProgress;
}

uint64_t VerbsIface::offer(const void* local, std::size_t length) {
  Status status = Status::Ok;
  const Mr* mr = mr_cache_->get(local, length, status);
  return mr == nullptr ? 0 : to_key(mr->rkey());
}

std::string VerbsIface::route() const {
  return "on " + device().name + " port " + std::to_string(device().port);
}

uint64_t VerbsIface::mem_register(const void* base, std::size_t length) {
  return base == nullptr || length == 0 ? 0 : offer(base, length);
}

void VerbsIface::connection_failed(Connection& c, const char* why) {
  if (c.state == Connection::State::Failed) return;
  if (c.state == Connection::State::Connecting) --connecting_;
  c.state = Connection::State::Failed;
  if (c.qp) (void)c.qp->to_error();  // what is posted comes back flushed
  // What never reached the QP fails now; what did, as its completion comes.
  while (c.unposted > 0) {
    Op op = std::move(c.ops.back());
    c.ops.pop_back();
    --c.unposted;
    if (op.result_slot >= 0) free_results_.push_back(op.result_slot);
    if (op.comp != nullptr) op.comp->finish_one(Status::IoError);
  }
  retire_flushes(c);
  if (!c.pending.empty()) schedule(c);
  TERN_LOG(Error, "verbs: connection to %016llx failed: %s", static_cast<unsigned long long>(c.peer_uuid), why);
  if (on_failure_ != nullptr) {
    for (VerbsEp* ep = eps_.front(); ep != nullptr; ep = eps_.next(ep)) {
      if (&ep->connection() == &c) on_failure_(failure_arg_, this, ep, why);
    }
  }
}

}  // namespace verbs

std::unique_ptr<Iface> create_verbs_iface(const IfaceParams& params, Status& status) {
  return verbs::VerbsIface::create(params, verbs::default_provider(params.config), verbs::limits_for(params.config),
                                   status);
}

}  // namespace tern::engine::transport
