// A worker over TCP whose peer breaks the protocol: any malformed message
// on a connection drops that connection at once, the worker fails the
// endpoint and tells its owner, and the calls that need that peer fail;
// its other peers are served as before. (Frames malformed at the transport
// level are in tests/engine/transport/tcp_test.cpp.)
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "rogue.hpp"

namespace tern::engine::hostile {
namespace {

TEST(HostileTcp, MalformedMessageDropsTheConnectionAndFailsThePeersCalls) {
  Pair pair("tcp", "self,tcp");
  ASSERT_TRUE(pair.ready());
  ASSERT_STREQ(pair.target_->transport_of(pair.target_to_peer_), "tcp");
  const uint64_t rogue_uuid = 0x7e57000000000001ull;
  TcpRogue rogue(*pair.target_, pair.job_id_, rogue_uuid);
  ASSERT_TRUE(rogue.ready());
  ASSERT_EQ(rogue.hello(), Status::Ok);
  // The target connects back to it on the hello.
  ASSERT_TRUE(pair.until([&] {
    rogue.progress();
    return rogue.greeted();
  }));
  const uint64_t before = pair.target_->rejected_messages();

  // A synchronous eager message too short for its header.
  ASSERT_EQ(rogue.ep().am_short(tag::kAmEagerSync, 1, nullptr, 0), Status::Ok);
  ASSERT_TRUE(pair.until([&] {
    rogue.progress();
    return !pair.failed_.empty();
  }));
  EXPECT_EQ(pair.target_->rejected_messages(), before + 1);
  ASSERT_EQ(pair.failed_.size(), 1u);
  Endpoint* failed = pair.failed_[0];
  EXPECT_NE(failed, pair.target_to_peer_);
  EXPECT_EQ(pair.target_->peer_status(failed), Status::IoError);
  EXPECT_EQ(pair.target_->tag_send(failed, "x", 1, 1), Status::IoError);
  // The rogue finds its connection closed.
  ASSERT_TRUE(pair.until([&] {
    rogue.progress();
    return rogue.ep().am_short(tag::kAmEager, 1, nullptr, 0) == Status::IoError;
  }));
  // The real peer is served as before.
  EXPECT_EQ(pair.target_->peer_status(pair.target_to_peer_), Status::Ok);
  EXPECT_TRUE(pair.target_still_receives(100));
  EXPECT_TRUE(pair.target_still_receives(1 << 20));
}

}  // namespace
}  // namespace tern::engine::hostile
