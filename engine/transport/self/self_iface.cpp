#include "self_iface.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "tern/runtime/log.hpp"
#include "transport/fifo_config.hpp"

namespace tern::engine::transport {
namespace self {
namespace {

constexpr uint32_t kAddressMagic = 0x464c5354;  // "TSLF"
constexpr uint32_t kAddressVersion = 1;

struct PackedAddress {
  uint32_t magic;
  uint32_t version;
  uint64_t uuid;
};
static_assert(sizeof(PackedAddress) == 16);

bool unpack(std::span<const std::byte> bytes, PackedAddress& out) noexcept {
  if (bytes.size() != sizeof(PackedAddress)) return false;
  std::memcpy(&out, bytes.data(), sizeof(out));
  return out.magic == kAddressMagic && out.version == kAddressVersion;
}

}  // namespace

void SelfIface::FreeCells::operator()(std::byte* cells) const noexcept { std::free(cells); }

std::unique_ptr<Iface> SelfIface::create(const IfaceParams& params, Status& status) {
  FifoGeometry geometry;
  if (!fifo_geometry_from(params.config, 0, geometry)) {
    TERN_LOG(Error, "self: unsupported FIFO geometry (%zu cells (0: auto) of %zu bytes)", params.config.shm_fifo_cells,
             params.config.shm_cell_size);
    status = Status::InvalidParam;
    return nullptr;
  }
  auto* cells = static_cast<std::byte*>(std::aligned_alloc(kCacheLine, geometry.bytes()));
  if (cells == nullptr) {
    status = Status::NoMemory;
    return nullptr;
  }
  const int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) {
    TERN_LOG(Error, "self: eventfd: %s", std::strerror(errno));
    std::free(cells);
    status = Status::IoError;
    return nullptr;
  }
  status = Status::Ok;
  return std::unique_ptr<Iface>(new SelfIface(params, geometry, cells, fd));
}

SelfIface::SelfIface(const IfaceParams& params, FifoGeometry geometry, std::byte* cells, int event_fd)
    : geometry_(geometry), uuid_(params.worker_uuid), cells_(cells), event_fd_(event_fd) {
  fifo_init(&indices_, cells, geometry);
  inbox_.attach(&indices_, cells, geometry);
  attr_.name = "self";
  attr_.flags = kCapAmShort | kCapAmBcopy | kCapGetZcopy | kCapPutZcopy | kCapWakeup | kCapLoopback;
  attr_.max_bcopy = geometry.max_message();
  attr_.max_short = attr_.max_bcopy - sizeof(uint64_t);
  attr_.max_zcopy = SIZE_MAX;
  // A get is a memcpy here, from any memory.
  attr_.rndv_threshold = mapped_rndv_threshold_from(params.config, attr_.max_short);
  attr_.rndv_threshold_mapped = attr_.rndv_threshold;
  attr_.rndv_threshold_drained = attr_.rndv_threshold;
  attr_.rndv_threshold_metered = attr_.rndv_threshold;
  attr_.priority = 40;
}

SelfIface::~SelfIface() {
  while (SelfEp* ep = eps_.front()) destroy_ep(ep);
  close(event_fd_);
}

unsigned SelfIface::progress() {
  // At most one FIFO's worth: a handler that keeps sending to itself must not
  // keep us here forever.
  unsigned events = inbox_.poll(geometry_.cells);
  if (TERN_UNLIKELY(!pending_eps_.empty())) events += dispatch_pending();
  return events;
}

unsigned SelfIface::dispatch_pending() {
  unsigned events = 0;
  for (SelfEp* ep = pending_eps_.front(); ep != nullptr;) {
    SelfEp* next = pending_eps_.next(ep);
    if (!ep->pending_empty() && ep->has_room()) events += ep->dispatch_pending();
    if (ep->pending_empty()) pending_eps_.remove(ep);
    ep = next;
  }
  return events;
}

void SelfIface::schedule_pending(SelfEp& ep) noexcept {
  if (!ep.pending_hook.linked()) pending_eps_.push_back(&ep);
}

void SelfIface::set_am_handler(uint8_t id, AmHandler handler, void* arg) { inbox_.set_handler(id, handler, arg); }

std::vector<std::byte> SelfIface::address() const {
  const PackedAddress packed{kAddressMagic, kAddressVersion, uuid_};
  std::vector<std::byte> bytes(sizeof(packed));
  std::memcpy(bytes.data(), &packed, sizeof(packed));
  return bytes;
}

bool SelfIface::is_reachable(std::span<const std::byte> remote_address) const {
  PackedAddress peer{};
  return unpack(remote_address, peer) && peer.uuid == uuid_;
}

Ep* SelfIface::create_ep(std::span<const std::byte> remote_address, Status& status) {
  PackedAddress peer{};
  if (!unpack(remote_address, peer)) {
    status = Status::InvalidParam;
    return nullptr;
  }
  if (peer.uuid != uuid_) {
    status = Status::Unreachable;
    return nullptr;
  }
  auto* ep = new SelfEp(*this, FifoSender(&indices_, cells_.get(), geometry_), geometry_.max_message());
  eps_.push_back(ep);
  status = Status::Ok;
  return ep;
}

void SelfIface::destroy_ep(Ep* ep) {
  if (ep == nullptr) return;
  // Only endpoints of this iface: a foreign pointer is left alone.
  SelfEp* found = eps_.front();
  while (found != nullptr && found != ep) found = eps_.next(found);
  if (found == nullptr) {
    TERN_LOG(Error, "self: destroy_ep of an endpoint this iface did not create");
    return;
  }
  found->drop_pending();
  if (found->pending_hook.linked()) pending_eps_.remove(found);
  eps_.remove(found);
  delete found;
}

Status SelfIface::arm() {
  if (inbox_.ready() || !pending_eps_.empty()) return Status::Busy;
  armed_ = true;
  return Status::Ok;
}

void SelfIface::disarm() {
  uint64_t count = 0;
  while (read(event_fd_, &count, sizeof(count)) == static_cast<ssize_t>(sizeof(count))) {
  }
  armed_ = false;
}

void SelfIface::wake() noexcept {
  armed_ = false;
  const uint64_t one = 1;
  // Can only fail if the counter would overflow, which means a wakeup is
  // already pending.
  ssize_t ignored = write(event_fd_, &one, sizeof(one));
  (void)ignored;
}

}  // namespace self

std::unique_ptr<Iface> create_self_iface(const IfaceParams& params, Status& status) {
  return self::SelfIface::create(params, status);
}

}  // namespace tern::engine::transport
