// The emulated verbs provider behaves as the verbs documents say: the
// transport's tests are only worth what this emulation is.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "transport/verbs/verbs_emulated.hpp"
#include "verbs_side.hpp"

namespace tern::engine::transport::verbs {
namespace {

using testing::connect;
using testing::kAllAccess;
using testing::Side;

// The statuses of what `side` completed since it last polled.
std::vector<WcStatus> statuses(Side& side) {
  std::vector<WcStatus> out;
  for (const WorkCompletion& wc : side.poll()) out.push_back(wc.status);
  return out;
}

using Statuses = std::vector<WcStatus>;

// An RDMA or atomic request from `from`'s memory at `local` to `to`'s at `remote`.
SendWr one_sided(SendOp op, uint64_t id, const Side& from, std::size_t local, uint32_t length, const Side& to,
                 std::size_t remote) {
  SendWr wr;
  wr.wr_id = id;
  wr.op = op;
  wr.sge = {from.at(local), length, from.mr->lkey()};
  wr.remote_address = to.at(remote);
  wr.rkey = to.mr->rkey();
  return wr;
}

SendWr inline_send(uint64_t id, const void* data, uint32_t length, uint32_t imm) {
  SendWr wr;
  wr.wr_id = id;
  wr.op = SendOp::SendWithImm;
  wr.inline_data = true;
  wr.sge = {reinterpret_cast<uint64_t>(data), length, 0};
  wr.imm = imm;
  return wr;
}

class VerbsEmulation : public ::testing::Test {
 protected:
  void SetUp() override {
    fabric_ = make_emulated_fabric({});
    provider_ = make_emulated_provider(fabric_);
    a_.open(*provider_, "emu0");
    b_.open(*provider_, "emu1");
  }
  void connect_both(uint8_t rnr_retry = 7) {
    ASSERT_EQ(connect(a_, b_, rnr_retry), Status::Ok);
    ASSERT_EQ(connect(b_, a_, rnr_retry), Status::Ok);
  }
  std::shared_ptr<EmulatedFabric> fabric_;
  std::unique_ptr<Provider> provider_;
  Side a_;
  Side b_;
};

TEST_F(VerbsEmulation, ListsItsDevices) {
  std::string why;
  const auto devices = provider_->list_devices(why);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].name, "emu0");
  EXPECT_NE(devices[0].lid, devices[1].lid);
  EXPECT_TRUE(devices[0].atomics);
  Status status = Status::Ok;
  EXPECT_EQ(provider_->open("mlx5_0", status), nullptr);
  EXPECT_EQ(status, Status::NotFound);
}

TEST_F(VerbsEmulation, QpStateMachineIsChecked) {
  const char byte = 1;
  EXPECT_EQ(a_.qp->state(), QpState::Reset);
  EXPECT_EQ(a_.qp->post_send(inline_send(1, &byte, 1, 0)), Status::InvalidParam);
  RcConnect connect;
  connect.remote_qpn = b_.qp->qpn();
  EXPECT_EQ(a_.qp->to_rtr(connect), Status::InvalidParam);  // not from Reset
  ASSERT_EQ(a_.qp->to_init(kAllAccess), Status::Ok);
  EXPECT_EQ(a_.qp->to_rts(connect), Status::InvalidParam);  // not from Init
  EXPECT_EQ(a_.qp->post_send(inline_send(1, &byte, 1, 0)), Status::InvalidParam);
}

TEST_F(VerbsEmulation, SendsLandInTheSrqInOrder) {
  connect_both();
  for (uint64_t i = 0; i < 4; ++i) ASSERT_EQ(b_.post_recv(100 + i, i * 64, 64), Status::Ok);
  for (uint32_t i = 0; i < 4; ++i) {
    const uint32_t value = 0xabc0 + i;
    ASSERT_EQ(a_.qp->post_send(inline_send(i, &value, sizeof(value), i + 7)), Status::Ok);
  }
  const auto sent = a_.poll();
  ASSERT_EQ(sent.size(), 4u);
  const auto received = b_.poll();
  ASSERT_EQ(received.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(sent[i].wr_id, i);
    EXPECT_EQ(sent[i].status, WcStatus::Success);
    EXPECT_EQ(sent[i].opcode, WcOpcode::Send);
    EXPECT_EQ(received[i].wr_id, 100 + i);
    EXPECT_EQ(received[i].opcode, WcOpcode::Recv);
    EXPECT_EQ(received[i].byte_len, 4u);
    EXPECT_TRUE(received[i].has_imm);
    EXPECT_EQ(received[i].imm, i + 7);
    EXPECT_EQ(received[i].qp_num, b_.qp->qpn());
    uint32_t value = 0;
    std::memcpy(&value, b_.memory.data() + i * 64, sizeof(value));
    EXPECT_EQ(value, 0xabc0 + i);
  }
}

