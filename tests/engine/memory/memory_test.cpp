// Memory regions and keys: the same pages seen from the owner and from a
// peer process, static data made shareable in place, refused keys, and no
// names or descriptors left behind.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tern/runtime/pipe_io.hpp"
#include "core/memory_key.hpp"
#include "tern/engine/memory.hpp"

namespace tern::engine {
namespace {

constexpr unsigned kChildSeconds = 30;
constexpr unsigned kTestSeconds = 50;  // under the ctest timeout

// --- helpers -----------------------------------------------------------------

std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

uint8_t pattern_byte(std::size_t i, uint8_t seed) { return static_cast<uint8_t>(i * 31 + seed * 7 + (i >> 8)); }

void fill_pattern(void* to, std::size_t length, uint8_t seed) {
  auto* bytes = static_cast<uint8_t*>(to);
  for (std::size_t i = 0; i < length; ++i) bytes[i] = pattern_byte(i, seed);
}

bool check_pattern(const void* from, std::size_t length, uint8_t seed) {
  const auto* bytes = static_cast<const uint8_t*>(from);
  for (std::size_t i = 0; i < length; ++i) {
    if (bytes[i] != pattern_byte(i, seed)) return false;
  }
  return true;
}

int count_open_fds() {
  int count = 0;
  if (DIR* dir = opendir("/proc/self/fd")) {
    while (dirent* entry = readdir(dir)) {
      if (entry->d_name[0] != '.') ++count;
    }
    closedir(dir);
  }
  return count - 1;  // the directory's own descriptor
}

// Lines of /proc/self/maps that are a region's memfd.
int count_region_mappings() {
  std::ifstream maps("/proc/self/maps");
  int count = 0;
  for (std::string line; std::getline(maps, line);) {
    if (line.find("memfd:tern-region") != std::string::npos) ++count;
  }
  return count;
}

// The /proc/self/maps line that holds `address` (empty if none).
std::string mapping_of(const void* address) {
  const auto target = reinterpret_cast<uintptr_t>(address);
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    uintptr_t start = 0;
    uintptr_t end = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &start, &end) == 2 && target >= start && target < end)
      return line;
  }
  return {};
}

PackedMemKey key_fields(const std::vector<std::byte>& packed) {
  PackedMemKey fields{};
  std::memcpy(&fields, packed.data(), sizeof(fields));
  return fields;
}

std::vector<std::byte> key_bytes(const PackedMemKey& fields) {
  std::vector<std::byte> packed(sizeof(fields));
  std::memcpy(packed.data(), &fields, sizeof(fields));
  return packed;
}

using runtime::read_all;
using runtime::write_all;

// Two pipes between a parent and the child it forks; each side closes the
// other's ends so that a side dying shows as end of file, not a hang.
class Channel {
 public:
  Channel() {
    if (pipe2(down_, O_CLOEXEC) != 0 || pipe2(up_, O_CLOEXEC) != 0) ok_ = false;
  }
  ~Channel() {
    for (int fd : {down_[0], down_[1], up_[0], up_[1]}) {
      if (fd >= 0) close(fd);
    }
  }
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  [[nodiscard]] bool ok() const { return ok_; }
  void as_parent() {
    drop(down_[0]);
    drop(up_[1]);
  }
  void as_child() {
    drop(down_[1]);
    drop(up_[0]);
  }

  // Parent to child and back.
  bool send_down(const void* data, std::size_t length) { return write_all(down_[1], data, length); }
  bool receive_down(void* data, std::size_t length) { return read_all(down_[0], data, length); }
  bool send_up(const void* data, std::size_t length) { return write_all(up_[1], data, length); }
  bool receive_up(void* data, std::size_t length) { return read_all(up_[0], data, length); }

  bool signal_down(char c = 'k') { return send_down(&c, 1); }
  bool signal_up(char c = 'k') { return send_up(&c, 1); }
  bool wait_down() {
    char c = 0;
    return receive_down(&c, 1);
  }
  bool wait_up() {
    char c = 0;
    return receive_up(&c, 1);
  }

