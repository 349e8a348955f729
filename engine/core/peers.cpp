// Peers that break the protocol: naming them in messages, dropping their
// malformed messages, and disconnecting one that keeps sending them or that
// a transport gave up on.
#include <cinttypes>
#include <cstdio>
#include <vector>

#include "core/worker_impl.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine {
namespace {

// Malformed messages a peer may send before it is disconnected: one may be
// a stray write into shared memory; a stream of them is a peer that no
// longer follows the protocol.
constexpr unsigned kRejectLimit = 8;
// Lines logged about the malformed messages of one peer (or of senders
// nobody knows): enough to see what they were, not a flood.
constexpr unsigned kLoggedRejects = 4;

}  // namespace

std::string WorkerImpl::peer_label(Endpoint* ep) const {
  if (ep->peer_name.empty() && peer_namer_ != nullptr) ep->peer_name = peer_namer_(peer_namer_arg_, ep->peer_uuid);
  if (!ep->peer_name.empty()) return ep->peer_name;
  const std::string host = ep->peer_host.empty() ? "?" : ep->peer_host;
  // Under a job, a peer the job cannot name is none of its ranks; a bare
  // worker has only the peer's id to tell it from others on its host.
  if (peer_namer_ != nullptr) return "a process on host " + host + " that is no rank of this job";
  char id[17];
  std::snprintf(id, sizeof(id), "%016" PRIx64, ep->peer_uuid);
  return std::string("peer ") + id + " (host " + host + ")";
}

std::string WorkerImpl::label_of(uint64_t uuid) const {
  if (peer_namer_ != nullptr) {
    std::string name = peer_namer_(peer_namer_arg_, uuid);
    return name.empty() ? "a sender that is no rank of this job" : name;
  }
  char id[17];
  std::snprintf(id, sizeof(id), "%016" PRIx64, uuid);
  return std::string("an unknown peer (it claims id ") + id + ")";
}

bool WorkerImpl::reject(Endpoint* sender, const char* what, std::size_t length) {
  if (sender == nullptr) {
    ++rejected_messages_;
    if (++rejected_unknown_ <= kLoggedRejects) {
      TERN_LOG(Error, "dropped a malformed %s (%zu bytes, too short to say who sent it)%s", what, length,
               rejected_unknown_ == kLoggedRejects ? " (further ones are not logged)" : "");
    }
    return false;
  }
  ++rejected_messages_;
  ++sender->rejected;
  if (sender->failure != Status::Ok) return false;  // disconnected already: said so then
  if (sender->rejected <= kLoggedRejects) {
    TERN_LOG(Error, "dropped a malformed %s (%zu bytes) from %s%s", what, length, peer_label(sender).c_str(),
             sender->rejected == kLoggedRejects ? " (further ones are not logged)" : "");
  }
  if (sender->rejected >= kRejectLimit) fail_peer(sender, "it kept sending malformed messages");
  return false;
}

bool WorkerImpl::reject_unknown(uint64_t claimed_uuid, const char* what, std::size_t length) {
  ++rejected_messages_;
  if (++rejected_unknown_ <= kLoggedRejects) {
    TERN_LOG(Error, "dropped a %s (%zu bytes) from %s, with which this worker has no connection%s", what, length,
             label_of(claimed_uuid).c_str(),
             rejected_unknown_ == kLoggedRejects ? " (further ones are not logged)" : "");
  }
  return false;
}

void WorkerImpl::fail_peer(Endpoint* ep, const char* why) {
  if (ep->failure != Status::Ok) return;
  ep->failure = FailedLane::kReason;
  TERN_LOG(Error, "disconnected %s: %s", peer_label(ep).c_str(), why);
  if (ep->pending_registered) {
    ep->own_lane->pending_remove(&ep->pending);
    ep->pending_registered = false;
    --blocked_endpoints_;
  }
  ep->lane = &failed_lane_;
  // Everything that waits on the peer ends now, with the reason.
  while (RequestImpl* r = ep->send_queue.pop_front()) complete(r, ep->failure);
  acks_.for_each([&](uint64_t, RequestImpl*& r) {
    if (r->endpoint == ep) complete(r, ep->failure);
  });
  if (RequestImpl* r = ep->rx_request) {
    ep->rx_request = nullptr;
    complete(r, ep->failure);
  }
  if (Message* m = ep->rx_unexpected) {
    // A message handed out by a probe is refused by tag_msg_recv_nb instead.
    ep->rx_unexpected = nullptr;
    if (m->in_matcher) {
      matcher_.remove_unexpected(&m->entry);
      free_unexpected(*this, m);
    }
  }
  if (peer_failure_handler_ != nullptr) peer_failure_handler_(peer_failure_arg_, ep, ep->failure);
}

void WorkerImpl::on_transport_failure(void* arg, transport::Iface* iface, transport::Ep* lane, const char* why) {
  auto* worker = static_cast<WorkerImpl*>(arg);
  // Gathered first: a failure handler may connect, which changes the map.
  std::vector<Endpoint*> hit;
  for (auto& [uuid, ep] : worker->endpoints_) {
    if (lane != nullptr ? ep->own_lane == lane : ep->iface == iface) hit.push_back(ep.get());
  }
  for (Endpoint* ep : hit) worker->fail_peer(ep, why);
  if (lane == nullptr) {
    TERN_LOG(Error, "worker: %s: the peers it reached through %s can no longer reach it", why, iface->attr().name);
    if (hit.empty() && worker->peer_failure_handler_ != nullptr) {
      worker->peer_failure_handler_(worker->peer_failure_arg_, nullptr, FailedLane::kReason);
    }
  }
}

}  // namespace tern::engine
