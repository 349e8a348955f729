// Connection set-up of the verbs transport through each iface's UD
// connection service (the design is explained in verbs_iface.hpp).
#include <sys/random.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "tern/runtime/log.hpp"
#include "verbs_iface.hpp"

namespace tern::engine::transport::verbs {
namespace {

// Below 0x80000000: controlled qkeys with the top bit set are privileged.
constexpr uint32_t kServiceQkey = 0x11ee7e12;
constexpr auto kRepeat = std::chrono::milliseconds(20);
constexpr auto kGiveUp = std::chrono::seconds(30);

bool same_secret(const Secret& a, const Secret& b) {
  uint8_t differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differ |= static_cast<uint8_t>(a[i] ^ b[i]);
  return differ == 0;
}

uint32_t random_psn() {
  uint32_t psn = 0;
  if (getrandom(&psn, sizeof(psn), 0) != sizeof(psn)) psn = 1;
  return psn & 0xffffffu;
}

}  // namespace

Status VerbsIface::open_service() {
  QpParams params;
  params.type = QpType::Ud;
  params.send_cq = cq_.get();
  params.recv_cq = cq_.get();
  params.max_send_wr = kServiceBuffers;
  params.max_recv_wr = kServiceBuffers;
  Status status = Status::Ok;
  ud_qp_ = pd_->create_qp(params, status);
  if (!ud_qp_) return status;
  if (Status s = ud_qp_->to_init(kServiceQkey); s != Status::Ok) return s;
  for (uint32_t i = 0; i < kServiceBuffers; ++i) {
    if (Status s = post_ud_rx(i); s != Status::Ok) return s;
  }
  RcConnect none;
  none.local_psn = random_psn();
  if (Status s = ud_qp_->to_rtr(none); s != Status::Ok) return s;
  return ud_qp_->to_rts(none);
}

std::unique_ptr<AddressHandle> VerbsIface::peer_service(const PortAddress& port) {
  PortAddress to = port;
  to.gid_index = own_.port.gid_index;
  Status status = Status::Ok;
  return pd_->create_ah(to, status);
}

Connection* VerbsIface::new_connection(uint64_t peer_uuid, Status& status) {
  if (by_uuid_.size() >= limits_.max_connections) {
    TERN_LOG(Error, "verbs: more than %u peers; the completion queue is sized for that many",
             limits_.max_connections);
    status = Status::NoMemory;
    return nullptr;
  }
  QpParams params;
  params.send_cq = cq_.get();
  params.recv_cq = cq_.get();
  params.srq = srq_.get();
  params.max_send_wr = limits_.send_queue;
  params.max_inline = limits_.max_inline;
  auto c = std::make_unique<Connection>();
  c->qp = pd_->create_qp(params, status);
  if (!c->qp) return nullptr;
  if (status = c->qp->to_init(kRcAccess); status != Status::Ok) return nullptr;
  c->peer_uuid = peer_uuid;
  c->peer_handled = &handled_words_[by_uuid_.size()];  // connections are never removed
  c->credits = limits_.send_queue;
  c->local_psn = random_psn();
  c->give_up = std::chrono::steady_clock::now() + kGiveUp;
  ++connecting_;
  Connection* raw = c.get();
  by_qpn_[raw->qp->qpn()] = raw;
  by_uuid_[peer_uuid] = std::move(c);
  status = Status::Ok;
  return raw;
}

Status VerbsIface::connect_qp(Connection& c, const PortAddress& port, uint32_t remote_qpn, uint32_t remote_psn,
                              uint32_t mtu, bool requester) {
  RcConnect connect;
  connect.remote = port;
  connect.remote.gid_index = own_.port.gid_index;
  connect.remote_qpn = remote_qpn;
  connect.remote_psn = remote_psn;
  connect.local_psn = c.local_psn;
  connect.mtu = std::min(mtu, own_.mtu);
  connect.rnr_retry = 7;  // for ever: see "Flow control" in verbs_iface.hpp
  if (Status s = c.qp->to_rtr(connect); s != Status::Ok) return s;
  if (Status s = c.qp->to_rts(connect); s != Status::Ok) return s;
  c.remote_qpn = remote_qpn;
  --connecting_;
  TERN_LOG(Debug, "verbs: QP %u connected to %016llx's QP %u", c.qp->qpn(),
           static_cast<unsigned long long>(c.peer_uuid), remote_qpn);
  if (!requester) {
    c.state = Connection::State::Accepted;
    return Status::Ok;
  }
  // Ready goes first: everything after it finds the peer's QP ready too.
  Op ready;
  ready.kind = Op::Kind::Send;
  ready.wr.op = c.peer_tags ? SendOp::Send : SendOp::SendWithImm;
  ready.wr.imm = kImmReady;
  ready.wr.inline_data = true;
  std::byte header[kTagHeaderBytes];  // inline: copied when posted
  const std::size_t header_length = put_tag_header(c, kImmReady, kUntaggedTag, header);
  ready.wr.sge = {reinterpret_cast<uint64_t>(header), static_cast<uint32_t>(header_length), 0};
  if (Status s = post(c, ready); s != Status::Ok) return s;
  c.ops.push_back(std::move(ready));
  c.ordinary_sent += c.peer_tags ? 1 : 0;
  open_connection(c);
  return Status::Ok;
}

void VerbsIface::open_connection(Connection& c) {
  c.state = Connection::State::Open;
  post_waiting(c);
  if (!c.pending.empty()) schedule(c);
}

WireupMessage VerbsIface::wireup(WireupType type, const Connection& c, const Secret& secret, uint32_t peer_qpn) const {
  WireupMessage message;
  message.type = type;
  message.sender_uuid = uuid_;
  message.target_uuid = c.peer_uuid;
  message.secret = secret;
  message.nonce = own_.secret;
  message.rc_qpn = c.qp->qpn();
  message.psn = c.local_psn;
  message.peer_qpn = peer_qpn;
  message.ud_qpn = own_.ud_qpn;
  message.mtu = own_.mtu;
  message.port = own_.port;
  message.tag_matching = own_.tag_matching;
  message.handled_address = reinterpret_cast<uint64_t>(c.peer_handled);
  message.handled_rkey = handled_mr_->rkey();
  return message;
}

void VerbsIface::send_request(Connection& c) {
  send_wireup(wireup(WireupType::Request, c, c.peer_secret, 0), *c.peer_ud, c.peer_ud_qpn);
  c.next_request = std::chrono::steady_clock::now() + kRepeat;
}

void VerbsIface::send_wireup(const WireupMessage& message, AddressHandle& to, uint32_t qpn) {
  // A datagram that finds no room is as good as lost: requests repeat, and
  // a lost reply is sent again when its request comes again.
  if (ud_outstanding_ >= kServiceBuffers) return;
  const uint32_t slot = ud_next_++ % kServiceBuffers;
  std::byte* buffer = slab_at(ud_tx_offset_ + std::size_t{slot} * kServiceBufferBytes);
  std::byte packed[kWireupBytes];
  pack_wireup(message, packed);
  std::memcpy(buffer, packed, sizeof(packed));
  SendWr wr;
  wr.wr_id = wr_id(kWrUdTx, slot);
  wr.op = SendOp::Send;
  wr.sge = {reinterpret_cast<uint64_t>(buffer), static_cast<uint32_t>(kWireupBytes), slab_mr_->lkey()};
  wr.ah = &to;
  wr.remote_qpn = qpn;
  wr.qkey = kServiceQkey;
  if (ud_qp_->post_send(wr) == Status::Ok) ++ud_outstanding_;
}

void VerbsIface::on_wireup(const std::byte* data, std::size_t length) {
  WireupMessage message;
  if (!unpack_wireup({data, length}, message) || message.target_uuid != uuid_ ||
      !port_reaches(own_.port, message.port) || !same_secret(message.secret, own_.secret)) {
    TERN_LOG(Warn, "verbs: dropped a malformed or unauthenticated connection datagram (%zu bytes)", length);
    return;
  }
  if (message.type == WireupType::Request) {
    on_request(message);
  } else {
    on_reply(message);
  }
}

void VerbsIface::on_request(const WireupMessage& request) {
  Connection* c = nullptr;
  if (auto it = by_uuid_.find(request.sender_uuid); it != by_uuid_.end()) {
    c = it->second.get();
    if (c->state == Connection::State::Failed) return;
    // Both sides asked at once: the larger uuid's request wins, and the
    // other side answers it with the QP it had made.
    if (c->state == Connection::State::Connecting && uuid_ > request.sender_uuid) return;
    // Connected already: our reply was lost, or this request is the
    // loser's own, late; either way the answer is the same.
    if (c->state != Connection::State::Connecting && c->remote_qpn != request.rc_qpn) return;
  } else {
    Status status = Status::Ok;
    c = new_connection(request.sender_uuid, status);
    if (c == nullptr) return;
  }
  c->peer_tags = request.tag_matching;
  c->handled_address = request.handled_address;
  c->handled_rkey = request.handled_rkey;
  if (!c->peer_ud) {
    c->peer_ud = peer_service(request.port);
    c->peer_ud_qpn = request.ud_qpn;
  }
  if (!c->peer_ud) {
    connection_failed(*c, "cannot make an address handle for the peer");
    return;
  }
  if (c->state == Connection::State::Connecting &&
      connect_qp(*c, request.port, request.rc_qpn, request.psn, request.mtu, false) != Status::Ok) {
    connection_failed(*c, "cannot connect the queue pair");
    return;
  }
  send_wireup(wireup(WireupType::Reply, *c, request.nonce, request.rc_qpn), *c->peer_ud, request.ud_qpn);
}

void VerbsIface::on_reply(const WireupMessage& reply) {
  auto it = by_uuid_.find(reply.sender_uuid);
  if (it == by_uuid_.end()) return;
  Connection& c = *it->second;
  // Late or repeated answers to a connection made since are no news.
  if (c.state != Connection::State::Connecting || reply.peer_qpn != c.qp->qpn()) return;
  c.peer_tags = reply.tag_matching;
  c.handled_address = reply.handled_address;
  c.handled_rkey = reply.handled_rkey;
  if (connect_qp(c, reply.port, reply.rc_qpn, reply.psn, reply.mtu, true) != Status::Ok) {
    connection_failed(c, "cannot connect the queue pair");
  }
}

void VerbsIface::repeat_requests() {
  const auto now = std::chrono::steady_clock::now();
  for (auto& [uuid, c] : by_uuid_) {
    if (c->state != Connection::State::Connecting) continue;
    if (now >= c->give_up) {
      connection_failed(*c, "the peer's connection service did not answer in 30 s");
    } else if (now >= c->next_request && c->peer_ud) {
      send_request(*c);
    }
  }
}

}  // namespace tern::engine::transport::verbs
