// The emulated TM SRQ behaves as the kernel's tag_matching.rst and man
// ibv_post_srq_ops describe: list operations, earliest-added-wins matching
// with masks, unexpected messages counted, the sync rule, and a DEL that
// loses the race with a message.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "transport/verbs/verbs_emulated.hpp"
#include "transport/verbs/verbs_emulated_tags.hpp"
#include "verbs_side.hpp"

namespace tern::engine::transport::verbs {
namespace {

constexpr uint64_t kAllBits = ~uint64_t{0};

// Tag-list operations on a side with a TM SRQ.
struct TagSide : testing::Side {
  // Adds a tagged buffer of `length` bytes at `offset`; the handle, or 0.
  uint32_t add(uint64_t recv_id, uint64_t tag, uint64_t mask, std::size_t offset, uint32_t length,
               uint32_t unexpected_count, Status* result = nullptr) {
    TagListWr wr;
    wr.op = TagListOp::Add;
    wr.wr_id = 1000 + recv_id;
    wr.sync = true;
    wr.unexpected_count = unexpected_count;
    wr.recv_wr_id = recv_id;
    wr.sge = {at(offset), length, mr->lkey()};
    wr.tag = tag;
    wr.mask = mask;
    uint32_t handle = 0;
    const Status status = tag_srq->post_tag_op(wr, handle);
    if (result != nullptr) *result = status;
    return status == Status::Ok ? handle : 0;
  }
  Status del(uint32_t handle) {
    TagListWr wr;
    wr.op = TagListOp::Del;
    wr.wr_id = 2000 + handle;
    wr.handle = handle;
    uint32_t unused = 0;
    return tag_srq->post_tag_op(wr, unused);
  }
};

class VerbsTagSrq : public ::testing::Test {
 protected:
  void SetUp() override {
    fabric_ = make_emulated_fabric({});
    provider_ = make_emulated_provider(fabric_);
    receiver_.open(*provider_, "emu0", 8);
    sender_.open(*provider_, "emu1", 8);
    connect(sender_, receiver_);
    connect(receiver_, sender_);
    // Buffers for unexpected messages.
    for (uint32_t i = 0; i < 4; ++i) {
      ASSERT_EQ(receiver_.srq->post_recv({500 + i, {receiver_.at(32768 + i * 1024), 1024, receiver_.mr->lkey()}}),
                Status::Ok);
    }
  }
  static void connect(TagSide& from, const TagSide& to) { ASSERT_EQ(testing::connect(from, to), Status::Ok); }
  // Sends a message with a tag-matching header and `payload`.
  void send(TagOpcode opcode, uint64_t tag, uint32_t app_context, const std::string& payload) {
    std::vector<std::byte> message(kTagHeaderBytes + payload.size());
    pack_tag_header({opcode, app_context, tag}, message.data());
    std::memcpy(message.data() + kTagHeaderBytes, payload.data(), payload.size());
    SendWr wr;
    wr.wr_id = 77;
    wr.inline_data = true;
    wr.sge = {reinterpret_cast<uint64_t>(message.data()), static_cast<uint32_t>(message.size()), 0};
    ASSERT_EQ(sender_.qp->post_send(wr), Status::Ok);
    for (const WorkCompletion& wc : sender_.poll()) EXPECT_EQ(wc.status, WcStatus::Success);
  }
  std::string received(std::size_t offset, std::size_t length) const {
    return {reinterpret_cast<const char*>(receiver_.memory.data() + offset), length};
  }