  bool send_key_up(const std::vector<std::byte>& key) {
    const uint32_t length = static_cast<uint32_t>(key.size());
    return send_up(&length, sizeof(length)) && send_up(key.data(), key.size());
  }
  bool send_key_down(const std::vector<std::byte>& key) {
    const uint32_t length = static_cast<uint32_t>(key.size());
    return send_down(&length, sizeof(length)) && send_down(key.data(), key.size());
  }
  bool receive_key_up(std::vector<std::byte>& key) {
    uint32_t length = 0;
    if (!receive_up(&length, sizeof(length)) || length > 4096) return false;
    key.resize(length);
    return receive_up(key.data(), length);
  }
  bool receive_key_down(std::vector<std::byte>& key) {
    uint32_t length = 0;
    if (!receive_down(&length, sizeof(length)) || length > 4096) return false;
    key.resize(length);
    return receive_down(key.data(), length);
  }

 private:
  static void drop(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
  }

  int down_[2] = {-1, -1};
  int up_[2] = {-1, -1};
  bool ok_ = true;
};

// A forked process running `body`, whose return value is its exit code. It
// dies by alarm if it hangs, and is always reaped: killed first if the test
// gives up on it.
class Child {
 public:
  template <typename Body>
  Child(Channel& channel, Body&& body) {
    pid_ = fork();
    if (pid_ == 0) {
      alarm(kChildSeconds);
      channel.as_child();
      _exit(body());
    }
    if (pid_ > 0) channel.as_parent();
  }
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  [[nodiscard]] bool started() const { return pid_ > 0; }
  [[nodiscard]] pid_t pid() const { return pid_; }

  // The exit code, or 1000 + the signal that killed it.
  int wait() {
    int status = 0;
    const pid_t got = waitpid(pid_, &status, 0);
    pid_ = -1;
    if (got < 0) return -1;
    if (WIFSIGNALED(status)) return 1000 + WTERMSIG(status);
    return WEXITSTATUS(status);
  }

 private:
  pid_t pid_ = -1;
};

class MemoryTest : public ::testing::Test {
 protected:
  // A broken test fails by alarm instead of hanging the run.
  void SetUp() override { alarm(kTestSeconds); }
  void TearDown() override { alarm(0); }
};

MemRegion* map_or_null(const MemMapParams& params) {
  MemRegion* region = nullptr;
  return MemRegion::map(params, region) == Status::Ok ? region : nullptr;
}

// Static data for kMemShareExisting: whole pages each, one in .bss and one in
// .data, as a program's own static variables would be.
alignas(4096) char g_bss[3 * 4096];
alignas(4096) char g_data[2 * 4096] = {'t', 'e', 'r', 'n'};
// Ordinary globals, with whatever the linker puts around them (under ASan,
// poisoned redzones; GCC leaves over-aligned globals such as the two above
// without any, so those do not show it).
char g_plain[100] = {'p', 'l', 'a', 'i', 'n'};

// --- same process --------------------------------------------------------------

TEST_F(MemoryTest, AllocatedRegionUnpacksToItselfInTheSameProcess) {
  const std::size_t page = page_size();
  MemRegion* region = map_or_null({nullptr, 10000, kMemAllocate});
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->length(), (10000 + page - 1) / page * page);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(region->base()) % page, 0u);
  EXPECT_EQ(region->packed_key().size(), sizeof(PackedMemKey));
  fill_pattern(region->base(), region->length(), 1);

  RemoteKey* key = nullptr;
  ASSERT_EQ(RemoteKey::unpack(region->packed_key(), key), Status::Ok);
  ASSERT_NE(key, nullptr);
  const auto base = reinterpret_cast<uint64_t>(region->base());
  const std::size_t length = region->length();
  EXPECT_EQ(key->remote_base(), base);
  EXPECT_EQ(key->length(), length);
  EXPECT_EQ(key->local_base(), region->base());
  EXPECT_TRUE(check_pattern(key->local_base(), length, 1));

  // Bounds: inside, up to the last byte, the whole region; nothing past it.
  EXPECT_EQ(key->ptr(base), region->base());
  EXPECT_EQ(key->ptr(base + 100, 8), static_cast<char*>(region->base()) + 100);
  EXPECT_EQ(key->ptr(base + length - 1), static_cast<char*>(region->base()) + length - 1);
  EXPECT_EQ(key->ptr(base + length - 8, 8), static_cast<char*>(region->base()) + length - 8);
  EXPECT_EQ(key->ptr(base, length), region->base());
  EXPECT_EQ(key->ptr(base + length), nullptr);
  EXPECT_EQ(key->ptr(base + length - 8, 9), nullptr);
  EXPECT_EQ(key->ptr(base, length + 1), nullptr);
  EXPECT_EQ(key->ptr(base - 1), nullptr);
  EXPECT_EQ(key->ptr(0), nullptr);
  EXPECT_EQ(key->ptr(UINT64_MAX), nullptr);
  EXPECT_EQ(key->ptr(base + 1, SIZE_MAX), nullptr);  // the end would wrap around
  EXPECT_EQ(key->ptr(base + length + 4096, 1), nullptr);

  // A store through the key is a store into the region.
  *static_cast<uint64_t*>(key->ptr(base + 64, 8)) = 0x1122334455667788ULL;
  uint64_t seen = 0;
  std::memcpy(&seen, static_cast<char*>(region->base()) + 64, sizeof(seen));
  EXPECT_EQ(seen, 0x1122334455667788ULL);

  RemoteKey::destroy(key);
  MemRegion::unmap(region);
}

