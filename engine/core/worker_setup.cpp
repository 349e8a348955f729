// Creating a worker: its transports, its address, and endpoints to peers.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/address.hpp"
#include "core/worker_impl.hpp"
#include "tag/wire.hpp"
#include "tern/runtime/log.hpp"
#include "transport/host_id.hpp"
#include "transport/iface_params.hpp"

namespace tern::engine {
namespace {

uint64_t make_uuid() {
  uint64_t uuid = 0;
  if (getrandom(&uuid, sizeof(uuid), 0) != sizeof(uuid)) {
    uuid = (static_cast<uint64_t>(getpid()) << 32) ^ reinterpret_cast<uintptr_t>(&uuid);
  }
  return uuid == 0 ? 1 : uuid;
}

std::string default_job_id() {
  const char* from_env = std::getenv("TERN_JOB_ID");
  std::string id = from_env != nullptr ? from_env : "p" + std::to_string(getpid());
  // Only characters that are safe in shm and socket names.
  for (char& c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  return id;
}

bool transport_allowed(const std::string& list, const char* name) {
  if (list.empty()) return true;
  std::string_view rest(list);
  while (!rest.empty()) {
    auto comma = rest.find(',');
    auto item = rest.substr(0, comma);
    if (item == "all" || item == name) return true;
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return false;
}

}  // namespace

Status WorkerImpl::create(const WorkerParams& params, std::unique_ptr<WorkerImpl>& out) {
  std::unique_ptr<WorkerImpl> worker(new (std::nothrow) WorkerImpl());
  if (!worker) return Status::NoMemory;
  worker->params_ = params;
  if (worker->params_.job_id.empty()) worker->params_.job_id = default_job_id();
  worker->uuid_ = make_uuid();
  worker->thread_safe_ = params.thread_safe;
  if (!worker->thread_safe_) worker->cpu_hop_.init(worker->uuid_);
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) {
    worker->max_unexpected_bytes_ = static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size);
  }
  if (Status s = worker->open_wakeup(); s != Status::Ok) return s;
  if (Status s = worker->open_ifaces(); s != Status::Ok) return s;
  out = std::move(worker);
  return Status::Ok;
}

Status WorkerImpl::open_wakeup() {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  signal_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd_ < 0 || signal_fd_ < 0) {
    TERN_LOG(Error, "worker: cannot create wakeup descriptors: %s", std::strerror(errno));
    return Status::IoError;
  }
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = signal_fd_;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, signal_fd_, &event) != 0) return Status::IoError;
  return Status::Ok;
}

Status WorkerImpl::open_ifaces() {
  transport::IfaceParams iface_params;
  iface_params.job_id = params_.job_id;
  iface_params.worker_uuid = uuid_;
  iface_params.expected_peers = params_.local_peers;
  iface_params.config = params_.config;
  iface_params.on_failure = &WorkerImpl::on_transport_failure;
  iface_params.failure_arg = this;

  using Factory = std::unique_ptr<transport::Iface> (*)(const transport::IfaceParams&, Status&);
  struct Candidate {
    const char* name;
    Factory factory;
  };
  static constexpr Candidate kTransports[] = {
      {"self", &transport::create_self_iface},
      {"shm", &transport::create_shm_iface},
      {"verbs", &transport::create_verbs_iface},  // Unsupported (skipped) without an RDMA device
      {"tcp", &transport::create_tcp_iface},
  };
  auto opened = [&](const char* name) {
    return std::any_of(ifaces_.begin(), ifaces_.end(),
                       [&](const auto& iface) { return std::strcmp(iface->attr().name, name) == 0; });
  };
  for (const Candidate& candidate : kTransports) {
    if (!transport_allowed(params_.config.transports, candidate.name)) continue;
    if (params_.on_host_only && std::strcmp(candidate.name, "tcp") == 0 && opened("shm")) continue;
    Status status = Status::Ok;
    std::unique_ptr<transport::Iface> iface = candidate.factory(iface_params, status);
    if (!iface) {
      // TERN_TCP_IF=none (or no interface at all) is a choice, not a fault.
      if (status == Status::Unsupported) continue;
      TERN_LOG(Warn, "worker: transport %s unavailable: %s", candidate.name, to_string(status));
      continue;
    }
    ifaces_.push_back(std::move(iface));
  }
  if (ifaces_.empty()) {
    TERN_LOG(Error, "worker: no transport could be opened (TERN_TLS=%s)", params_.config.transports.c_str());
    return Status::Unreachable;
  }
  std::stable_sort(ifaces_.begin(), ifaces_.end(),
                   [](const auto& a, const auto& b) { return a->attr().priority > b->attr().priority; });

  std::vector<std::vector<std::byte>> iface_addresses;
  std::vector<TransportAddress> entries;
  iface_addresses.reserve(ifaces_.size());
  for (auto& iface : ifaces_) {
    // Every poll of every iface lengthens the loop that waits for a message.
    if ((iface->attr().flags & transport::kCapLoopback) == 0) iface_list_.push_back(iface.get());
    register_am_handlers(*iface);
    iface_addresses.push_back(iface->address());
    if (int fd = iface->event_fd(); fd >= 0) {
      epoll_event event{};
      event.events = EPOLLIN;
      event.data.fd = fd;
      if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) return Status::IoError;
    }
  }
  for (std::size_t i = 0; i < ifaces_.size(); ++i) {
    entries.push_back({ifaces_[i]->attr().name, iface_addresses[i]});
  }
  attach_tag_device();
  address_ = pack_worker_address(uuid_, transport::local_host_name(), entries);
  return Status::Ok;
}