  std::shared_ptr<EmulatedFabric> fabric_;
  std::unique_ptr<Provider> provider_;
  TagSide receiver_;
  TagSide sender_;
};

TEST(VerbsTagHeader, RoundTripsAndRefusesReservedBytes) {
  std::byte bytes[kTagHeaderBytes];
  pack_tag_header({TagOpcode::Eager, 0xa1b2c3d4u, 0x0102030405060708ull}, bytes);
  EXPECT_EQ(bytes[0], std::byte{3});
  EXPECT_EQ(bytes[4], std::byte{0xa1});
  EXPECT_EQ(bytes[8], std::byte{0x01});  // big-endian, as struct ibv_tmh
  TagHeader header;
  ASSERT_TRUE(unpack_tag_header(bytes, sizeof(bytes), header));
  EXPECT_EQ(header.opcode, TagOpcode::Eager);
  EXPECT_EQ(header.app_context, 0xa1b2c3d4u);
  EXPECT_EQ(header.tag, 0x0102030405060708ull);
  EXPECT_FALSE(unpack_tag_header(bytes, kTagHeaderBytes - 1, header));
  bytes[2] = std::byte{1};
  EXPECT_FALSE(unpack_tag_header(bytes, sizeof(bytes), header));
}

TEST(VerbsTagSrqCaps, DevicesWithoutTagMatchingRefuseTheSrq) {
  EmulatedFabricParams params;
  params.tm_max_tags = 0;
  auto fabric = make_emulated_fabric(params);
  auto provider = make_emulated_provider(fabric);
  Status status = Status::Ok;
  auto context = provider->open("emu0", status);
  auto pd = context->alloc_pd(status);
  auto cq = context->create_tag_cq(16, status);
  EXPECT_EQ(context->info().tm_max_tags, 0u);
  EXPECT_EQ(pd->create_tag_srq({16, 4, 4, cq.get()}, status), nullptr);
  EXPECT_EQ(status, Status::Unsupported);
}

TEST_F(VerbsTagSrq, CreationChecksTheDeviceLimits) {
  Status status = Status::Ok;
  const DeviceInfo& info = receiver_.context->info();
  EXPECT_EQ(receiver_.pd->create_tag_srq({16, info.tm_max_tags + 1, 4, receiver_.cq.get()}, status), nullptr);
  EXPECT_EQ(status, Status::InvalidParam);
  EXPECT_EQ(receiver_.pd->create_tag_srq({16, 4, 4, nullptr}, status), nullptr);
  EXPECT_EQ(status, Status::InvalidParam);
  // A basic SRQ takes no list operations.
  auto basic = receiver_.pd->create_srq(16, status);
  ASSERT_NE(basic, nullptr);
  uint32_t handle = 0;
  EXPECT_EQ(static_cast<TagSrq*>(basic.get())->post_tag_op({}, handle), Status::Unsupported);
}

TEST_F(VerbsTagSrq, AddDelAndCapacity) {
  std::vector<uint32_t> handles;
  for (uint64_t i = 0; i < 8; ++i) {
    const uint32_t handle = receiver_.add(i, i, kAllBits, i * 1024, 1024, 0);
    ASSERT_NE(handle, 0u);
    handles.push_back(handle);
  }
  Status status = Status::Ok;
  EXPECT_EQ(receiver_.add(8, 8, kAllBits, 0, 16, 0, &status), 0u);
  EXPECT_EQ(status, Status::WouldBlock);  // the list holds max_tags
  ASSERT_EQ(receiver_.del(handles[3]), Status::Ok);
  EXPECT_NE(receiver_.add(8, 8, kAllBits, 8192, 16, 0), 0u);
  EXPECT_EQ(receiver_.del(12345), Status::InvalidParam);
  unsigned adds = 0, dels = 0;
  for (const WorkCompletion& wc : receiver_.poll()) {
    EXPECT_EQ(wc.status, WcStatus::Success);
    adds += wc.opcode == WcOpcode::TagAdd;
    dels += wc.opcode == WcOpcode::TagDel;
  }
  EXPECT_EQ(adds, 9u);
  EXPECT_EQ(dels, 1u);
  // The deleted entry matches nothing any more: tag 3 is unexpected.
  send(TagOpcode::Eager, 3, 0, "three");
  auto wcs = receiver_.poll();
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].opcode, WcOpcode::Recv);
  EXPECT_EQ(wcs[0].tag_flags & kWcTagged, kWcTagged);
  EXPECT_EQ(wcs[0].tag, 3u);
}