TEST_F(MemoryTest, LargeAllocationIsSparse) {
  // 8 GiB of address space costs nothing until touched (MAP_NORESERVE).
  MemRegion* region = map_or_null({nullptr, std::size_t{8} << 30, kMemAllocate});
  ASSERT_NE(region, nullptr);
  auto* bytes = static_cast<char*>(region->base());
  bytes[0] = 1;
  bytes[region->length() - 1] = 2;
  EXPECT_EQ(bytes[0] + bytes[region->length() - 1], 3);
  MemRegion::unmap(region);
}

// --- another process -----------------------------------------------------------

TEST_F(MemoryTest, ForkedPeerSharesLoadsStoresAndAtomics) {
  constexpr std::size_t kLength = (std::size_t{1} << 20) + 5;
  constexpr std::size_t kPatternBytes = 64 * 1024;
  constexpr std::size_t kCounterOffset = 2 * kPatternBytes;
  constexpr uint64_t kAdds = 200000;

  const int mappings_before = count_region_mappings();
  Channel channel;
  ASSERT_TRUE(channel.ok());
  Child child(channel, [&]() -> int {
    MemRegion* region = map_or_null({nullptr, kLength, kMemAllocate});
    if (region == nullptr) return 2;
    auto* bytes = static_cast<char*>(region->base());
    fill_pattern(bytes, kPatternBytes, 3);
    if (!channel.send_key_up(region->packed_key())) return 3;
    if (!channel.wait_down()) return 4;  // the parent wrote its pattern
    if (!check_pattern(bytes + kPatternBytes, kPatternBytes, 4)) return 5;
    if (!channel.wait_down()) return 6;  // go
    auto* counter = reinterpret_cast<uint64_t*>(bytes + kCounterOffset);
    for (uint64_t i = 0; i < kAdds; ++i) __atomic_fetch_add(counter, 1, __ATOMIC_ACQ_REL);
    if (!channel.signal_up()) return 7;
    if (!channel.wait_down()) return 8;  // the parent is done adding too
    if (__atomic_load_n(counter, __ATOMIC_ACQUIRE) != 2 * kAdds) return 9;
    if (!channel.wait_down()) return 10;  // the parent dropped its key
    MemRegion::unmap(region);
    return 0;
  });
  ASSERT_TRUE(child.started());
  const int fds_before = count_open_fds();

  std::vector<std::byte> packed;
  ASSERT_TRUE(channel.receive_key_up(packed)) << "child exited with " << child.wait();
  RemoteKey* key = nullptr;
  ASSERT_EQ(RemoteKey::unpack(packed, key), Status::Ok);
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->length(), (kLength + page_size() - 1) / page_size() * page_size());
  EXPECT_NE(key->local_base(), nullptr);
  EXPECT_EQ(count_open_fds(), fds_before);  // the mapping keeps the file, not a descriptor
  EXPECT_EQ(count_region_mappings(), mappings_before + 1);

  const uint64_t remote = key->remote_base();
  const void* child_pattern = key->ptr(remote, kPatternBytes);
  ASSERT_NE(child_pattern, nullptr);
  EXPECT_TRUE(check_pattern(child_pattern, kPatternBytes, 3));
  void* ours = key->ptr(remote + kPatternBytes, kPatternBytes);
  ASSERT_NE(ours, nullptr);
  fill_pattern(ours, kPatternBytes, 4);
  ASSERT_TRUE(channel.signal_down());

  auto* counter = static_cast<uint64_t*>(key->ptr(remote + kCounterOffset, sizeof(uint64_t)));
  ASSERT_NE(counter, nullptr);
  ASSERT_TRUE(channel.signal_down());  // go: both add at once
  for (uint64_t i = 0; i < kAdds; ++i) __atomic_fetch_add(counter, 1, __ATOMIC_ACQ_REL);
  ASSERT_TRUE(channel.wait_up()) << "child exited with " << child.wait();
  EXPECT_EQ(__atomic_load_n(counter, __ATOMIC_ACQUIRE), 2 * kAdds);
  ASSERT_TRUE(channel.signal_down());

  RemoteKey::destroy(key);
  EXPECT_EQ(count_region_mappings(), mappings_before);
  ASSERT_TRUE(channel.signal_down());
  EXPECT_EQ(child.wait(), 0);
}

