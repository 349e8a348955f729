// What verbs peers send outside their RC queue pairs is input: addresses
// and connection datagrams are parsed strictly, and a datagram without the
// target's secret opens nothing.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "transport/verbs/verbs_emulated.hpp"
#include "transport/verbs/verbs_iface.hpp"
#include "transport/verbs/verbs_wire.hpp"

namespace tern::engine::transport::verbs {
namespace {

VerbsAddress sample_address() {
  VerbsAddress address;
  address.worker_uuid = 0x1234;
  address.port.lid = 7;
  address.port.gid[15] = 9;
  address.ud_qpn = 0x345;
  address.mtu = 4096;
  address.secret[3] = 0x5a;
  return address;
}

WireupMessage sample_request() {
  WireupMessage message;
  message.sender_uuid = 1;
  message.target_uuid = 2;
  message.rc_qpn = 0x111;
  message.psn = 0x222;
  message.ud_qpn = 0x333;
  message.mtu = 2048;
  message.port.lid = 3;
  message.secret[0] = 1;
  message.nonce[15] = 2;
  return message;
}

std::vector<std::byte> packed(const WireupMessage& message) {
  std::byte bytes[kWireupBytes];
  pack_wireup(message, bytes);
  return {bytes, bytes + kWireupBytes};
}

TEST(VerbsWire, AddressesRoundTripAndRejectDamage) {
  std::vector<std::byte> bytes = pack_address(sample_address());
  VerbsAddress back;
  ASSERT_TRUE(unpack_address(bytes, back));
  EXPECT_EQ(back.worker_uuid, 0x1234u);
  EXPECT_EQ(back.port.lid, 7);
  EXPECT_EQ(back.ud_qpn, 0x345u);
  EXPECT_EQ(back.secret, sample_address().secret);
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    EXPECT_FALSE(unpack_address(std::span(bytes).first(length), back)) << length;
  }
  std::vector<std::byte> longer = bytes;
  longer.push_back(std::byte{0});
  EXPECT_FALSE(unpack_address(longer, back));
  VerbsAddress bad = sample_address();
  bad.ud_qpn = 1u << 24;  // QPNs have 24 bits
  EXPECT_FALSE(unpack_address(pack_address(bad), back));
  bad = sample_address();
  bad.worker_uuid = 0;
  EXPECT_FALSE(unpack_address(pack_address(bad), back));
  bytes[4] = std::byte{99};  // version
  EXPECT_FALSE(unpack_address(bytes, back));
}

TEST(VerbsWire, DatagramsRoundTripAndRejectDamage) {
  std::vector<std::byte> bytes = packed(sample_request());
  WireupMessage back;
  ASSERT_TRUE(unpack_wireup(bytes, back));
  EXPECT_EQ(back.type, WireupType::Request);
  EXPECT_EQ(back.rc_qpn, 0x111u);
  EXPECT_EQ(back.psn, 0x222u);
  EXPECT_EQ(back.nonce, sample_request().nonce);
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    EXPECT_FALSE(unpack_wireup(std::span(bytes).first(length), back)) << length;
  }
  WireupMessage reply = sample_request();
  reply.type = WireupType::Reply;
  EXPECT_FALSE(unpack_wireup(packed(reply), back));  // a reply must name the QP it answers
  reply.peer_qpn = 5;
  EXPECT_TRUE(unpack_wireup(packed(reply), back));
  bytes[5] = std::byte{3};  // no such type
  EXPECT_FALSE(unpack_wireup(bytes, back));
  // Noise never parses into a message with impossible fields.
  std::mt19937 random(42);
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::byte> noise = packed(sample_request());
    for (int flips = 0; flips < 3; ++flips) {
      noise[random() % noise.size()] = static_cast<std::byte>(random());
    }
    if (unpack_wireup(noise, back)) {
      EXPECT_LT(back.rc_qpn, 1u << 24);
      EXPECT_LT(back.ud_qpn, 1u << 24);
      EXPECT_GE(back.mtu, 256u);
    }
  }
}

TEST(VerbsWire, DatagramsWithoutTheSecretOpenNothing) {
  auto fabric = make_emulated_fabric({});
  IfaceParams params;
  params.worker_uuid = 0xb0b;
  Status status = Status::Ok;
  auto target = VerbsIface::create(params, make_emulated_provider(fabric), {}, status);
  ASSERT_NE(target, nullptr);
  VerbsAddress address;
  ASSERT_TRUE(unpack_address(target->address(), address));

  // A stranger on the same fabric, with a UD QP of its own.
  auto provider = make_emulated_provider(fabric);
  auto context = provider->open("emu1", status);
  auto pd = context->alloc_pd(status);
  auto cq = context->create_cq(16, status);
  QpParams qp_params;
  qp_params.type = QpType::Ud;
  qp_params.send_cq = qp_params.recv_cq = cq.get();
  qp_params.max_recv_wr = 4;
  qp_params.max_inline = 256;
  auto qp = pd->create_qp(qp_params, status);
  ASSERT_EQ(qp->to_init(0x11ee7e12), Status::Ok);
  ASSERT_EQ(qp->to_rtr({}), Status::Ok);
  ASSERT_EQ(qp->to_rts({}), Status::Ok);
  auto ah = pd->create_ah(address.port, status);
  auto send = [&](const WireupMessage& message) {
    std::byte bytes[kWireupBytes];
    pack_wireup(message, bytes);
    SendWr wr;
    wr.op = SendOp::Send;
    wr.inline_data = true;
    wr.sge = {reinterpret_cast<uint64_t>(bytes), static_cast<uint32_t>(kWireupBytes), 0};
    wr.ah = ah.get();
    wr.remote_qpn = address.ud_qpn;
    wr.qkey = 0x11ee7e12;
    ASSERT_EQ(qp->post_send(wr), Status::Ok);
    // An iface without connections looks at its queue every 32nd call.
    for (int i = 0; i < 64; ++i) target->progress();
  };
  WireupMessage request = sample_request();
  request.target_uuid = address.worker_uuid;
  request.port = {LinkLayer::InfiniBand, context->info().lid, context->info().gid, 0};
  send(request);  // a guessed secret
  request.secret = address.secret;
  request.target_uuid = 0x999;  // someone else
  send(request);
  EXPECT_EQ(target->connections(), 0u);
  request.target_uuid = address.worker_uuid;
  send(request);  // the real thing: a connection is made
  EXPECT_EQ(target->connections(), 1u);
  qp.reset();
  target.reset();
}

}  // namespace
}  // namespace tern::engine::transport::verbs