void WorkerImpl::attach_tag_device() {
  if (params_.config.tm_offload == runtime::Switch::Off) return;
  offload_unmapped_threshold_ = std::max<std::size_t>(params_.config.tm_threshold, 1);
  offload_send_threshold_ =
      std::max<std::size_t>(std::min(params_.config.tm_threshold, params_.config.tm_threshold_mapped), 1);
  // Posted receives go to the first device; every device reports to us,
  // since one may deliver messages it matched to nothing (verbs) even when
  // it holds no receive.
  for (auto& iface : ifaces_) {
    if (transport::TagDevice* device = iface->tag_device()) {
      device->set_completion_handler(&WorkerImpl::on_tag_completion, this);
      if (offload_.device() == nullptr) {
        offload_.attach(device, params_.config.tm_threshold, params_.config.tm_threshold_mapped);
      }
    }
  }
}

void WorkerImpl::register_am_handlers(transport::Iface& iface) {
  iface.set_am_handler(tag::kAmHello, &proto::on_hello, this);
  iface.set_am_handler(tag::kAmEager, &proto::on_eager, this);
  iface.set_am_handler(tag::kAmEagerSync, &proto::on_eager_sync, this);
  iface.set_am_handler(tag::kAmEagerFirst, &proto::on_eager_first, this);
  iface.set_am_handler(tag::kAmEagerMiddle, &proto::on_eager_middle, this);
  iface.set_am_handler(tag::kAmRndvRts, &proto::on_rndv_rts, this);
  iface.set_am_handler(tag::kAmSendAck, &proto::on_send_ack, this);
  iface.set_am_handler(tag::kAmSendCancel, &proto::on_send_cancel, this);
  iface.set_am_handler(tag::kAmSendCanceled, &proto::on_send_canceled, this);
  iface.set_am_handler(tag::kAmCancelRefused, &proto::on_cancel_refused, this);
  iface.set_am_handler(tag::kAmAgentTicket, &proto::on_agent_ticket, this);
  iface.set_am_handler(tag::kAmAgentRts, &proto::on_agent_rts, this);
  iface.set_am_handler(tag::kAmAgentDone, &proto::on_agent_done, this);
}