TEST_F(VerbsEmulation, SendWithoutReceiveWaitsUntilOneIsPosted) {
  connect_both();
  const uint64_t first = 11;
  const uint64_t second = 22;
  ASSERT_EQ(a_.qp->post_send(inline_send(1, &first, 8, 0)), Status::Ok);
  ASSERT_EQ(a_.qp->post_send(inline_send(2, &second, 8, 0)), Status::Ok);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(a_.poll().empty());  // rnr_retry 7: for ever
  ASSERT_EQ(b_.post_recv(1, 0, 64), Status::Ok);
  auto sent = a_.poll();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].wr_id, 1u);
  ASSERT_EQ(b_.post_recv(2, 64, 64), Status::Ok);
  sent = a_.poll();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].wr_id, 2u);
  const auto received = b_.poll();
  ASSERT_EQ(received.size(), 2u);
  uint64_t value = 0;
  std::memcpy(&value, b_.memory.data() + 64, 8);
  EXPECT_EQ(value, second);
}

TEST_F(VerbsEmulation, RnrRetriesRunOutAndFlushTheRest) {
  connect_both(2);
  const uint64_t word = 5;
  ASSERT_EQ(a_.qp->post_send(inline_send(1, &word, 8, 0)), Status::Ok);
  ASSERT_EQ(a_.qp->post_send(inline_send(2, &word, 8, 0)), Status::Ok);
  EXPECT_TRUE(a_.poll().empty());  // first retry
  std::vector<WorkCompletion> sent = a_.poll();  // second retry fails
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].wr_id, 1u);
  EXPECT_EQ(sent[0].status, WcStatus::RnrRetryExceeded);
  EXPECT_EQ(sent[1].wr_id, 2u);
  EXPECT_EQ(sent[1].status, WcStatus::Flushed);
  EXPECT_EQ(a_.qp->state(), QpState::Error);
  EXPECT_EQ(a_.qp->post_send(inline_send(3, &word, 8, 0)), Status::InvalidParam);
  ASSERT_EQ(b_.post_recv(1, 0, 64), Status::Ok);
  EXPECT_TRUE(b_.poll().empty());  // nothing was delivered
}

TEST_F(VerbsEmulation, RdmaWriteAndReadCopyBetweenRegions) {
  connect_both();
  std::memcpy(a_.memory.data(), "hello, remote", 14);
  ASSERT_EQ(a_.qp->post_send(one_sided(SendOp::RdmaWrite, 1, a_, 0, 14, b_, 100)), Status::Ok);
  const SendWr read = one_sided(SendOp::RdmaRead, 2, a_, 200, 14, b_, 100);
  ASSERT_EQ(a_.qp->post_send(read), Status::Ok);
  const auto done = a_.poll();
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].opcode, WcOpcode::RdmaWrite);
  EXPECT_EQ(done[1].opcode, WcOpcode::RdmaRead);
  EXPECT_EQ(done[1].status, WcStatus::Success);
  EXPECT_EQ(std::memcmp(b_.memory.data() + 100, "hello, remote", 14), 0);
  EXPECT_EQ(std::memcmp(a_.memory.data() + 200, "hello, remote", 14), 0);
  EXPECT_TRUE(b_.poll().empty());  // one-sided: the target sees nothing
}

TEST_F(VerbsEmulation, BadKeysAndRangesAreAccessErrors) {
  connect_both();
  SendWr write;
  write.op = SendOp::RdmaWrite;
  write.sge = {a_.at(0), 16, a_.mr->lkey()};
  write.remote_address = b_.at(4096 - 8);  // runs past the region
  write.rkey = b_.mr->rkey();
  ASSERT_EQ(a_.qp->post_send(write), Status::Ok);
  EXPECT_EQ(statuses(a_), Statuses{WcStatus::RemoteAccessError});
  EXPECT_EQ(a_.qp->state(), QpState::Error);

  // A fresh pair: a wrong rkey, a region without remote read, a bad lkey.
  SetUp();
  connect_both();
  Status status = Status::Ok;
  std::vector<std::byte> private_bytes(64);
  auto local_only = b_.pd->reg_mr(private_bytes.data(), private_bytes.size(), kAccessLocalWrite, status);
  ASSERT_EQ(status, Status::Ok);
  SendWr read;
  read.op = SendOp::RdmaRead;
  read.sge = {a_.at(0), 16, a_.mr->lkey()};
  read.remote_address = reinterpret_cast<uint64_t>(private_bytes.data());
  read.rkey = local_only->rkey();
  ASSERT_EQ(a_.qp->post_send(read), Status::Ok);
  EXPECT_EQ(statuses(a_), Statuses{WcStatus::RemoteAccessError});
  local_only.reset();

  SetUp();
  connect_both();
  read.remote_address = b_.at(0);
  read.rkey = b_.mr->lkey();  // an lkey is no rkey
  ASSERT_EQ(a_.qp->post_send(read), Status::Ok);
  EXPECT_EQ(statuses(a_), Statuses{WcStatus::RemoteAccessError});

  SetUp();
  connect_both();
  read.rkey = b_.mr->rkey();
  read.sge.lkey = 12345;
  ASSERT_EQ(a_.qp->post_send(read), Status::Ok);
  EXPECT_EQ(statuses(a_), Statuses{WcStatus::LocalProtectionError});
}

