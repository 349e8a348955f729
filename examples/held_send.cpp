// A held send (smart progression's critical messages) through the engine's
// C++ API. Run with two ranks on one host:
//
//   ternrun -n 2 examples/example_held_send
//
// Rank 1 computes for 200 ms before it posts its receive. Rank 0 sends it
// 4 MiB with kSendHeld: the engine copies the data into memory rank 1 maps
// and the send is complete, so rank 0 may reuse its buffer at once (it
// overwrites it here); rank 1 copies the message out when its receive
// matches. An ordinary send of that size is a rendezvous and would wait the
// 200 ms out. MPI programs get the same by naming the tag critical
// (TERN_CRITICAL_TAGS, or the tern_critical_tags hint).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "example_clock.hpp"
#include "tern/engine/job.hpp"
#include "tern/engine/worker.hpp"

namespace {

using tern::Status;
namespace engine = tern::engine;
using tern_examples::compute;
using tern_examples::seconds;

constexpr std::size_t kLength = 4u << 20;
constexpr uint64_t kDataTag = 2;
constexpr uint64_t kClockTag = 3;

int fail(const char* what, Status status) {
  std::fprintf(stderr, "held_send: %s failed: %s\n", what, tern::to_string(status));
  return 1;
}

}  // namespace

int main() {
  std::unique_ptr<engine::Job> job;
  std::string error;
  if (Status s = engine::Job::create(job, error); s != Status::Ok) {
    std::fprintf(stderr, "held_send: cannot start: %s\n", error.c_str());
    return 1;
  }
  if (job->size() != 2) {
    std::fprintf(stderr, "held_send: run me with two ranks on one host (ternrun -n 2)\n");
    return 1;
  }
  engine::Worker& worker = job->worker();
  engine::Endpoint* endpoint = nullptr;
  if (Status s = job->endpoint(1 - job->rank(), endpoint); s != Status::Ok) return fail("connecting", s);

  std::vector<unsigned char> data(kLength);
  if (job->rank() == 1) {
    if (compute(std::chrono::milliseconds(200)) < 0) return 1;  // no receive posted meanwhile
    const double posted_at = seconds();
    Status s = worker.tag_recv(data.data(), kLength, kDataTag, engine::kTagMaskAll);
    if (s != Status::Ok) return fail("the receive", s);
    for (std::size_t i = 0; i < kLength; ++i) {
      if (data[i] != static_cast<unsigned char>(i)) return fail("checking the data", Status::InvalidParam);
    }
    if ((s = worker.tag_send(endpoint, &posted_at, sizeof(posted_at), kClockTag)) != Status::Ok) {
      return fail("sending the clock", s);
    }
  } else {
    for (std::size_t i = 0; i < kLength; ++i) data[i] = static_cast<unsigned char>(i);
    const double started = seconds();
    engine::Request* request = nullptr;
    Status s = worker.tag_send_nb(endpoint, data.data(), kLength, kDataTag, request, engine::kSendHeld);
    // Ok: held (complete now). InProgress: the engine sent it the ordinary
    // way (another host, the held memory full); wait for it then.
    if (s == Status::InProgress) s = worker.wait(request);
    if (s != Status::Ok) return fail("the send", s);
    const double sent = seconds();
    std::memset(data.data(), 0, kLength);  // the buffer is ours again
    double posted_at = 0;
    s = worker.tag_recv(&posted_at, sizeof(posted_at), kClockTag, engine::kTagMaskAll);
    if (s != Status::Ok) return fail("receiving the clock", s);
    std::printf("held_send: the 4 MiB send took %.2f ms\n", (sent - started) * 1e3);
    if (sent < posted_at) {
      std::printf("held_send: the send ended %.1f ms before the receiver posted its receive\n",
                  (posted_at - sent) * 1e3);
    } else {
      std::printf("held_send: the send waited for the receiver\n");
      return 1;
    }
  }
  return 0;
}
