// Delayed submission through the engine's C++ API: several threads send and
// receive on one worker without taking its lock. Run with two ranks:
//
//   ternrun -n 2 examples/example_delayed_submission
//
// The worker has a polling progress thread and delayed submission on (what
// TERN_PROGRESS=thread gives an MPI_THREAD_MULTIPLE program). Each of four
// threads on rank 0 streams numbered messages on its own tag; the thread of
// the same number on rank 1 receives them. A call queues the operation for
// the progress thread and returns InProgress; the thread dispatches the
// queue in order, so each thread's messages arrive in the order it sent
// them. Waits read the request's status and leave progress to the thread.
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tern/engine/job.hpp"
#include "tern/engine/worker.hpp"

namespace {

using tern::Status;
namespace engine = tern::engine;

constexpr int kThreads = 4;
constexpr int kMessages = 2048;  // whole windows
constexpr int kWindow = 32;

struct Counts {
  std::atomic<int> queued{0};     // calls that returned InProgress
  std::atomic<int> immediate{0};  // calls that went the locked way and ended at once
  std::atomic<int> errors{0};
};

void note(Counts& counts, Status status) {
  if (status == Status::InProgress) {
    ++counts.queued;
  } else if (status == Status::Ok) {
    ++counts.immediate;
  } else {
    std::fprintf(stderr, "delayed_submission: a call failed: %s\n", tern::to_string(status));
    ++counts.errors;
  }
}

// Windows of sends of the numbers first..first+kWindow-1, then their waits.
void send_numbers(engine::Worker& worker, engine::Endpoint* peer, uint64_t tag, Counts& counts) {
  std::vector<uint64_t> numbers(kWindow);
  std::vector<engine::Request*> requests(kWindow);
  for (int first = 0; first < kMessages; first += kWindow) {
    for (int k = 0; k < kWindow; ++k) {
      numbers[k] = static_cast<uint64_t>(first + k);
      requests[k] = nullptr;
      note(counts, worker.tag_send_nb(peer, &numbers[k], sizeof(uint64_t), tag, requests[k]));
    }
    for (engine::Request* request : requests) {
      if (request != nullptr && worker.wait(request) != Status::Ok) ++counts.errors;
    }
  }
}

// The same windows of receives; each number must be the next one.
void receive_numbers(engine::Worker& worker, uint64_t tag, Counts& counts, std::atomic<int>& out_of_order) {
  std::vector<uint64_t> numbers(kWindow);
  std::vector<engine::Request*> requests(kWindow);
  for (int first = 0; first < kMessages; first += kWindow) {
    for (int k = 0; k < kWindow; ++k) {
      requests[k] = nullptr;
      note(counts, worker.tag_recv_nb(&numbers[k], sizeof(uint64_t), tag, engine::kTagMaskAll, requests[k]));
    }
    for (int k = 0; k < kWindow; ++k) {
      if (requests[k] != nullptr && worker.wait(requests[k]) != Status::Ok) ++counts.errors;
      if (numbers[k] != static_cast<uint64_t>(first + k)) ++out_of_order;
    }
  }
}

}  // namespace

int main() {
  engine::WorkerParams params;
  // What TERN_PROGRESS=thread and TERN_DELAYED_SUBMISSION=on ask for, in code.
  params.progress = tern::runtime::ProgressMode::Thread;
  params.config.delayed_submission = tern::runtime::Switch::On;
  std::unique_ptr<engine::Job> job;
  std::string error;
  if (Status s = engine::Job::create(job, error, params); s != Status::Ok) {
    std::fprintf(stderr, "delayed_submission: cannot start: %s\n", error.c_str());
    return 1;
  }
  if (job->size() != 2) {
    std::fprintf(stderr, "delayed_submission: run me with two ranks (ternrun -n 2)\n");
    return 1;
  }
  engine::Worker& worker = job->worker();
  if (!worker.delays_submissions()) {
    std::fprintf(stderr, "delayed_submission: the worker did not turn delayed submission on\n");
    return 1;
  }
  engine::Endpoint* peer = nullptr;
  if (Status s = job->endpoint(1 - job->rank(), peer); s != Status::Ok) {
    std::fprintf(stderr, "delayed_submission: cannot connect: %s\n", tern::to_string(s));
    return 1;
  }
  Counts counts;
  std::atomic<int> out_of_order{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    const uint64_t tag = 100 + static_cast<uint64_t>(t);
    if (job->rank() == 0) {
      threads.emplace_back([&, tag] { send_numbers(worker, peer, tag, counts); });
    } else {
      threads.emplace_back([&, tag] { receive_numbers(worker, tag, counts, out_of_order); });
    }
  }
  for (auto& thread : threads) thread.join();
  if (counts.errors != 0 || out_of_order != 0) {
    std::printf("delayed_submission: rank %u: %d errors, %d messages out of order\n", job->rank(),
                counts.errors.load(), out_of_order.load());
    return 1;
  }
  std::printf("delayed_submission: rank %u: %d threads %s %d messages in order; %d calls returned InProgress, %d "
              "ended at once (the queue was full, and the call took the lock)\n",
              job->rank(), kThreads, job->rank() == 0 ? "sent" : "received", kThreads * kMessages,
              counts.queued.load(), counts.immediate.load());
  return 0;
}