TEST_F(VerbsEmulation, AtomicsReturnTheOldValue) {
  connect_both();
  uint64_t initial = 40;
  std::memcpy(b_.memory.data() + 64, &initial, 8);
  SendWr add = one_sided(SendOp::FetchAdd, 1, a_, 0, 8, b_, 64);
  add.compare_add = 2;
  ASSERT_EQ(a_.qp->post_send(add), Status::Ok);
  SendWr swap = add;
  swap.wr_id = 2;
  swap.op = SendOp::CompareSwap;
  swap.sge.address = a_.at(8);
  swap.compare_add = 42;
  swap.swap = 7;
  ASSERT_EQ(a_.qp->post_send(swap), Status::Ok);
  ASSERT_EQ(a_.poll().size(), 2u);
  uint64_t old_add = 0;
  uint64_t old_swap = 0;
  uint64_t now = 0;
  std::memcpy(&old_add, a_.memory.data(), 8);
  std::memcpy(&old_swap, a_.memory.data() + 8, 8);
  std::memcpy(&now, b_.memory.data() + 64, 8);
  EXPECT_EQ(old_add, 40u);
  EXPECT_EQ(old_swap, 42u);
  EXPECT_EQ(now, 7u);
}

TEST_F(VerbsEmulation, SendQueueSlotsFreeWhenCompletionsArePolled) {
  connect_both();
  for (uint64_t i = 0; i < 16; ++i) ASSERT_EQ(b_.post_recv(i, i * 64, 64), Status::Ok);
  const uint64_t word = 1;
  for (uint64_t i = 0; i < 8; ++i) {
    SendWr wr = inline_send(i, &word, 8, 0);
    wr.signaled = i == 7;  // one completion covers the eight
    ASSERT_EQ(a_.qp->post_send(wr), Status::Ok);
  }
  EXPECT_EQ(a_.qp->post_send(inline_send(8, &word, 8, 0)), Status::WouldBlock);
  const auto done = a_.poll();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].wr_id, 7u);
  EXPECT_EQ(a_.qp->post_send(inline_send(8, &word, 8, 0)), Status::Ok);
}

TEST_F(VerbsEmulation, PeerNotReadyInTimeIsARetryError) {
  // Timeout 1 (8 us), two retries: about 25 us of patience.
  ASSERT_EQ(a_.qp->to_init(kAllAccess), Status::Ok);
  RcConnect connect;
  connect.remote = b_.port();
  connect.remote_qpn = b_.qp->qpn();
  connect.timeout = 1;
  connect.retry_count = 2;
  ASSERT_EQ(a_.qp->to_rtr(connect), Status::Ok);
  ASSERT_EQ(a_.qp->to_rts(connect), Status::Ok);
  ASSERT_EQ(b_.qp->to_init(kAllAccess), Status::Ok);  // never reaches RTR
  const uint64_t word = 1;
  ASSERT_EQ(b_.post_recv(1, 0, 64), Status::Ok);
  ASSERT_EQ(a_.qp->post_send(inline_send(1, &word, 8, 0)), Status::Ok);
  Statuses seen;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (seen.empty() && std::chrono::steady_clock::now() < deadline) seen = statuses(a_);
  EXPECT_EQ(seen, Statuses{WcStatus::RetryExceeded});
  EXPECT_TRUE(b_.poll().empty());
}

TEST_F(VerbsEmulation, PeerReadyWithinTheRetriesGetsTheSend) {
  ASSERT_EQ(connect(a_, b_), Status::Ok);  // timeout 14: about 67 ms a retry
  ASSERT_EQ(b_.post_recv(1, 0, 64), Status::Ok);
  const uint64_t word = 77;
  ASSERT_EQ(a_.qp->post_send(inline_send(1, &word, 8, 0)), Status::Ok);
  EXPECT_TRUE(a_.poll().empty());  // b_ is still in RESET
  ASSERT_EQ(connect(b_, a_), Status::Ok);
  EXPECT_EQ(statuses(a_), Statuses{WcStatus::Success});
  EXPECT_EQ(statuses(b_), Statuses{WcStatus::Success});
}

