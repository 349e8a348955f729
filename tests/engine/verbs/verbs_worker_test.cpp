// Two workers of one process joined only by the verbs transport on the
// emulated device (TERN_VERBS_EMULATION; the real one with
// TERN_TEST_VERBS=1): the engine's tag protocols (short,
// eager fragments, rendezvous by RDMA READ of the sender's offered buffer)
// and RMA (RDMA WRITE, READ and atomics on registered memory) run on it,
// with the HCA's tag matching off and on (TERN_TM_OFFLOAD=on, receives and
// tagged eager sends from 1 KiB go to the device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "tern/engine/rma.hpp"
#include "tern/engine/worker.hpp"
#include "verbs_test_env.hpp"

namespace tern::engine {
namespace {

// Receives and sends from this size use the tag device when it is on.
constexpr std::size_t kOffloadFrom = 1024;

std::unique_ptr<Worker> make_worker(bool tag_matching) {
  WorkerParams params;
  params.config.transports = "verbs";
  params.config.tm_offload = tag_matching ? runtime::Switch::On : runtime::Switch::Off;
  params.config.tm_threshold = kOffloadFrom;
  params.config.verbs_emulation =
      transport::verbs::testing::on_hardware() ? runtime::Switch::Off : runtime::Switch::On;
  std::unique_ptr<Worker> worker;
  EXPECT_EQ(Worker::create(params, worker), Status::Ok);
  return worker;
}

uint8_t pattern(std::size_t i, std::size_t seed) { return static_cast<uint8_t>(i * 31 + seed * 7 + (i >> 11)); }

// The parameter: the tag device on.
class VerbsWorkers : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    a_ = make_worker(GetParam());
    b_ = make_worker(GetParam());
    ASSERT_TRUE(a_ && b_);
    ASSERT_EQ(a_->connect(b_->address(), ep_), Status::Ok);
    ASSERT_STREQ(a_->transport_of(ep_), "verbs");
  }

  std::unique_ptr<Worker> a_, b_;
  Endpoint* ep_ = nullptr;
};

TEST_P(VerbsWorkers, TagMessagesOfEveryProtocolArriveIntact) {
  const std::vector<std::size_t> sizes = {0, 1, 8, 100, 8000, 8184, 8185, 16383, 16384, 65536, std::size_t{1} << 20,
                                          (std::size_t{4} << 20) + 3};
  std::vector<std::vector<uint8_t>> out(sizes.size()), in(sizes.size());
  std::vector<Request*> sends(sizes.size(), nullptr), receives(sizes.size(), nullptr);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    out[i].resize(sizes[i]);
    in[i].assign(sizes[i] + 1, 0);
    for (std::size_t j = 0; j < sizes[i]; ++j) out[i][j] = pattern(j, i);
  }
  // Even messages find their receive posted, odd ones arrive unexpected.
  for (std::size_t i = 0; i < sizes.size(); i += 2) {
    const Status s = b_->tag_recv_nb(in[i].data(), in[i].size(), i, ~uint64_t{0}, receives[i]);
    ASSERT_TRUE(s == Status::InProgress || s == Status::Ok);
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const Status s = a_->tag_send_nb(ep_, out[i].data(), sizes[i], i, sends[i]);
    ASSERT_TRUE(s == Status::InProgress || s == Status::Ok) << sizes[i];
  }
  for (int round = 0; round < 1000; ++round) {
    a_->progress();
    b_->progress();
  }
  for (std::size_t i = 1; i < sizes.size(); i += 2) {
    const Status s = b_->tag_recv_nb(in[i].data(), in[i].size(), i, ~uint64_t{0}, receives[i]);
    ASSERT_TRUE(s == Status::InProgress || s == Status::Ok);
  }
  auto finish = [&](Worker& worker, Worker& other, Request* request) {
    if (request == nullptr) return Status::Ok;
    Status s = Status::InProgress;
    for (long spins = 0; spins < 100000000 && (s = worker.test(request)) == Status::InProgress; ++spins) {
      other.progress();
    }
    worker.release(request);
    return s;
  };
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(finish(*b_, *a_, receives[i]), Status::Ok) << sizes[i];
    EXPECT_EQ(finish(*a_, *b_, sends[i]), Status::Ok) << sizes[i];
    // Not memcmp: an empty vector's data() may be null.
    EXPECT_TRUE(std::equal(out[i].begin(), out[i].end(), in[i].begin())) << sizes[i];
    EXPECT_EQ(in[i][sizes[i]], 0) << "written past the message of " << sizes[i];
  }
}

TEST_P(VerbsWorkers, RmaPutGetAndAtomicsAreOneSided) {
  std::vector<uint64_t> memory(1 << 16, 0);
  rma::Registration* registration = nullptr;
  rma::RemoteRegion* region = nullptr;
  ASSERT_EQ(rma::Registration::create(*b_, memory.data(), memory.size() * 8, registration), Status::Ok);
  ASSERT_EQ(rma::RemoteRegion::unpack(registration->packed_key(), region), Status::Ok);
  ASSERT_TRUE(rma::supported(*a_, ep_));
  const auto base = reinterpret_cast<uint64_t>(memory.data());
  std::vector<uint64_t> out(4096), back(4096);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = i * 3 + 1;
  // Opening the connection takes the target's progress once (its
  // connection service answers); after that it never progresses: the
  // operations need nothing of its CPU.
  uint64_t hello = 1;
  Request* send = nullptr;
  Request* receive = nullptr;
  ASSERT_NE(a_->tag_send_nb(ep_, &hello, sizeof(hello), 99, send), Status::IoError);
  ASSERT_NE(b_->tag_recv_nb(&hello, sizeof(hello), 99, ~uint64_t{0}, receive), Status::IoError);
  for (Request* request : {send, receive}) {
    if (request == nullptr) continue;
    Worker& owner = request == send ? *a_ : *b_;
    Status s = Status::InProgress;
    for (long spins = 0; spins < 10000000 && (s = owner.test(request)) == Status::InProgress; ++spins) {
      a_->progress();
      b_->progress();
    }
    ASSERT_EQ(s, Status::Ok);
    owner.release(request);
  }
  ASSERT_EQ(rma::put(*a_, ep_, out.data(), out.size() * 8, *region, base + 64), Status::Ok);
  ASSERT_EQ(rma::flush(*a_, ep_), Status::Ok);
  EXPECT_EQ(memory[8], 1u);
  EXPECT_EQ(memory[8 + 4095], 4095u * 3 + 1);
  ASSERT_EQ(rma::get(*a_, ep_, back.data(), back.size() * 8, *region, base + 64), Status::Ok);
  EXPECT_EQ(back, out);
  uint64_t old = 0;
  ASSERT_EQ(rma::atomic(*a_, ep_, rma::AtomicOp::FetchAdd, 8, 5, 0, *region, base, &old), Status::Ok);
  ASSERT_EQ(rma::atomic(*a_, ep_, rma::AtomicOp::CompareSwap, 8, 9, 5, *region, base, &old), Status::Ok);
  EXPECT_EQ(old, 5u);
  EXPECT_EQ(memory[0], 9u);
  rma::RemoteRegion::destroy(region);
  rma::Registration::destroy(registration);
}

INSTANTIATE_TEST_SUITE_P(TagDevice, VerbsWorkers, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "On" : "Off"; });

}  // namespace
}  // namespace tern::engine