TEST_F(MemoryTest, ForgedOrStaleKeysFromAPeerAreUnreachable) {
  Channel channel;
  ASSERT_TRUE(channel.ok());
  Child child(channel, [&]() -> int {
    MemRegion* region = map_or_null({nullptr, 4096, kMemAllocate});
    if (region == nullptr) return 2;
    if (!channel.send_key_up(region->packed_key())) return 3;
    channel.wait_down();
    MemRegion::unmap(region);
    return 0;
  });
  ASSERT_TRUE(child.started());
  std::vector<std::byte> packed;
  ASSERT_TRUE(channel.receive_key_up(packed)) << "child exited with " << child.wait();
  const PackedMemKey real = key_fields(packed);
  RemoteKey* key = nullptr;

  // Longer than the file behind the descriptor: touching it would be SIGBUS.
  PackedMemKey fields = real;
  fields.length = std::size_t{1} << 20;
  EXPECT_EQ(RemoteKey::unpack(key_bytes(fields), key), Status::Unreachable);
  EXPECT_EQ(key, nullptr);

  // A descriptor the peer does not have.
  fields = real;
  fields.fd = 1 << 20;
  EXPECT_EQ(RemoteKey::unpack(key_bytes(fields), key), Status::Unreachable);
  EXPECT_EQ(key, nullptr);

  // The real one still works.
  ASSERT_EQ(RemoteKey::unpack(packed, key), Status::Ok);
  RemoteKey::destroy(key);
  ASSERT_TRUE(channel.signal_down());
  EXPECT_EQ(child.wait(), 0);

  // The peer has gone: its key reaches nothing.
  key = nullptr;
  EXPECT_EQ(RemoteKey::unpack(packed, key), Status::Unreachable);
  EXPECT_EQ(key, nullptr);
}

// --- static data shared in place ---------------------------------------------------

