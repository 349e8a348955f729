// One side of an emulated verbs connection for the emulation's tests:
// device, PD, CQ, SRQ (basic or TM), an RC QP and a registered buffer.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "transport/verbs/verbs_api.hpp"

namespace tern::engine::transport::verbs::testing {

inline constexpr uint32_t kAllAccess = kAccessLocalWrite | kAccessRemoteWrite | kAccessRemoteRead | kAccessRemoteAtomic;

// One side of a connection: device, PD, CQ, SRQ, RC QP and a buffer.
struct Side {
  std::unique_ptr<Context> context;
  std::unique_ptr<Pd> pd;
  std::unique_ptr<Cq> cq;
  std::unique_ptr<Srq> srq;
  TagSrq* tag_srq = nullptr;  // srq, when it is a TM SRQ
  std::unique_ptr<Qp> qp;
  std::vector<std::byte> memory;  // 4 KiB; 64 KiB with a TM SRQ
  std::unique_ptr<Mr> mr;

  // `tag_matching`: a TM SRQ of that many tags (0: a basic SRQ).
  void open(Provider& provider, const char* device, uint32_t tag_matching = 0) {
    close();
    memory.assign(tag_matching != 0 ? std::size_t{1} << 16 : 4096, std::byte{0});
    Status status = Status::Ok;
    context = provider.open(device, status);
    ASSERT_EQ(status, Status::Ok);
    pd = context->alloc_pd(status);
    cq = tag_matching ? context->create_tag_cq(256, status) : context->create_cq(256, status);
    ASSERT_EQ(status, Status::Ok);
    if (tag_matching) {
      auto tags = pd->create_tag_srq({64, tag_matching, 16, cq.get()}, status);
      tag_srq = tags.get();
      srq = std::move(tags);
    } else {
      srq = pd->create_srq(64, status);
    }
    ASSERT_EQ(status, Status::Ok);
    QpParams params;
    params.send_cq = cq.get();
    params.recv_cq = cq.get();
    params.srq = srq.get();
    params.max_send_wr = tag_matching ? 32 : 8;
    params.max_inline = 64;
    qp = pd->create_qp(params, status);
    ASSERT_EQ(status, Status::Ok);
    mr = pd->reg_mr(memory.data(), memory.size(), kAllAccess, status);
    ASSERT_EQ(status, Status::Ok);
  }
  [[nodiscard]] uint64_t at(std::size_t offset) const { return reinterpret_cast<uint64_t>(memory.data() + offset); }
  [[nodiscard]] PortAddress port() const { return {context->info().link_layer, context->info().lid, context->info().gid, 0}; }
  [[nodiscard]] Status post_recv(uint64_t id, std::size_t offset, uint32_t length) {
    return srq->post_recv({id, {at(offset), length, mr->lkey()}});
  }
  std::vector<WorkCompletion> poll() {
    std::vector<WorkCompletion> out(64);
    const int n = cq->poll(out);
    out.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
    return out;
  }
  // Children before parents, as verbs requires.
  void close() {
    qp.reset();
    srq.reset();
    mr.reset();
    cq.reset();
    pd.reset();
    context.reset();
  }
  ~Side() { close(); }
};

inline Status connect(Side& from, const Side& to, uint8_t rnr_retry = 7) {
  if (Status s = from.qp->to_init(kAllAccess); s != Status::Ok) return s;
  RcConnect connect;
  connect.remote = to.port();
  connect.remote_qpn = to.qp->qpn();
  connect.rnr_retry = rnr_retry;
  if (Status s = from.qp->to_rtr(connect); s != Status::Ok) return s;
  return from.qp->to_rts(connect);
}

}  // namespace tern::engine::transport::verbs::testing
