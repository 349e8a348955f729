// A connection to one peer worker: the transport lane chosen for it, its
// protocol limits, and the receive-side state of a multi-fragment message
// arriving from that peer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/protocol_meter.hpp"
#include "core/request_impl.hpp"
#include "tern/runtime/intrusive_list.hpp"
#include "transport/iface.hpp"

namespace tern::engine {

class WorkerImpl;
struct Message;
using UnexpectedMessage = Message;

class Endpoint {
 public:
  WorkerImpl* worker = nullptr;
  transport::Iface* iface = nullptr;
  transport::Ep* lane = nullptr;      // what sends go through: own_lane, or the FailedLane
  transport::Ep* own_lane = nullptr;  // the transport's endpoint, destroyed with this one
  uint64_t peer_uuid = 0;
  std::string peer_host;  // from the peer's address, for messages
  // How messages name the peer ("rank 3 (host h2)"), set by the job; until
  // then the worker makes one up when it needs one.
  std::string peer_name;
  Status failure = Status::Ok;  // not Ok once the peer was disconnected
  unsigned rejected = 0;        // malformed messages that named this peer

  // Protocol limits for this lane.
  std::size_t max_short = 0;       // payload of a one-message eager send
  std::size_t max_fragment = 0;    // payload of a middle fragment
  std::size_t rndv_threshold = 0;  // SIZE_MAX: no rendezvous on this lane
  std::size_t rndv_threshold_mapped = 0;  // for buffers the peer has mapped (mem_alloc)
  std::size_t rndv_threshold_drained = 0;  // while the peer has next to nothing unread (Ep::peer_unread)
  std::size_t rndv_threshold_metered = 0;  // from here to _drained, the meter picks for a drained peer
  // Eager or rendezvous between the two thresholds above. Out of line, so
  // that its figures (about 450 bytes) leave the Endpoint's size and layout
  // as they were: osu_bw 1 KiB on the 2-core VM follows them (the Endpoint
  // padded by 64-448 bytes ran at 0.87-0.94 of the unpadded one, medians of
  // 8 alternating runs).
  std::unique_ptr<ProtocolMeter> meter = std::make_unique<ProtocolMeter>();
  // Sends posted on this endpoint so far: a rendezvous whose time the meter
  // takes must have been the last one posted until it completed.
  uint64_t sends_posted = 0;
  // The worker's progress events at this endpoint's last send in the
  // metered range below rndv_threshold (see tag_send_nb).
  uint64_t events_at_last_metered_size = ~uint64_t{0};

  // Sends that found the lane full wait here, in posting order; while the
  // queue is not empty new sends join it, so messages never overtake. Only the
  // endpoint (not each request) sits on the lane's pending queue.
  runtime::IntrusiveList<RequestImpl, &RequestImpl::queue_hook> send_queue;
  transport::PendingEntry pending;
  bool pending_registered = false;

  // The multi-fragment message now arriving from this peer (fragments of one
  // sender never interleave): either a matched receive or an unexpected message.
  RequestImpl* rx_request = nullptr;
  UnexpectedMessage* rx_unexpected = nullptr;
};

}  // namespace tern::engine
