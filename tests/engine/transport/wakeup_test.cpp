// Wakeup datagrams: an abstract socket can be written by any process on the
// host; only those of this job's user (or root) count, the rest are dropped.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "transport/shm/wakeup.hpp"

namespace tern::engine::transport::shm {
namespace {

TEST(WakeupSocket, DatagramsFromAnotherUserAreDropped) {
  if (geteuid() != 0) GTEST_SKIP() << "sending as another user needs root";
  const std::string base = "/tern-wakeup-test-" + std::to_string(getpid());
  const WakeupAddress address = wakeup_address(base);
  WakeupSocket receiver;
  ASSERT_EQ(WakeupSocket::open(address, receiver), Status::Ok);
  WakeupSocket sender;
  ASSERT_EQ(WakeupSocket::open(wakeup_address(base + "-s"), sender), Status::Ok);
  sender.signal(address);

  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // nobody: a stranger to the job
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
    const int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    const char byte = 1;
    const bool sent = fd >= 0 && sendto(fd, &byte, 1, 0, reinterpret_cast<const sockaddr*>(&address.address),
                                        address.length) == 1;
    _exit(sent ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the stranger could not send";

  EXPECT_EQ(receiver.drain(), 1u);  // ours read, the stranger's dropped
  EXPECT_EQ(receiver.drain(), 0u);  // and nothing is left
}

}  // namespace
}  // namespace tern::engine::transport::shm