TEST_F(MemoryTest, ShareExistingKeepsStaticDataAndPeersReachIt) {
  if (page_size() != 4096) GTEST_SKIP() << "the static arrays are laid out for 4 KiB pages";
  // Page by page, so that any page can be checked on its own.
  for (std::size_t page = 0; page < 3; ++page) fill_pattern(g_bss + page * 4096, 4096, 7);
  std::vector<char> before(g_bss, g_bss + sizeof(g_bss));

  // Forked before the mapping: its g_bss is a private copy, so what it sees
  // of ours comes through the key alone.
  Channel channel;
  ASSERT_TRUE(channel.ok());
  Child stranger(channel, [&]() -> int {
    std::vector<std::byte> packed;
    if (!channel.receive_key_down(packed)) return 2;
    RemoteKey* key = nullptr;
    if (RemoteKey::unpack(packed, key) != Status::Ok) return 3;
    if (key->remote_base() != reinterpret_cast<uint64_t>(g_bss)) return 4;
    if (key->local_base() == reinterpret_cast<std::byte*>(g_bss)) return 5;  // mapped afresh, not our copy
    if (key->length() != sizeof(g_bss)) return 6;
    // Reached by the owner's address, as a front end does for static data.
    const uint64_t page0 = reinterpret_cast<uint64_t>(&g_bss[0]);
    const uint64_t page1 = reinterpret_cast<uint64_t>(&g_bss[4096]);
    const uint64_t page2 = reinterpret_cast<uint64_t>(&g_bss[8192]);
    for (uint64_t page : {page0, page1, page2}) {
      if (!check_pattern(key->ptr(page, 4096), 4096, 7)) return 7;
    }
    fill_pattern(key->ptr(page1, 4096), 4096, 8);
    if (!check_pattern(g_bss + 4096, 4096, 7)) return 8;  // our own copy is untouched
    if (!channel.signal_up()) return 9;
    if (!channel.wait_down()) return 10;  // the owner wrote page 0
    if (!check_pattern(key->ptr(page0, 4096), 4096, 9)) return 11;
    RemoteKey::destroy(key);
    return 0;
  });
  ASSERT_TRUE(stranger.started());

  const int fds_before = count_open_fds();
  MemRegion* region = map_or_null({g_bss, sizeof(g_bss), kMemShareExisting});
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->base(), static_cast<void*>(g_bss));
  EXPECT_EQ(region->length(), sizeof(g_bss));
  EXPECT_EQ(count_open_fds(), fds_before + 1);
  EXPECT_EQ(std::memcmp(g_bss, before.data(), sizeof(g_bss)), 0);
  EXPECT_NE(mapping_of(g_bss).find("memfd:tern-region"), std::string::npos) << mapping_of(g_bss);
  EXPECT_NE(mapping_of(g_bss + sizeof(g_bss) - 1).find("memfd:tern-region"), std::string::npos);
  // Still ordinary writable memory.
  g_bss[5] = 42;
  EXPECT_EQ(g_bss[5], 42);
  g_bss[5] = before[5];

  ASSERT_TRUE(channel.send_key_down(region->packed_key()));
  ASSERT_TRUE(channel.wait_up()) << "stranger exited with " << stranger.wait();
  EXPECT_TRUE(check_pattern(g_bss, 4096, 7));
  EXPECT_TRUE(check_pattern(g_bss + 4096, 4096, 8));  // the stranger's store, in our variable
  EXPECT_TRUE(check_pattern(g_bss + 8192, 4096, 7));
  fill_pattern(g_bss, 4096, 9);
  ASSERT_TRUE(channel.signal_down());
  EXPECT_EQ(stranger.wait(), 0);

  // Forked after: it inherits the shared mapping, so plain stores reach us.
  {
    Channel heir_channel;
    ASSERT_TRUE(heir_channel.ok());
    Child heir(heir_channel, [&]() -> int {
      if (!check_pattern(g_bss + 4096, 4096, 8)) return 2;
      fill_pattern(g_bss + 8192, 4096, 10);
      return heir_channel.signal_up() ? 0 : 3;
    });
    ASSERT_TRUE(heir.started());
    ASSERT_TRUE(heir_channel.wait_up()) << "heir exited with " << heir.wait();
    EXPECT_EQ(heir.wait(), 0);
    EXPECT_TRUE(check_pattern(g_bss + 8192, 4096, 10));
  }

  // Unmapping gives back the handle only: the variables stay, and stay ours.
  MemRegion::unmap(region);
  EXPECT_EQ(count_open_fds(), fds_before);
  EXPECT_TRUE(check_pattern(g_bss, 4096, 9));
  EXPECT_TRUE(check_pattern(g_bss + 4096, 4096, 8));
  EXPECT_TRUE(check_pattern(g_bss + 8192, 4096, 10));
  g_bss[0] = 1;
  EXPECT_EQ(g_bss[0], 1);
}

