#include "shm_iface.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <utility>

#include "cma.hpp"
#include "remote_fence.hpp"
#include "tern/runtime/log.hpp"
#include "tern/runtime/name_hash.hpp"
#include "transport/fifo_config.hpp"

namespace tern::engine::transport {
namespace shm {
namespace {

constexpr std::size_t kDefaultCmaChunk = std::size_t{4} << 20;
// How long a claimed cell may stay empty. A sender fills it within
// microseconds; the bound leaves room for one that is descheduled or
// stopped (a debugger, SIGSTOP) before the receiver gives up on the FIFO.
constexpr uint64_t kDefaultStallLimitNs = 10'000'000'000ull;

uint64_t now_ns() noexcept {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}
constexpr std::size_t kMaxJobTag = 40;
constexpr int kNameAttempts = 64;

// Names this process's segments apart; with the pid, unique on the host.
std::atomic<uint32_t> g_segment_counter{0};
// The CMA refusal is logged once per process, not once per peer.
std::atomic<bool> g_cma_refusal_logged{false};

// The job id as it goes into names: itself when short and plain, else a hash.
std::string job_tag(const std::string& job_id) {
  bool plain = !job_id.empty() && job_id.size() <= kMaxJobTag;
  for (char c : job_id) {
    plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_');
  }
  if (plain) return job_id;
  return runtime::name_hash_hex(job_id);
}

}  // namespace

std::unique_ptr<Iface> ShmIface::create(const IfaceParams& params, Status& status) {
  FifoGeometry geometry;
  if (!fifo_geometry_from(params.config, params.expected_peers, geometry)) {
    TERN_LOG(Error, "shm: unsupported FIFO geometry (%zu cells (0: auto) of %zu bytes)", params.config.shm_fifo_cells,
             params.config.shm_cell_size);
    status = Status::InvalidParam;
    return nullptr;
  }
  const std::string prefix = "/tern-" + job_tag(params.job_id) + "-" + std::to_string(getpid()) + "-";
  for (int attempt = 0; attempt < kNameAttempts; ++attempt) {
    // A name can be taken by a segment a dead process with our pid left.
    std::string name = prefix + std::to_string(g_segment_counter.fetch_add(1, std::memory_order_relaxed));
    ShmSegment segment;
    status = ShmSegment::create(name, segment_size(geometry), segment);
    if (status == Status::Busy) continue;
    if (status != Status::Ok) return nullptr;
    WakeupSocket wakeup;
    status = WakeupSocket::open(wakeup_address(name), wakeup);
    if (status != Status::Ok) {
      ShmSegment::unlink(name);
      if (status == Status::Busy) continue;
      return nullptr;
    }
    status = Status::Ok;
    return std::unique_ptr<Iface>(
        new ShmIface(params, geometry, std::move(name), std::move(segment), std::move(wakeup)));
  }
  TERN_LOG(Error, "shm: no free segment name with prefix %s", prefix.c_str());
  status = Status::Busy;
  return nullptr;
}

ShmIface::ShmIface(const IfaceParams& params, FifoGeometry geometry, std::string segment_name, ShmSegment segment,
                   WakeupSocket wakeup)
    : cells_(geometry.cells),
      header_(static_cast<SegmentHeader*>(segment.base())),
      segment_(std::move(segment)),
      wakeup_(std::move(wakeup)),
      cma_mode_(params.config.cma),
      cma_chunk_(params.config.cma_chunk != 0 ? params.config.cma_chunk : kDefaultCmaChunk),
      split_copies_(params.config.cma_split != runtime::Switch::Off),
      fence_before_sleep_(remote_fence_available()),
      on_failure_(params.on_failure),
      failure_arg_(params.failure_arg),
      stall_limit_ns_(kDefaultStallLimitNs) {
  auto* cells = static_cast<std::byte*>(segment_.base()) + kCellsOffset;
  new (header_) SegmentHeader();
  header_->version = kSegmentVersion;
  header_->owner_pid = static_cast<int32_t>(getpid());
  header_->cells = geometry.cells;
  header_->cell_size = geometry.cell_size;
  header_->expected_peers = params.expected_peers;
  header_->probe_address = reinterpret_cast<uint64_t>(&probe_word_);
  header_->fences_before_sleep = fence_before_sleep_ ? 1 : 0;
  fifo_init(&header_->fifo, cells, geometry);
  std::byte* rings = static_cast<std::byte*>(segment_.base()) + rings_offset(geometry);
  if (params.config.shm_rings != runtime::Switch::Off) {
    header_->ring_slots = kRingSlots;
    for (uint32_t slot = 0; slot < kRingSlots; ++slot) {
      std::byte* at = rings + slot * kRingStride;
      ring_init(reinterpret_cast<RingControl*>(at), at + sizeof(RingControl), kRingBytes);
    }
  }
  offers_.attach(reinterpret_cast<OfferSlot*>(static_cast<std::byte*>(segment_.base()) + kOffersOffset));
  // Senders write offloaded receives' buffers with CMA.
  if (params.config.tm_offload != runtime::Switch::Off && cma_mode_ != runtime::Switch::Off &&
      params.config.tm_capacity != 0) {
    auto* table = new (static_cast<std::byte*>(segment_.base()) + tag_table_offset(geometry)) TagTable();
    tags_.emplace(table, static_cast<uint32_t>(params.config.tm_capacity));
    tags_->set_peer_check(&ShmIface::is_peer_process, this);
    tags_->set_arena(&arena_);
  }
  // Last: a peer that sees the magic sees everything above.
  header_->magic.store(kSegmentMagic, std::memory_order_release);
  inbox_.attach(&header_->fifo, cells, geometry);
  if (header_->ring_slots != 0) {
    inbox_.attach_rings(&header_->rings_claimed, header_->ring_slots, rings, kRingStride, kRingBytes);
  }

  address_.host = local_host_id();
  address_.pid = getpid();
  address_.geometry = geometry;
  address_.segment_name = std::move(segment_name);
  if (params.config.shm_arena_size != 0 && arena_.create(params.config.shm_arena_size) == Status::Ok) {
    address_.arena_fd = arena_.fd();
    address_.arena_base = arena_.base();
    address_.arena_capacity = arena_.capacity();
  }
  packed_address_ = pack_address(address_);

  attr_.name = "shm";
  attr_.flags = kCapAmShort | kCapAmBcopy | kCapWakeup;
  if (cma_mode_ != runtime::Switch::Off) {
    attr_.flags |= kCapGetZcopy | kCapPutZcopy;
    attr_.max_zcopy = SIZE_MAX;  // chunked by progress, no limit per call
  }
  attr_.max_bcopy = geometry.max_message();
  attr_.max_short = attr_.max_bcopy - sizeof(uint64_t);
  attr_.rndv_threshold = rndv_threshold_from(params.config, params.expected_peers);
  attr_.rndv_threshold_drained = drained_rndv_threshold_from(params.config);
  attr_.rndv_threshold_metered = metered_rndv_threshold_from(params.config);
  attr_.rndv_threshold_mapped = mapped_rndv_threshold_from(params.config, attr_.max_short);
  attr_.priority = 30;
}

ShmIface::~ShmIface() {
  while (ShmEp* ep = eps_.front()) destroy_ep(ep);
  // A forked child tearing down its copy of the iface must not take the
  // parent's name away.
  if (getpid() == address_.pid) ShmSegment::unlink(address_.segment_name);
}

bool ShmIface::is_peer_process(void* arg, pid_t pid) {
  auto& self = *static_cast<ShmIface*>(arg);
  for (ShmEp* ep = self.eps_.front(); ep != nullptr; ep = self.eps_.next(ep)) {
    if (ep->peer_pid() == pid) return true;
  }
  return false;
}

void ShmIface::release_shared_names() noexcept {
  if (getpid() == address_.pid) ShmSegment::unlink(address_.segment_name);
}

unsigned ShmIface::progress() {
  // At most one FIFO's worth, so a peer that keeps sending cannot hold us.
  unsigned events = inbox_.poll(cells_);
  // The shared indices are checked now and then while idle (a few ms of spinning).
  if (events == 0 && inbox_.idle_check_due()) (void)check_inbox();
  if (TERN_UNLIKELY(!pending_eps_.empty())) events += dispatch_pending();
  if (tags_ && tags_->active()) events += tags_->poll();
  if (TERN_UNLIKELY(!zcopy_eps_.empty())) {
    events += progress_zcopy();
    if (zcopy_eps_.empty()) header_->copying.store(0, std::memory_order_relaxed);
  } else if (TERN_UNLIKELY(offers_.helping())) {
    events += offers_.help();
  }
  return events;
}

unsigned ShmIface::dispatch_pending() {
  unsigned events = 0;
  for (ShmEp* ep = pending_eps_.front(); ep != nullptr;) {
    ShmEp* next = pending_eps_.next(ep);
    if (TERN_UNLIKELY(ep->take_failure())) peer_failed(*ep, "its shared-memory receive queue is corrupted");
    // has_room reads the peer's tail line only while entries wait.
    if (!ep->pending_empty() && ep->has_room()) events += ep->dispatch_pending();
    if (ep->pending_empty()) pending_eps_.remove(ep);
    ep = next;
  }
  return events;
}

unsigned ShmIface::progress_zcopy() {
  unsigned events = 0;
  // One chunk per endpoint per call: a long transfer to one peer leaves room
  // for the others and for the FIFO.
  for (ShmEp* ep = zcopy_eps_.front(); ep != nullptr;) {
    ShmEp* next = zcopy_eps_.next(ep);
    events += ep->progress_zcopy(cma_chunk_);
    if (ep->zcopy_idle()) zcopy_eps_.remove(ep);
    ep = next;
  }
  return events;
}

void ShmIface::schedule_pending(ShmEp& ep) noexcept {
  if (!ep.pending_hook.linked()) pending_eps_.push_back(&ep);
}

void ShmIface::schedule_zcopy(ShmEp& ep) noexcept {
  if (ep.zcopy_hook.linked()) return;
  if (zcopy_eps_.empty()) header_->copying.store(1, std::memory_order_relaxed);
  zcopy_eps_.push_back(&ep);
}

void ShmIface::set_am_handler(uint8_t id, AmHandler handler, void* arg) { inbox_.set_handler(id, handler, arg); }

bool ShmIface::reachable(const ShmAddress& peer) const noexcept {
  if (peer.host != address_.host) return false;
  // Our own FIFO: the worker uses `self` for that.
  return !(peer.pid == address_.pid && peer.segment_name == address_.segment_name);
}

bool ShmIface::is_reachable(std::span<const std::byte> remote_address) const {
  ShmAddress peer;
  return unpack_address(remote_address, peer) && reachable(peer);
}

Ep* ShmIface::create_ep(std::span<const std::byte> remote_address, Status& status) {
  ShmAddress address;
  if (!unpack_address(remote_address, address)) {
    status = Status::InvalidParam;
    return nullptr;
  }
  if (!reachable(address)) {
    status = Status::Unreachable;
    return nullptr;
  }
  ShmEp::Peer peer;
  status = ShmSegment::attach(address.segment_name, segment_size(address.geometry), peer.segment);
  if (status != Status::Ok) {
    // No name: its owner is gone, or all its expected peers came already.
    if (status == Status::NotFound) {
      TERN_LOG(Debug, "shm: %s no longer exists", address.segment_name.c_str());
      status = Status::Unreachable;
    }
    return nullptr;
  }
  const auto* header = static_cast<SegmentHeader*>(peer.segment.base());
  if (header->magic.load(std::memory_order_acquire) != kSegmentMagic || header->version != kSegmentVersion ||
      header->owner_pid != static_cast<int32_t>(address.pid) || header->cells != address.geometry.cells ||
      header->cell_size != address.geometry.cell_size) {
    TERN_LOG(Error, "shm: %s does not match the address it came with", address.segment_name.c_str());
    status = Status::InvalidParam;
    return nullptr;
  }
  if (cma_mode_ != runtime::Switch::Off) {
    const int error = cma_probe(address.pid, header->probe_address, kProbeMagic);
    if (error == ESRCH) {
      // Not a refusal: the peer has ended (a job that is going down).
      TERN_LOG(Debug, "shm: the process behind %s is gone", address.segment_name.c_str());
      status = Status::Unreachable;
      return nullptr;
    }
    if (error == 0) {
      peer.zcopy = true;
    } else if (cma_mode_ == runtime::Switch::On) {
      TERN_LOG(Error, "shm: CMA refused by the kernel (%s) and TERN_CMA=on", std::strerror(error));
      status = Status::Unsupported;
      return nullptr;
    } else if (!g_cma_refusal_logged.exchange(true, std::memory_order_relaxed)) {
      TERN_LOG(Warn, "CMA refused by the kernel (%s): large messages will be copied through the FIFO",
               std::strerror(error));
    }
  }
  // Counted only now that the endpoint will exist. The peer that completes
  // the expected count removes the name: from here on a crash of any process
  // leaves nothing behind in /dev/shm.
  const uint32_t attached =
      const_cast<SegmentHeader*>(header)->attach_count.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (header->expected_peers != 0 && attached == header->expected_peers) ShmSegment::unlink(address.segment_name);

  peer.pid = address.pid;
  peer.arena_fd = address.arena_fd;
  peer.arena_base = address.arena_base;
  peer.arena_capacity = address.arena_capacity;
  peer.geometry = address.geometry;
  peer.wakeup = wakeup_address(address.segment_name);
  auto* ep = new ShmEp(*this, std::move(peer));
  eps_.push_back(ep);
  status = Status::Ok;
  return ep;
}

void ShmIface::destroy_ep(Ep* ep) {
  if (ep == nullptr) return;
  // Only endpoints of this iface: a foreign pointer is left alone.
  ShmEp* found = eps_.front();
  while (found != nullptr && found != ep) found = eps_.next(found);
  if (found == nullptr) {
    TERN_LOG(Error, "shm: destroy_ep of an endpoint this iface did not create");
    return;
  }
  if (found->pending_hook.linked()) pending_eps_.remove(found);
  if (found->zcopy_hook.linked()) {
    zcopy_eps_.remove(found);
    if (zcopy_eps_.empty()) header_->copying.store(0, std::memory_order_relaxed);
  }
  eps_.remove(found);
  delete found;
}

FifoReceiver::Health ShmIface::check_inbox() {
  using Health = FifoReceiver::Health;
  if (inbox_lost_) return Health::Corrupt;
  const FifoReceiver& rx = inbox_.receiver();
  const uint64_t head = rx.shared_head();
  const uint64_t tail = rx.shared_tail();
  const Health health = inbox_.health(now_ns(), stall_limit_ns_);
  if (health != Health::Corrupt) return health;
  TERN_LOG(Error,
           "shm: receive queue %s is corrupted (head %llu, shared tail %llu, next to read %llu): something other "
           "than its senders wrote it; messages from local peers can no longer be received",
           address_.segment_name.c_str(), static_cast<unsigned long long>(head), static_cast<unsigned long long>(tail),
           static_cast<unsigned long long>(rx.tail()));
  inbox_.detach();
  inbox_lost_ = true;
  if (on_failure_ != nullptr) {
    on_failure_(failure_arg_, this, nullptr, "this side's shared-memory receive queue is corrupted");
  }
  return health;
}

void ShmIface::peer_failed(ShmEp& ep, const char* why) noexcept {
  if (on_failure_ != nullptr) on_failure_(failure_arg_, this, &ep, why);
}

Status ShmIface::arm() {
  // Waiting entries and queued copies need our progress, not a peer's send.
  if (!pending_eps_.empty() || !zcopy_eps_.empty()) return Status::Busy;
  // A claimed cell that stays empty is waited for awake, so that the bound
  // on that wait can end it (FifoInbox::health) instead of a sleep forever.
  if (check_inbox() == FifoReceiver::Health::Waiting) return Status::Busy;
  // The receiver's half of the handshake in FifoSender::publish; senders
  // that publish without a fence get theirs from remote_fence().
  header_->armed.store(1, std::memory_order_seq_cst);
  if (fence_before_sleep_) remote_fence();
  if (inbox_.ready_seq_cst() || (tags_ && tags_->completions_waiting())) {
    header_->armed.store(0, std::memory_order_relaxed);
    return Status::Busy;
  }
  return Status::Ok;
}

void ShmIface::disarm() {
  // Down first, so that senders stop paying for datagrams once we are awake.
  header_->armed.store(0, std::memory_order_relaxed);
  (void)wakeup_.drain();
}

}  // namespace shm

std::unique_ptr<Iface> create_shm_iface(const IfaceParams& params, Status& status) {
  return shm::ShmIface::create(params, status);
}

}  // namespace tern::engine::transport