TEST_F(VerbsTagSrq, EarliestAddedEntryWinsAndMasksAreRespected) {
  // Entry 1 takes any tag whose low 16 bits are 7; entry 2 only tag 0x10007.
  ASSERT_NE(receiver_.add(1, 7, 0xffff, 0, 64, 0), 0u);
  ASSERT_NE(receiver_.add(2, 0x10007, kAllBits, 1024, 64, 0), 0u);
  (void)receiver_.poll();
  send(TagOpcode::Eager, 0x10007, 9, "first");
  send(TagOpcode::Eager, 0x10007, 9, "second");
  auto wcs = receiver_.poll();
  ASSERT_EQ(wcs.size(), 2u);
  EXPECT_EQ(wcs[0].opcode, WcOpcode::TagRecv);
  EXPECT_EQ(wcs[0].wr_id, 1u);  // the earliest, through its mask
  EXPECT_EQ(wcs[0].tag, 0x10007u);
  EXPECT_EQ(wcs[0].app_context, 9u);
  EXPECT_EQ(wcs[0].tag_flags & kWcTagDataValid, kWcTagDataValid);
  EXPECT_EQ(wcs[0].byte_len, 5u);
  EXPECT_EQ(wcs[1].wr_id, 2u);
  EXPECT_EQ(received(0, 5), "first");
  EXPECT_EQ(received(1024, 6), "second");
}

TEST_F(VerbsTagSrq, UnexpectedMessagesAreCountedAndStaleAddsRefused) {
  send(TagOpcode::Eager, 5, 0, "early");
  auto wcs = receiver_.poll();
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].opcode, WcOpcode::Recv);
  EXPECT_EQ(wcs[0].wr_id, 500u);
  EXPECT_EQ(wcs[0].byte_len, kTagHeaderBytes + 5);  // the header lands with it
  TagHeader header;
  ASSERT_TRUE(unpack_tag_header(receiver_.memory.data() + 32768, wcs[0].byte_len, header));
  EXPECT_EQ(header.tag, 5u);
  // Software says it handled none: refused, and the device asks for a sync.
  ASSERT_NE(receiver_.add(1, 5, kAllBits, 0, 64, 0), 0u);
  wcs = receiver_.poll();
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].opcode, WcOpcode::TagAdd);
  EXPECT_EQ(wcs[0].status, WcStatus::TagListError);
  EXPECT_EQ(wcs[0].tag_flags & kWcSyncRequest, kWcSyncRequest);
  // Not in the list: the next message is unexpected too.
  send(TagOpcode::Eager, 5, 0, "again");
  wcs = receiver_.poll();
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].opcode, WcOpcode::Recv);
  // With the count caught up, the add holds.
  ASSERT_NE(receiver_.add(2, 5, kAllBits, 0, 64, 2), 0u);
  wcs = receiver_.poll();
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, WcStatus::Success);
  send(TagOpcode::Eager, 5, 0, "late");
  wcs = receiver_.poll();
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].opcode, WcOpcode::TagRecv);
  EXPECT_EQ(received(0, 4), "late");
  // Messages without a tag never match and are not counted.
  ASSERT_NE(receiver_.add(3, 0, 0, 0, 64, 2), 0u);  // matches every tag
  send(TagOpcode::NoTag, 0, 0, "plain");
  wcs = receiver_.poll();
  ASSERT_EQ(wcs.size(), 2u);
  EXPECT_EQ(wcs[1].opcode, WcOpcode::Recv);
  EXPECT_EQ(wcs[1].tag_flags, 0);
  EXPECT_EQ(wcs[0].status, WcStatus::Success);  // the add: the count was still 2
}