TEST_F(VerbsEmulation, ReceiveTooSmallFailsBothSides) {
  connect_both();
  ASSERT_EQ(b_.post_recv(1, 0, 4), Status::Ok);
  const uint64_t word = 1;
  ASSERT_EQ(a_.qp->post_send(inline_send(1, &word, 8, 0)), Status::Ok);
  EXPECT_EQ(statuses(a_), Statuses{WcStatus::RemoteInvalidRequest});
  EXPECT_EQ(statuses(b_), Statuses{WcStatus::LocalLengthError});
}

TEST_F(VerbsEmulation, CqEventFdFiresOnceArmed) {
  connect_both();
  ASSERT_EQ(b_.post_recv(1, 0, 64), Status::Ok);
  ASSERT_EQ(b_.cq->request_notify(), Status::Ok);
  const uint64_t word = 1;
  ASSERT_EQ(a_.qp->post_send(inline_send(1, &word, 8, 0)), Status::Ok);
  uint64_t value = 0;
  ASSERT_EQ(read(b_.cq->event_fd(), &value, sizeof(value)), static_cast<ssize_t>(sizeof(value)));
  EXPECT_EQ(read(a_.cq->event_fd(), &value, sizeof(value)), -1);  // never armed
}

TEST(VerbsEmulationUd, DatagramsCarryAGrhAndNeedTheQkey) {
  auto fabric = make_emulated_fabric({});
  auto provider = make_emulated_provider(fabric);
  Status status = Status::Ok;
  auto context_a = provider->open("emu0", status);
  auto context_b = provider->open("emu1", status);
  auto pd_a = context_a->alloc_pd(status);
  auto pd_b = context_b->alloc_pd(status);
  auto cq_a = context_a->create_cq(16, status);
  auto cq_b = context_b->create_cq(16, status);
  QpParams params;
  params.type = QpType::Ud;
  params.send_cq = cq_a.get();
  params.recv_cq = cq_a.get();
  params.max_recv_wr = 4;
  params.max_inline = 64;
  auto qp_a = pd_a->create_qp(params, status);
  params.send_cq = params.recv_cq = cq_b.get();
  auto qp_b = pd_b->create_qp(params, status);
  ASSERT_EQ(status, Status::Ok);
  for (Qp* qp : {qp_a.get(), qp_b.get()}) {
    ASSERT_EQ(qp->to_init(0x1234), Status::Ok);
    ASSERT_EQ(qp->to_rtr({}), Status::Ok);
    ASSERT_EQ(qp->to_rts({}), Status::Ok);
  }
  std::vector<std::byte> buffer(128);
  auto mr = pd_b->reg_mr(buffer.data(), buffer.size(), kAccessLocalWrite, status);
  const PortAddress to{LinkLayer::InfiniBand, context_b->info().lid, context_b->info().gid, 0};
  auto ah = pd_a->create_ah(to, status);
  const uint64_t payload = 0x5151;
  SendWr wr = inline_send(1, &payload, 8, 9);
  wr.ah = ah.get();
  wr.remote_qpn = qp_b->qpn();
  wr.qkey = 0x1234;
  ASSERT_EQ(qp_a->post_send(wr), Status::Ok);  // no receive posted: lost
  ASSERT_EQ(qp_b->post_recv({7, {reinterpret_cast<uint64_t>(buffer.data()), 128, mr->lkey()}}), Status::Ok);
  wr.qkey = 0x9999;
  ASSERT_EQ(qp_a->post_send(wr), Status::Ok);  // wrong qkey: lost
  wr.qkey = 0x1234;
  ASSERT_EQ(qp_a->post_send(wr), Status::Ok);
  std::vector<WorkCompletion> out(8);
  ASSERT_EQ(cq_a->poll(out), 3);
  ASSERT_EQ(cq_b->poll(out), 1);
  EXPECT_EQ(out[0].wr_id, 7u);
  EXPECT_EQ(out[0].byte_len, kGrhBytes + 8);
  EXPECT_EQ(out[0].src_qp, qp_a->qpn());
  uint64_t value = 0;
  std::memcpy(&value, buffer.data() + kGrhBytes, 8);
  EXPECT_EQ(value, payload);
  EXPECT_EQ(std::memcmp(buffer.data() + 8, context_a->info().gid.data(), 16), 0);
  qp_a.reset();
  qp_b.reset();
  mr.reset();
}

}  // namespace
}  // namespace tern::engine::transport::verbs