WorkerImpl::~WorkerImpl() {
  // Messages nobody received: their payloads go back before the cache goes.
  while (tag::UnexpectedEntry* entry = matcher_.find_unexpected(0, 0, true)) {
    free_unexpected(*this, container_of(entry, &Message::entry));
  }
  for (auto& [uuid, ep] : endpoints_) {
    for (unsigned size_class = 0; size_class < ProtocolMeter::kClasses; ++size_class) {
      const std::size_t length = ProtocolMeter::kSmallestClass << size_class;
      const uint64_t eager = ep->meter->eager_ns_per_kib(length);
      const uint64_t rndv = ep->meter->rendezvous_ns_per_kib(length);
      if (eager == 0 && rndv == 0) continue;
      TERN_LOG(Debug, "peer %016llx: messages from %zu KiB cost %llu ns/KiB eager, %llu rendezvous (lately)",
               static_cast<unsigned long long>(uuid), length / 1024, static_cast<unsigned long long>(eager),
               static_cast<unsigned long long>(rndv));
    }
    if (ep->pending_registered) ep->own_lane->pending_remove(&ep->pending);
    ep->iface->destroy_ep(ep->own_lane);
  }
  endpoints_.clear();
  ifaces_.clear();
  if (signal_fd_ >= 0) close(signal_fd_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

Endpoint* WorkerImpl::find_endpoint(uint64_t uuid) const noexcept {
  auto it = endpoints_.find(uuid);
  return it == endpoints_.end() ? nullptr : it->second.get();
}

Status WorkerImpl::connect(std::span<const std::byte> peer_address, Endpoint*& endpoint) {
  endpoint = nullptr;
  WorkerAddress peer;
  if (Status s = unpack_worker_address(peer_address, peer); s != Status::Ok) {
    TERN_LOG(Error, "connect: malformed worker address (%zu bytes)", peer_address.size());
    return s;
  }
  if (Endpoint* known = find_endpoint(peer.uuid)) {
    endpoint = known;
    return Status::Ok;
  }
  // The best transport of ours that reaches one of the peer's.
  for (auto& iface : ifaces_) {
    for (const TransportAddress& remote : peer.transports) {
      if (remote.name != iface->attr().name || !iface->is_reachable(remote.address)) continue;
      Status status = Status::Ok;
      transport::Ep* lane = iface->create_ep(remote.address, status);
      if (lane == nullptr) {
        TERN_LOG(Warn, "connect: %s endpoint failed: %s", iface->attr().name, to_string(status));
        continue;
      }
      auto ep = std::make_unique<Endpoint>();
      ep->worker = this;
      ep->iface = iface.get();
      ep->lane = lane;
      ep->own_lane = lane;
      ep->peer_uuid = peer.uuid;
      ep->peer_host = std::string(peer.host);
      const transport::IfaceAttr& attr = iface->attr();
      ep->max_short = attr.max_short;
      ep->max_fragment = attr.max_bcopy - sizeof(tag::FragmentHeader);
      const bool zcopy = (attr.flags & transport::kCapGetZcopy) != 0 && lane->supports_zcopy();
      // TERN_RNDV_THRESH, when set, stands for every threshold of the lane;
      // without zero copy there is no rendezvous at all.
      auto threshold = [&](std::size_t transport_value) {
        if (!zcopy) return SIZE_MAX;
        const std::size_t value = params_.config.rndv_threshold != 0 ? params_.config.rndv_threshold : transport_value;
        return std::max<std::size_t>(value, 1);
      };
      ep->rndv_threshold = threshold(attr.rndv_threshold);
      ep->rndv_threshold_drained = std::max(ep->rndv_threshold, threshold(attr.rndv_threshold_drained));
      ep->rndv_threshold_metered = std::min(ep->rndv_threshold, threshold(attr.rndv_threshold_metered));
      // A peer that cannot map our memory falls back to CMA, so mapped memory
      // takes the rendezvous only where CMA works too.
      ep->rndv_threshold_mapped = threshold(attr.rndv_threshold_mapped);
      ep->pending.callback = &WorkerImpl::on_lane_ready;
      if (std::find(iface_list_.begin(), iface_list_.end(), iface.get()) == iface_list_.end()) {
        iface_list_.push_back(iface.get());
      }
      endpoint = ep.get();
      endpoints_.emplace(peer.uuid, std::move(ep));
      peer_addresses_[peer.uuid].assign(peer_address.begin(), peer_address.end());
      TERN_LOG(Debug, "connect: peer %016llx over %s", static_cast<unsigned long long>(peer.uuid),
               attr.name);
      if (peer.uuid != uuid_) {
        // Lets the peer connect back (for acks and rendezvous) without a
        // separate address exchange.
        send_control(endpoint, tag::kAmHello, 0, 0);
      }
      return Status::Ok;
    }
  }
  // The caller says it in the job's words (Job: ranks, hosts and why).
  TERN_LOG(Debug, "connect: no transport reaches peer %016llx", static_cast<unsigned long long>(peer.uuid));
  return Status::Unreachable;
}

std::string WorkerImpl::explain_unreachable(std::span<const std::byte> peer_address) const {
  WorkerAddress peer;
  if (unpack_worker_address(peer_address, peer) != Status::Ok) return "its address is malformed";
  auto join = [](const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : ",") + name;
    return text.empty() ? std::string("none") : text;
  };
  std::vector<std::string> ours = transport_names();
  std::vector<std::string> theirs;
  for (const TransportAddress& remote : peer.transports) theirs.emplace_back(remote.name);
  std::string why = "no common transport (here: " + join(ours) + "; there: " + join(theirs);
  auto has = [](const std::vector<std::string>& names, const char* name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  if (has(ours, "shm") && has(theirs, "shm")) why += "; shm is on-host only";
  if (!has(ours, "tcp")) {
    why += "; TCP is off here (TERN_TLS=" + (params_.config.transports.empty() ? std::string("all") : params_.config.transports) +
           ", TERN_TCP_IF=" + params_.config.tcp_interfaces + ")";
  } else if (!has(theirs, "tcp")) {
    why += "; TCP is off there";
  } else {
    why += "; no route between the TCP interfaces here and there (TERN_TCP_IF)";
  }
  return why + ")";
}

std::vector<std::string> WorkerImpl::transport_names() const {
  std::vector<std::string> names;
  for (const auto& iface : ifaces_) names.emplace_back(iface->attr().name);
  return names;
}

}  // namespace tern::engine