TEST_F(MemoryTest, ShareExistingKeepsInitializedDataAndUnpacksToItself) {
  if (page_size() != 4096) GTEST_SKIP() << "the static arrays are laid out for 4 KiB pages";
  g_data[sizeof(g_data) - 1] = 'z';
  MemRegion* region = map_or_null({g_data, sizeof(g_data), kMemShareExisting});
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(std::memcmp(g_data, "tern", 4), 0);
  EXPECT_EQ(g_data[4], 0);
  EXPECT_EQ(g_data[sizeof(g_data) - 1], 'z');

  RemoteKey* key = nullptr;
  ASSERT_EQ(RemoteKey::unpack(region->packed_key(), key), Status::Ok);
  EXPECT_EQ(key->local_base(), reinterpret_cast<std::byte*>(g_data));
  *static_cast<char*>(key->ptr(reinterpret_cast<uint64_t>(&g_data[1]))) = 'E';
  EXPECT_EQ(g_data[1], 'E');
  RemoteKey::destroy(key);
  MemRegion::unmap(region);
  EXPECT_EQ(std::memcmp(g_data, "tErn", 4), 0);
  g_data[1] = 'e';  // as the initializer had it, for --gtest_repeat
}

TEST_F(MemoryTest, ShareExistingCopiesWholePagesWhateverLiesAroundVariables) {
  const std::size_t page = page_size();
  const auto first = reinterpret_cast<uintptr_t>(g_plain) / page * page;
  const auto last = (reinterpret_cast<uintptr_t>(g_plain) + sizeof(g_plain) + page - 1) / page * page;
  MemRegion* region = map_or_null({reinterpret_cast<void*>(first), last - first, kMemShareExisting});
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(std::memcmp(g_plain, "plain", 6), 0);
  g_plain[99] = 'x';
  EXPECT_EQ(g_plain[99], 'x');
  g_plain[99] = 0;
  MemRegion::unmap(region);
}

TEST_F(MemoryTest, UnshareGivesPrivatePagesWithTheSameContents) {
  const std::size_t page = page_size();
  void* area = mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(area, MAP_FAILED);
  auto* bytes = static_cast<unsigned char*>(area);
  for (std::size_t i = 0; i < 3 * page; ++i) bytes[i] = static_cast<unsigned char>(i * 7);
  MemRegion* region = map_or_null({bytes + page, page, kMemShareExisting});
  ASSERT_NE(region, nullptr);
  EXPECT_NE(mapping_of(bytes + page).find("memfd:"), std::string::npos);
  RemoteKey* key = nullptr;
  ASSERT_EQ(RemoteKey::unpack(region->packed_key(), key), Status::Ok);
  bytes[page + 5] = 0xab;  // written while shared
  RemoteKey::destroy(key);
  MemRegion::unshare(region);
  EXPECT_EQ(mapping_of(bytes + page).find("memfd:"), std::string::npos);
  EXPECT_NE(mapping_of(bytes + page).find(" rw-p "), std::string::npos);
  for (std::size_t i = 0; i < 3 * page; ++i) {
    const unsigned char expected = i == page + 5 ? 0xab : static_cast<unsigned char>(i * 7);
    if (bytes[i] != expected) {
      ADD_FAILURE() << "byte " << i << " changed";
      break;
    }
  }
  munmap(area, 3 * page);
}

// --- refusals ----------------------------------------------------------------------

TEST_F(MemoryTest, ShareExistingRefusesTheStackAndSharedMemory) {
  const std::size_t page = page_size();
  // A page of this very stack frame's neighbourhood.
  alignas(4096) char on_stack[2 * 4096] = {};
  const auto first = (reinterpret_cast<uintptr_t>(on_stack) + page - 1) / page * page;
  MemRegion* region = nullptr;
  EXPECT_EQ(MemRegion::map({reinterpret_cast<void*>(first), page, kMemShareExisting}, region), Status::Unsupported);
  EXPECT_EQ(region, nullptr);
  // Memory already shared (a region of ours, a shared anonymous mapping).
  MemRegion* allocated = map_or_null({nullptr, page, kMemAllocate});
  ASSERT_NE(allocated, nullptr);
  EXPECT_EQ(MemRegion::map({allocated->base(), page, kMemShareExisting}, region), Status::Unsupported);
  MemRegion::unmap(allocated);
  void* shared = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(shared, MAP_FAILED);
  EXPECT_EQ(MemRegion::map({shared, page, kMemShareExisting}, region), Status::Unsupported);
  munmap(shared, page);
  // Read-only memory.
  void* frozen = mmap(nullptr, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(frozen, MAP_FAILED);
  EXPECT_EQ(MemRegion::map({frozen, page, kMemShareExisting}, region), Status::Unsupported);
  munmap(frozen, page);
  EXPECT_EQ(region, nullptr);
  EXPECT_EQ(on_stack[0], 0);
}

TEST_F(MemoryTest, AllocationHonoursALargeAlignment) {
  // Up to 1 TiB: address space only, as much again reserved while mapping.
  for (std::size_t alignment :
       {std::size_t{0}, std::size_t{4096}, std::size_t{1} << 16, std::size_t{2} << 20, std::size_t{2} << 30}) {
    MemRegion* region = nullptr;
    ASSERT_EQ(MemRegion::map({nullptr, 3 * 4096 + 1, kMemAllocate, alignment}, region), Status::Ok) << alignment;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(region->base()) % (alignment == 0 ? 4096 : alignment), 0u) << alignment;
    std::memset(region->base(), 0x5a, region->length());  // all of it is mapped and writable
    MemRegion::unmap(region);
  }
  MemRegion* region = nullptr;
  EXPECT_EQ(MemRegion::map({nullptr, 4096, kMemAllocate, 3 * 4096}, region), Status::InvalidParam);
  EXPECT_EQ(MemRegion::map({nullptr, 4096, kMemAllocate, std::size_t{2} << 40}, region), Status::InvalidParam);
  EXPECT_EQ(region, nullptr);
}

