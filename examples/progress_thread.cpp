// A progress thread through the engine's C++ API: communication moves while
// the program computes. Run with two ranks:
//
//   ternrun -n 2 examples/example_progress_thread
//
// Rank 1 posts a 4 MiB receive and computes for 200 ms without calling the
// engine; rank 0 sends it the 4 MiB. Sent by rendezvous, the message needs
// rank 1 to match it and fetch the data. Progressed only by its caller (the
// default, TERN_PROGRESS=caller) rank 1 would do that once it calls the
// engine again, and rank 0's send would wait out the whole computation; with
// a progress thread that sleeps on the worker's wakeup fd (thread-blocking)
// the thread does it at once, so the send ends long before rank 1 stops
// computing.
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
constexpr uint64_t kReadyTag = 1;
constexpr uint64_t kDataTag = 2;
constexpr uint64_t kClockTag = 3;

int fail(const char* what, Status status) {
  std::fprintf(stderr, "progress_thread: %s failed: %s\n", what, tern::to_string(status));
  return 1;
}

}  // namespace

int main() {
  engine::WorkerParams params;
  // What TERN_PROGRESS=thread-blocking would ask for, set here in code. The
  // worker starts the thread, becomes thread-safe (the thread and this one
  // share it) and stops the thread when it is destroyed.
  params.progress = tern::runtime::ProgressMode::ThreadBlocking;
  // Between ranks of one host the shared-memory tag device can also fill a
  // large posted receive without the receiver; it is off here so that what
  // the example shows is the thread's doing.
  params.config.tm_offload = tern::runtime::Switch::Off;
  std::unique_ptr<engine::Job> job;
  std::string error;
  if (Status s = engine::Job::create(job, error, params); s != Status::Ok) {
    std::fprintf(stderr, "progress_thread: cannot start: %s\n", error.c_str());
    return 1;
  }
  if (job->size() != 2) {
    std::fprintf(stderr, "progress_thread: run me with two ranks (ternrun -n 2)\n");
    return 1;
  }
  engine::Worker& worker = job->worker();
  const unsigned peer = 1 - job->rank();
  engine::Endpoint* endpoint = nullptr;
  if (Status s = job->endpoint(peer, endpoint); s != Status::Ok) return fail("connecting", s);

  std::vector<unsigned char> data(kLength);
  uint64_t word = 0;
  if (job->rank() == 1) {
    engine::Request* receive = nullptr;
    Status s = worker.tag_recv_nb(data.data(), kLength, kDataTag, engine::kTagMaskAll, receive);
    if (s != Status::InProgress) return fail("posting the receive", s);
    if ((s = worker.tag_send(endpoint, &word, sizeof(word), kReadyTag)) != Status::Ok) return fail("ready", s);
    if (compute(std::chrono::milliseconds(200)) < 0) return 1;  // only the progress thread serves rank 0 meanwhile
    const double computed_until = seconds();
    if ((s = worker.wait(receive)) != Status::Ok) return fail("the receive", s);
    for (std::size_t i = 0; i < kLength; ++i) {
      if (data[i] != static_cast<unsigned char>(i)) return fail("checking the data", Status::InvalidParam);
    }
    s = worker.tag_send(endpoint, &computed_until, sizeof(computed_until), kClockTag);
    if (s != Status::Ok) return fail("sending the clock", s);
  } else {
    for (std::size_t i = 0; i < kLength; ++i) data[i] = static_cast<unsigned char>(i);
    Status s = worker.tag_recv(&word, sizeof(word), kReadyTag, engine::kTagMaskAll);
    if (s != Status::Ok) return fail("ready", s);
    const double started = seconds();
    if ((s = worker.tag_send(endpoint, data.data(), kLength, kDataTag)) != Status::Ok) return fail("the send", s);
    const double sent = seconds();
    double computed_until = 0;
    s = worker.tag_recv(&computed_until, sizeof(computed_until), kClockTag, engine::kTagMaskAll);
    if (s != Status::Ok) return fail("receiving the clock", s);
    std::printf("progress_thread: progress mode %s; the 4 MiB send took %.1f ms\n",
                tern::runtime::to_string(worker.progress_mode()), (sent - started) * 1e3);
    if (sent < computed_until) {
      std::printf("progress_thread: the send ended while the receiver was computing (%.1f ms before it stopped)\n",
                  (computed_until - sent) * 1e3);
    } else {
      std::printf("progress_thread: the send waited for the receiver to stop computing\n");
      return 1;
    }
  }
  // Destroying the job destroys the worker, which stops and joins the thread.
  return 0;
}
