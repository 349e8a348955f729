// The two processes of a tern_perf run: forked by tern_perf itself, or
// started by a PMIx launcher (ternrun -n 2, Open MPI's mpirun -n 2), in which
// case the launcher's bootstrap carries the exchanges and barriers.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tern/runtime/bootstrap.hpp"
#include "tern/runtime/fork_job.hpp"
#include "tern/runtime/status.hpp"

namespace tern::engine::tools {

class Group {
 public:
  virtual ~Group() = default;
  [[nodiscard]] virtual unsigned rank() const noexcept = 0;
  [[nodiscard]] virtual unsigned size() const noexcept = 0;
  virtual void barrier() = 0;
  // Every rank's blob, by rank.
  [[nodiscard]] virtual Status allgather(std::span<const std::byte> mine,
                                         std::vector<std::vector<std::byte>>& all) = 0;
  [[nodiscard]] virtual std::string job_id() const = 0;
};

class ForkGroup final : public Group {
 public:
  explicit ForkGroup(runtime::ForkJob& job) noexcept : job_(job) {}
  [[nodiscard]] unsigned rank() const noexcept override { return job_.rank(); }
  [[nodiscard]] unsigned size() const noexcept override { return job_.size(); }
  void barrier() override { job_.barrier(); }
  [[nodiscard]] Status allgather(std::span<const std::byte> mine,
                                 std::vector<std::vector<std::byte>>& all) override {
    return job_.allgather(mine, all);
  }
  [[nodiscard]] std::string job_id() const override { return {}; }  // the worker reads TERN_JOB_ID

 private:
  runtime::ForkJob& job_;
};

class LaunchedGroup final : public Group {
 public:
  explicit LaunchedGroup(runtime::Bootstrap& bootstrap) noexcept : bootstrap_(bootstrap) {}
  [[nodiscard]] unsigned rank() const noexcept override { return bootstrap_.rank(); }
  [[nodiscard]] unsigned size() const noexcept override { return bootstrap_.size(); }
  void barrier() override { (void)bootstrap_.fence(false); }
  [[nodiscard]] Status allgather(std::span<const std::byte> mine,
                                 std::vector<std::vector<std::byte>>& all) override {
    const std::string key = "tern_perf.allgather." + std::to_string(round_++);
    Status status = bootstrap_.put(key.c_str(), mine);
    if (status == Status::Ok) status = bootstrap_.commit();
    if (status == Status::Ok) status = bootstrap_.fence(true);
    all.assign(size(), {});
    for (unsigned r = 0; r < size() && status == Status::Ok; ++r) status = bootstrap_.get(r, key.c_str(), all[r]);
    return status;
  }
  [[nodiscard]] std::string job_id() const override { return bootstrap_.job_id(); }

 private:
  runtime::Bootstrap& bootstrap_;
  unsigned round_ = 0;
};

}  // namespace tern::engine::tools
