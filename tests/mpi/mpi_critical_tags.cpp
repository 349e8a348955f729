// Critical tags (smart progression): a standard send of a critical tag to a
// rank on this host is held, so it completes before its receiver has posted
// anything, and the receiver still gets the data as it was when sent (the
// sender has overwritten its buffer by then). Pairs of ranks, 0 -> 1 and
// 2 -> 3, on one host; every rank takes part in the barriers.
//  - The hint: tern_critical_tags through MPI_Comm_set_info, returned by
//    MPI_Comm_get_info, a bad value refused with MPI_ERR_INFO_VALUE, "none"
//    turning it off, inherited by MPI_Comm_dup.
//  - Held: MPI_Isend and MPI_Send (which would otherwise wait for a receive
//    posted only after a barrier: without holding, this deadlocks),
//    persistent sends; not held: other tags, MPI_Issend, the same tags on
//    another communicator.
//  - Order: critical and ordinary messages of every protocol's size between
//    one pair arrive in sending order at MPI_ANY_TAG receives.
//  - Memory: with TERN_AGENT_MEMORY=1M (set by the test's command), two
//    sends of 512 KiB are held and the third is not.
//  - TERN_CRITICAL_TAGS=11 (also set by a command): tag 11 is held on every
//    communicator without the hint.
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "check.hpp"

namespace {

constexpr int kLarge = 1 << 20;  // rendezvous on every lane, below the device's threshold or not

// Tests `request` for up to `seconds`: whether it completed by then.
bool completes_within(MPI_Request& request, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int flag = 0;
  do {
    MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
  } while (flag == 0 && std::chrono::steady_clock::now() < until);
  return flag != 0;
}

void fill(std::vector<char>& buffer, char seed) {
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<char>(seed + static_cast<char>(i % 251));
}

bool holds(const std::vector<char>& buffer, char seed, std::size_t length) {
  for (std::size_t i = 0; i < length; ++i) {
    if (buffer[i] != static_cast<char>(seed + static_cast<char>(i % 251))) return false;
  }
  return true;
}

void check_hints(MPI_Comm comm) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "tern_critical_tags", "9-7");
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const int err = MPI_Comm_set_info(comm, info);
  int error_class = MPI_SUCCESS;
  MPI_Error_class(err, &error_class);
  CHECK(error_class == MPI_ERR_INFO_VALUE);
  MPI_Info_set(info, "tern_critical_tags", "5,7-9");
  CHECK(MPI_Comm_set_info(comm, info) == MPI_SUCCESS);
  MPI_Info_free(&info);
  MPI_Info used;
  MPI_Comm_get_info(comm, &used);
  char value[64] = {};
  int flag = 0;
  MPI_Info_get(used, "tern_critical_tags", sizeof(value) - 1, value, &flag);
  CHECK(flag == 1 && std::strcmp(value, "5,7-9") == 0);
  MPI_Info_free(&used);
}

// Sends each of `tags` with its own pattern and overwrites the buffer at once.
void sender(MPI_Comm critical, MPI_Comm other, int peer, bool env_tag_11) {
  std::vector<char> large(kLarge);
  MPI_Request request;
  // Held: complete with no receive posted (the receiver waits in the barrier).
  for (int tag : {5, 7, 9}) {
    fill(large, static_cast<char>(tag));
    MPI_Isend(large.data(), kLarge, MPI_CHAR, peer, tag, critical, &request);
    CHECK(completes_within(request, 10.0));
    std::memset(large.data(), 0, large.size());
  }
  fill(large, 8);
  MPI_Send(large.data(), kLarge, MPI_CHAR, peer, 8, critical);  // would deadlock unless held
  std::memset(large.data(), 0, large.size());
  MPI_Request persistent;
  MPI_Send_init(large.data(), kLarge, MPI_CHAR, peer, 5, critical, &persistent);
  fill(large, 55);
  MPI_Start(&persistent);
  CHECK(completes_within(persistent, 10.0));
  MPI_Request_free(&persistent);
  std::memset(large.data(), 0, large.size());
  // Not held: another tag, a synchronous send, the same tag elsewhere.
  std::vector<char> kept(kLarge);
  fill(kept, 6);
  MPI_Request ordinary[3];
  MPI_Isend(kept.data(), kLarge, MPI_CHAR, peer, 6, critical, &ordinary[0]);
  MPI_Issend(kept.data(), kLarge, MPI_CHAR, peer, 7, critical, &ordinary[1]);
  MPI_Isend(kept.data(), kLarge, MPI_CHAR, peer, 7, other, &ordinary[2]);
  for (MPI_Request& r : ordinary) CHECK(!completes_within(r, 0.05));
  // TERN_CRITICAL_TAGS: tag 11 held on a communicator without the hint.
  MPI_Request env_request;
  fill(large, 11);
  MPI_Isend(large.data(), kLarge, MPI_CHAR, peer, 11, other, &env_request);
  CHECK(completes_within(env_request, env_tag_11 ? 10.0 : 0.05) == env_tag_11);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Waitall(3, ordinary, MPI_STATUSES_IGNORE);
  if (!env_tag_11) MPI_Wait(&env_request, MPI_STATUS_IGNORE);
}

