// The verbs iface's side of hardware tag matching (verbs_tag_device.hpp):
// the TM SRQ, the tag-matching header on messages to TM peers, and the
// completions of the tag device.
#include <atomic>
#include <cstring>

#include "tern/runtime/compiler.hpp"
#include "tern/runtime/log.hpp"
#include "verbs_iface.hpp"

namespace tern::engine::transport::verbs {
namespace {

// List operations outstanding: the device runs one at a time.
constexpr uint32_t kTagOps = 4;

}  // namespace

Status VerbsIface::open_tag_matching(std::string& why) {
  const DeviceInfo& info = context_->info();
  TagSrqParams params;
  params.max_wr = limits_.rx_buffers;
  params.max_tags = std::min(limits_.tag_capacity, info.tm_max_tags);
  params.max_ops = std::min(kTagOps, info.tm_max_ops);
  params.cq = cq_.get();
  Status status = Status::Ok;
  std::unique_ptr<TagSrq> srq = pd_->create_tag_srq(params, status);
  if (!srq) {
    why = "cannot create a tag-matching shared receive queue on " + info.name;
    return status;
  }
  tag_srq_ = srq.get();
  srq_ = std::move(srq);
  return Status::Ok;
}

std::size_t VerbsIface::put_tag_header(const Connection& c, uint32_t app_context, uint64_t tag,
                                       std::byte* to) const noexcept {
  if (!c.peer_tags) return 0;
  pack_tag_header({TagOpcode::Eager, app_context, tag}, to);
  return kTagHeaderBytes;
}

bool VerbsIface::strip_tag_header(const std::byte*& data, uint32_t& length, uint32_t& id) const noexcept {
  TagHeader header;
  if (!unpack_tag_header(data, length, header) || header.opcode != TagOpcode::Eager) return false;
  // Ordinary messages carry the untagged tag; a tagged send its own.
  if (header.tag != kUntaggedTag && header.app_context != kAppContextTagged) return false;
  id = header.app_context;
  data += kTagHeaderBytes;
  length -= static_cast<uint32_t>(kTagHeaderBytes);
  return true;
}

Status VerbsIface::send_tagged(Connection& c, uint64_t tag, const void* buffer, std::size_t length) {
  if (!c.peer_tags || length > attr_.max_bcopy || !c.can_send() || free_tx_.empty()) return Status::NotFound;
  // Only once the peer has handled every ordinary message we sent it: its
  // HCA would otherwise match this one to a receive that an earlier
  // message, waiting in its SRQ, should take (verbs_tag_device.hpp).
  if (std::atomic_ref<uint64_t>(*c.peer_handled).load(std::memory_order_acquire) != c.ordinary_sent) {
    return Status::NotFound;
  }
  Op op;
  op.kind = Op::Kind::Send;
  op.tx_buffer = free_tx_.back();
  free_tx_.pop_back();
  std::byte* data = slab_at(tx_offset_ + std::size_t(op.tx_buffer) * limits_.buffer_size);
  pack_tag_header({TagOpcode::Eager, kAppContextTagged, tag}, data);
  if (length != 0) std::memcpy(data + kTagHeaderBytes, buffer, length);
  op.wr.op = SendOp::Send;
  op.wr.sge = {reinterpret_cast<uint64_t>(data), static_cast<uint32_t>(kTagHeaderBytes + length), slab_mr_->lkey()};
  if (Status s = post(c, op); s != Status::Ok) {
    free_tx_.push_back(op.tx_buffer);
    return s == Status::WouldBlock ? Status::NotFound : Status::IoError;
  }
  c.ops.push_back(std::move(op));
  return Status::Ok;
}

void VerbsIface::poll_for_tag_device() {
  WorkCompletion wcs[16];
  const int n = cq_->poll(wcs);
  if (TERN_UNLIKELY(n < 0)) {
    TERN_LOG(Error, "verbs: the completion queue overran; every connection fails");
    for (auto& [uuid, c] : by_uuid_) connection_failed(*c, "completion queue overrun");
    return;
  }
  for (int i = 0; i < n; ++i) {
    const WorkCompletion& wc = wcs[i];
    const WrKind kind = wr_kind(wc.wr_id);
    if (kind == kWrTagOp || kind == kWrTag) tag_device_->on_polled_early(wc);
    // List operations are the device's alone; the rest waits its turn.
    if (kind != kWrTagOp) stash_.push_back(wc);
  }
}

void VerbsIface::count_ordinary(Connection& c) {
  ++c.handled;
  if (!c.handled_unreported && c.handled_rkey != 0) {
    c.handled_unreported = true;
    unreported_.push_back(&c);
  }
}

void VerbsIface::report_handled() {
  for (Connection* c : unreported_) {
    c->handled_unreported = false;
    if (c->state == Connection::State::Failed) continue;
    // Inline: the count is read when the write is posted, so a write that
    // waits for a send-queue slot carries the latest.
    Op op;
    op.kind = Op::Kind::Rdma;
    op.wr.op = SendOp::RdmaWrite;
    op.wr.inline_data = true;
    op.wr.sge = {reinterpret_cast<uint64_t>(&c->handled), sizeof(c->handled), 0};
    op.wr.remote_address = c->handled_address;
    op.wr.rkey = c->handled_rkey;
    enqueue(*c, std::move(op));
  }
  unreported_.clear();
}

void VerbsIface::on_tag_completion(const WorkCompletion& wc) {
  if (TERN_UNLIKELY(tag_device_ == nullptr)) return;
  uint64_t sender = 0;
  if (wr_kind(wc.wr_id) == kWrTag) {
    auto it = by_qpn_.find(wc.qp_num);
    if (it != by_qpn_.end()) sender = it->second->peer_uuid;
  }
  tag_device_->on_completion(wc, sender);
}

}  // namespace tern::engine::transport::verbs