TEST_F(VerbsTagSrq, TheDeviceAsksForASyncWhenSoftwaresCountLagsBehind) {
  std::vector<WorkCompletion> unexpected;
  for (uint32_t i = 0; i < EmulatedTagList::kSyncRequestAfter; ++i) {
    (void)receiver_.srq->post_recv({600 + i, {receiver_.at(36864 + 64 * i), 64, receiver_.mr->lkey()}});
    send(TagOpcode::Eager, 1000 + i, 0, "u");
    for (const WorkCompletion& wc : receiver_.poll()) unexpected.push_back(wc);
  }
  ASSERT_EQ(unexpected.size(), EmulatedTagList::kSyncRequestAfter);
  for (std::size_t i = 0; i + 1 < unexpected.size(); ++i) EXPECT_EQ(unexpected[i].tag_flags & kWcSyncRequest, 0);
  EXPECT_EQ(unexpected.back().tag_flags & kWcSyncRequest, kWcSyncRequest);
  TagListWr sync;
  sync.op = TagListOp::Sync;
  sync.wr_id = 9;
  sync.unexpected_count = EmulatedTagList::kSyncRequestAfter;
  uint32_t unused = 0;
  ASSERT_EQ(receiver_.tag_srq->post_tag_op(sync, unused), Status::Ok);
  auto wcs = receiver_.poll();
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].opcode, WcOpcode::TagSync);
  EXPECT_EQ(wcs[0].tag_flags, 0);
  (void)receiver_.srq->post_recv({700, {receiver_.at(40960), 64, receiver_.mr->lkey()}});
  send(TagOpcode::Eager, 5, 0, "u");
  wcs = receiver_.poll();
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].tag_flags & kWcSyncRequest, 0);  // in step again
}

TEST_F(VerbsTagSrq, ADelCarryingAStaleCountIsRefusedAndTheEntryStays) {
  const uint32_t handle = receiver_.add(1, 7, kAllBits, 0, 64, 0);
  ASSERT_NE(handle, 0u);
  send(TagOpcode::Eager, 8, 0, "unexpected");
  (void)receiver_.poll();
  TagListWr del;
  del.op = TagListOp::Del;
  del.wr_id = 5;
  del.handle = handle;
  del.sync = true;
  del.unexpected_count = 0;  // the device counted one
  uint32_t unused = 0;
  ASSERT_EQ(receiver_.tag_srq->post_tag_op(del, unused), Status::Ok);
  auto wcs = receiver_.poll();
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].opcode, WcOpcode::TagDel);
  EXPECT_EQ(wcs[0].status, WcStatus::TagListError);
  EXPECT_EQ(wcs[0].tag_flags & kWcSyncRequest, kWcSyncRequest);
  send(TagOpcode::Eager, 7, 0, "still listed");
  wcs = receiver_.poll();
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].opcode, WcOpcode::TagRecv);
  EXPECT_EQ(received(0, 12), "still listed");
}

TEST_F(VerbsTagSrq, ADelThatLosesTheRaceFailsAndTheMessageCompletes) {
  const uint32_t handle = receiver_.add(1, 42, kAllBits, 0, 64, 0);
  ASSERT_NE(handle, 0u);
  send(TagOpcode::Eager, 42, 0, "won");
  // Software has not polled yet and takes the buffer back.
  ASSERT_EQ(receiver_.del(handle), Status::Ok);
  auto wcs = receiver_.poll();
  ASSERT_EQ(wcs.size(), 3u);
  EXPECT_EQ(wcs[0].opcode, WcOpcode::TagAdd);
  EXPECT_EQ(wcs[1].opcode, WcOpcode::TagRecv);
  EXPECT_EQ(wcs[1].status, WcStatus::Success);
  EXPECT_EQ(wcs[2].opcode, WcOpcode::TagDel);
  EXPECT_EQ(wcs[2].status, WcStatus::TagListError);
  EXPECT_EQ(received(0, 3), "won");
}

TEST_F(VerbsTagSrq, ATooSmallTaggedBufferReportsALengthError) {
  ASSERT_NE(receiver_.add(1, 1, kAllBits, 0, 4, 0), 0u);
  (void)receiver_.poll();
  send(TagOpcode::Eager, 1, 0, "too long");
  auto wcs = receiver_.poll();
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].opcode, WcOpcode::TagRecv);
  EXPECT_EQ(wcs[0].status, WcStatus::LocalLengthError);
  EXPECT_EQ(wcs[0].byte_len, 8u);
}

}  // namespace
}  // namespace tern::engine::transport::verbs