void receiver(MPI_Comm critical, MPI_Comm other, int peer) {
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<char> large(kLarge);
  struct Expected {
    MPI_Comm comm;
    int tag;
    char seed;
  };
  for (const Expected& e : {Expected{critical, 5, 5}, Expected{critical, 7, 7}, Expected{critical, 9, 9},
                            Expected{critical, 8, 8}, Expected{critical, 5, 55}, Expected{critical, 6, 6},
                            Expected{critical, 7, 6}, Expected{other, 7, 6}, Expected{other, 11, 11}}) {
    std::memset(large.data(), 0, large.size());
    MPI_Recv(large.data(), kLarge, MPI_CHAR, peer, e.tag, e.comm, MPI_STATUS_IGNORE);
    CHECK(holds(large, e.seed, kLarge));
  }
}

// Critical and ordinary messages of every protocol's size, in one order.
constexpr int kOrderMessages = 24;
int order_length(int i) {
  constexpr int kLengths[] = {8, 1024, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 100};
  return kLengths[i % 8];
}
int order_tag(int i) { return (i / 2) % 2 == 0 ? 7 : 6; }  // two critical, two ordinary, ...

void order_sender(MPI_Comm critical, int peer) {
  std::vector<MPI_Request> requests(kOrderMessages);
  std::vector<std::vector<char>> buffers(kOrderMessages);
  for (int i = 0; i < kOrderMessages; ++i) {
    buffers[i].resize(static_cast<std::size_t>(order_length(i)));
    fill(buffers[i], static_cast<char>(i));
    MPI_Isend(buffers[i].data(), order_length(i), MPI_CHAR, peer, order_tag(i), critical, &requests[i]);
  }
  MPI_Waitall(kOrderMessages, requests.data(), MPI_STATUSES_IGNORE);
}

void order_receiver(MPI_Comm critical, int peer) {
  std::vector<char> buffer(4 << 20);
  for (int i = 0; i < kOrderMessages; ++i) {
    MPI_Status status;
    MPI_Recv(buffer.data(), static_cast<int>(buffer.size()), MPI_CHAR, peer, MPI_ANY_TAG, critical, &status);
    int count = -1;
    MPI_Get_count(&status, MPI_CHAR, &count);
    CHECK(status.MPI_TAG == order_tag(i) && count == order_length(i));
    CHECK(holds(buffer, static_cast<char>(i), static_cast<std::size_t>(std::min(count, order_length(i)))));
  }
}

// With TERN_AGENT_MEMORY=1M: two 512 KiB sends are held, the third waits.
void memory_sender(MPI_Comm critical, int peer) {
  std::vector<std::vector<char>> buffers(3, std::vector<char>(512 << 10, 'm'));
  MPI_Request requests[3];
  for (int i = 0; i < 3; ++i) MPI_Isend(buffers[i].data(), 512 << 10, MPI_CHAR, peer, 9, critical, &requests[i]);
  CHECK(completes_within(requests[0], 10.0));
  CHECK(completes_within(requests[1], 10.0));
  CHECK(!completes_within(requests[2], 0.05));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Wait(&requests[2], MPI_STATUS_IGNORE);
}

void memory_receiver(MPI_Comm critical, int peer) {
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<char> buffer(512 << 10);
  for (int i = 0; i < 3; ++i) {
    MPI_Recv(buffer.data(), 512 << 10, MPI_CHAR, peer, 9, critical, MPI_STATUS_IGNORE);
    CHECK(buffer.front() == 'm' && buffer.back() == 'm');
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* env_tags = std::getenv("TERN_CRITICAL_TAGS");
  const bool env_tag_11 = env_tags != nullptr && std::string(env_tags) == "11";
  const char* memory = std::getenv("TERN_AGENT_MEMORY");
  const bool small_memory = memory != nullptr && std::string(memory) == "1M";

  MPI_Comm critical;
  MPI_Comm_dup(MPI_COMM_WORLD, &critical);
  check_hints(critical);
  MPI_Comm other;  // without the hint
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
  MPI_Comm inherited;  // a duplicate keeps its parent's hints
  MPI_Comm_dup(critical, &inherited);

  const bool paired = rank + 1 < size || rank % 2 == 1;
  const bool sends = paired && rank % 2 == 0;
  const int peer = rank % 2 == 0 ? rank + 1 : rank - 1;
  if (small_memory) {
    if (!paired) MPI_Barrier(MPI_COMM_WORLD);
    else if (sends) memory_sender(inherited, peer);
    else memory_receiver(inherited, peer);
  } else {
    if (!paired) MPI_Barrier(MPI_COMM_WORLD);
    else if (sends) sender(inherited, other, peer, env_tag_11);
    else receiver(inherited, other, peer);
    if (paired && sends) order_sender(critical, peer);
    if (paired && !sends) order_receiver(critical, peer);
  }

  // "none" turns the hint off: tag 7 waits for its receiver again.
  MPI_Info none;
  MPI_Info_create(&none);
  MPI_Info_set(none, "tern_critical_tags", "none");
  MPI_Comm_set_info(critical, none);
  MPI_Info_free(&none);
  if (paired && sends) {
    std::vector<char> large(kLarge, 'n');
    MPI_Request request;
    MPI_Isend(large.data(), kLarge, MPI_CHAR, peer, 7, critical, &request);
    CHECK(!completes_within(request, 0.05));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    if (paired) {
      std::vector<char> large(kLarge);
      MPI_Recv(large.data(), kLarge, MPI_CHAR, peer, 7, critical, MPI_STATUS_IGNORE);
      CHECK(large.front() == 'n' && large.back() == 'n');
    }
  }
  MPI_Comm_free(&inherited);
  MPI_Comm_free(&other);
  MPI_Comm_free(&critical);
  const int rc = tern::mpi_test::conclude("mpi_critical_tags");
  MPI_Finalize();
  return rc;
}