TEST_F(MemoryTest, MapRefusesBadParameters) {
  const std::size_t page = page_size();
  MemRegion* region = reinterpret_cast<MemRegion*>(&region);  // must be reset
  EXPECT_EQ(MemRegion::map({nullptr, 0, kMemAllocate}, region), Status::InvalidParam);
  EXPECT_EQ(region, nullptr);
  EXPECT_EQ(MemRegion::map({nullptr, SIZE_MAX, kMemAllocate}, region), Status::InvalidParam);
  EXPECT_EQ(MemRegion::map({nullptr, page, 0}, region), Status::InvalidParam);
  EXPECT_EQ(MemRegion::map({nullptr, page, kMemAllocate | kMemShareExisting}, region), Status::InvalidParam);
  EXPECT_EQ(MemRegion::map({nullptr, page, 1u << 7}, region), Status::InvalidParam);
  EXPECT_EQ(region, nullptr);

  // Share in place: page aligned both ways, non-empty, really mapped.
  void* area = mmap(nullptr, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(area, MAP_FAILED);
  auto* bytes = static_cast<char*>(area);
  EXPECT_EQ(MemRegion::map({bytes, 0, kMemShareExisting}, region), Status::InvalidParam);
  EXPECT_EQ(MemRegion::map({bytes + 1, page, kMemShareExisting}, region), Status::InvalidParam);
  EXPECT_EQ(MemRegion::map({bytes + 64, page, kMemShareExisting}, region), Status::InvalidParam);
  EXPECT_EQ(MemRegion::map({bytes, page + 1, kMemShareExisting}, region), Status::InvalidParam);
  EXPECT_EQ(MemRegion::map({bytes, page / 2, kMemShareExisting}, region), Status::InvalidParam);
  EXPECT_EQ(MemRegion::map({nullptr, page, kMemShareExisting}, region), Status::InvalidParam);
  ASSERT_EQ(munmap(bytes + 2 * page, page), 0);  // a hole
  EXPECT_EQ(MemRegion::map({bytes, 4 * page, kMemShareExisting}, region), Status::InvalidParam);
  EXPECT_EQ(region, nullptr);
  // The refusals left the memory private and as it was.
  EXPECT_EQ(mapping_of(bytes).find("memfd:"), std::string::npos);
  munmap(bytes, 2 * page);
  munmap(bytes + 3 * page, page);
}

TEST_F(MemoryTest, UnpackRefusesWhatIsNotAKey) {
  MemRegion* region = map_or_null({nullptr, 4096, kMemAllocate});
  ASSERT_NE(region, nullptr);
  const std::vector<std::byte>& packed = region->packed_key();
  RemoteKey* key = reinterpret_cast<RemoteKey*>(&key);  // must be reset

  EXPECT_EQ(RemoteKey::unpack({}, key), Status::InvalidParam);
  EXPECT_EQ(key, nullptr);
  std::vector<std::byte> garbage(packed.size());
  for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<std::byte>(i * 37 + 11);
  EXPECT_EQ(RemoteKey::unpack(garbage, key), Status::InvalidParam);
  EXPECT_EQ(RemoteKey::unpack(std::span(packed).first(packed.size() - 1), key), Status::InvalidParam);
  std::vector<std::byte> longer(packed);
  longer.push_back(std::byte{0});
  EXPECT_EQ(RemoteKey::unpack(longer, key), Status::InvalidParam);

  PackedMemKey fields = key_fields(packed);
  fields.magic ^= 1;
  EXPECT_EQ(RemoteKey::unpack(key_bytes(fields), key), Status::InvalidParam);
  fields = key_fields(packed);
  fields.version = kMemKeyVersion + 1;
  EXPECT_EQ(RemoteKey::unpack(key_bytes(fields), key), Status::InvalidParam);
  fields = key_fields(packed);
  fields.length = 0;
  EXPECT_EQ(RemoteKey::unpack(key_bytes(fields), key), Status::InvalidParam);
  fields = key_fields(packed);
  fields.base = UINT64_MAX - 100;  // the region would wrap around
  EXPECT_EQ(RemoteKey::unpack(key_bytes(fields), key), Status::InvalidParam);
  EXPECT_EQ(key, nullptr);

  // Another node, even with this process's pid and descriptor.
  fields = key_fields(packed);
  fields.node[3] ^= 0x5a;
  EXPECT_EQ(RemoteKey::unpack(key_bytes(fields), key), Status::Unreachable);
  fields = key_fields(packed);
  fields.node[20] ^= 0x01;  // the host name and namespace half
  EXPECT_EQ(RemoteKey::unpack(key_bytes(fields), key), Status::Unreachable);
  EXPECT_EQ(key, nullptr);

  // The untouched key is still good.
  ASSERT_EQ(RemoteKey::unpack(packed, key), Status::Ok);
  RemoteKey::destroy(key);
  MemRegion::unmap(region);
}

// --- what is left behind ---------------------------------------------------------------

TEST_F(MemoryTest, NoNamesInDevShmAndDescriptorsClosed) {
  const int fds_before = count_open_fds();
  const int mappings_before = count_region_mappings();
  std::vector<MemRegion*> regions;
  for (std::size_t length : {std::size_t{1}, std::size_t{4096}, std::size_t{3} << 20}) {
    regions.push_back(map_or_null({nullptr, length, kMemAllocate}));
    ASSERT_NE(regions.back(), nullptr);
  }
  EXPECT_EQ(count_open_fds(), fds_before + 3);
  EXPECT_EQ(count_region_mappings(), mappings_before + 3);

  // The descriptor is a memfd, whose file has no name anywhere.
  const PackedMemKey fields = key_fields(regions[0]->packed_key());
  char link[256] = {};
  const std::string path = "/proc/self/fd/" + std::to_string(fields.fd);
  ASSERT_GT(readlink(path.c_str(), link, sizeof(link) - 1), 0);
  EXPECT_EQ(std::string(link).rfind("/memfd:tern-region", 0), 0u) << link;
  if (DIR* dir = opendir("/dev/shm")) {
    while (dirent* entry = readdir(dir)) EXPECT_EQ(std::strstr(entry->d_name, "region"), nullptr) << entry->d_name;
    closedir(dir);
  }

  // Unpacking our own keys maps and opens nothing.
  std::vector<RemoteKey*> keys;
  for (MemRegion* region : regions) {
    RemoteKey* key = nullptr;
    ASSERT_EQ(RemoteKey::unpack(region->packed_key(), key), Status::Ok);
    keys.push_back(key);
  }
  EXPECT_EQ(count_open_fds(), fds_before + 3);
  EXPECT_EQ(count_region_mappings(), mappings_before + 3);
  for (RemoteKey* key : keys) RemoteKey::destroy(key);

  for (MemRegion* region : regions) MemRegion::unmap(region);
  EXPECT_EQ(count_open_fds(), fds_before);
  EXPECT_EQ(count_region_mappings(), mappings_before);
  MemRegion::unmap(nullptr);
  RemoteKey::destroy(nullptr);
}

}  // namespace
}  // namespace tern::engine
