// The fixture of the tests where one worker talks to itself (self
// transport), in whatever progress mode TERN_PROGRESS names.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "tern/engine/worker.hpp"

namespace tern::engine {

class SelfWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WorkerParams params;
    params.job_id = "sw" + std::to_string(getpid());
    params.config.transports = "self";
    ASSERT_EQ(Worker::create(params, worker_), Status::Ok);
    ASSERT_EQ(worker_->connect(worker_->address(), ep_), Status::Ok);
  }

  [[nodiscard]] bool threaded() const { return worker_->progress_mode() != runtime::ProgressMode::Caller; }

  // Until `ready()` holds, at most 30 s: by progressing here, except with a
  // progress thread when `thread_alone_` says the thread must do it alone.
  template <typename Ready>
  void progress_until(Ready&& ready) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!ready()) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "timed out";
      if (thread_alone_ && threaded()) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      } else {
        worker_->progress();
      }
    }
  }

  bool thread_alone_ = false;
  std::unique_ptr<Worker> worker_;
  Endpoint* ep_ = nullptr;
};

}  // namespace tern::engine
