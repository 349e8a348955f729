// One RC queue pair to one peer worker, shared by every endpoint to it and
// by the peer's own sends to us: what the verbs transport keeps per peer.
//
// Operations live in `ops` in the order they were issued: first those
// posted to the QP (whose completions arrive in that order, so each
// completion retires the front), then those waiting for a send-queue slot
// or for the connection to open. Flush markers ride in the same queue and
// finish once everything before them has.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "transport/completion.hpp"
#include "transport/ep_pending_queue.hpp"
#include "verbs_api.hpp"
#include "verbs_ring_queue.hpp"
#include "verbs_wire.hpp"

namespace tern::engine::transport::verbs {

class VerbsEp;

struct Op {
  enum class Kind : uint8_t { Send, Rdma, Atomic, Flush };
  Kind kind = Kind::Send;
  bool posted = false;
  int32_t tx_buffer = -1;    // Send: the bounce buffer its completion frees
  int32_t result_slot = -1;  // Atomic: where the old value lands
  uint8_t result_size = 8;
  uint64_t* result = nullptr;
  Completion* comp = nullptr;
  const VerbsEp* ep = nullptr;  // who issued it (its destruction cancels it)
  SendWr wr;                    // until posted
};

struct Connection {
  // Connecting: our request is out, our QP waits in INIT. Accepted: we
  // answered the peer's request and our QP is in RTS, but the peer's may
  // not be in RTR yet (our reply is on its way), so nothing is sent until
  // its first message (Ready, or anything else) shows it is: sends to a QP
  // not ready would cost hardware retries and, if the peer is slow to
  // progress, the connection.
  enum class State : uint8_t { Connecting, Accepted, Open, Failed };

  uint64_t peer_uuid = 0;
  State state = State::Connecting;
  std::unique_ptr<Qp> qp;
  std::unique_ptr<AddressHandle> peer_ud;  // the peer's connection service
  uint32_t peer_ud_qpn = 0;
  uint32_t remote_qpn = 0;
  uint32_t local_psn = 0;
  Secret peer_secret{};  // what our requests must present
  uint32_t credits = 0;  // free send-queue slots
  std::size_t unposted = 0;  // ops at the back not yet posted
  bool fence_next = false;
  RingQueue<Op> ops;
  EpPendingQueue pending;
  std::chrono::steady_clock::time_point next_request{};
  std::chrono::steady_clock::time_point give_up{};
  unsigned eps = 0;  // endpoints on it
  bool peer_tags = false;  // the peer's SRQ matches tags: our messages carry a tag-matching header
  // The sender's rule of tagged sends (verbs_tag_device.hpp): a tagged send
  // goes only once the peer has handled every ordinary message we sent it.
  uint64_t ordinary_sent = 0;        // ordinary messages we sent to a TM peer
  uint64_t* peer_handled = nullptr;  // our word the peer writes its count of them into
  // The receiver's side: our count of the peer's ordinary messages handled,
  // and the peer's word we write it into (RDMA WRITE).
  uint64_t handled = 0;
  bool handled_unreported = false;
  uint64_t handled_address = 0;
  uint32_t handled_rkey = 0;

  [[nodiscard]] bool can_send() const noexcept {
    return state == State::Open && credits > 0 && unposted == 0 && !pending.blocks_sends();
  }
};

}  // namespace tern::engine::transport::verbs
