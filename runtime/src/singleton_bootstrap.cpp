// A job of one process: what a program started without a launcher runs as.
// Keys live in a map, so code written for many ranks (put, commit, fence,
// get of its own rank) runs unchanged.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>

#include "tern/runtime/bootstrap.hpp"

namespace tern::runtime {
namespace {

class SingletonBootstrap final : public Bootstrap {
 public:
  explicit SingletonBootstrap(std::string job_id) : job_id_(std::move(job_id)) {}

  unsigned rank() const noexcept override { return 0; }
  unsigned size() const noexcept override { return 1; }
  unsigned local_rank() const noexcept override { return 0; }
  unsigned local_size() const noexcept override { return 1; }
  unsigned node_id() const noexcept override { return 0; }
  const std::vector<unsigned>& local_peers() const noexcept override { return peers_; }
  const std::string& job_id() const noexcept override { return job_id_; }
  const char* name() const noexcept override { return "singleton"; }
  const std::string& last_error() const noexcept override { return last_error_; }

  Status put(const char* key, std::span<const std::byte> value) override {
    if (Status s = check_usable(); s != Status::Ok) return s;
    if (Status s = check_key(key); s != Status::Ok) return s;
    values_[key].assign(value.begin(), value.end());
    return Status::Ok;
  }

  Status commit() override { return check_usable(); }

  Status fence(bool /*collect*/) override { return check_usable(); }

  Status get(unsigned rank, const char* key, std::vector<std::byte>& value) override {
    if (Status s = check_usable(); s != Status::Ok) return s;
    if (Status s = check_key(key); s != Status::Ok) return s;
    if (rank != 0) {
      last_error_ = "get: rank " + std::to_string(rank) + " out of range for a job of size 1";
      return Status::InvalidParam;
    }
    auto it = values_.find(key);
    if (it == values_.end()) return Status::NotFound;
    value = it->second;
    return Status::Ok;
  }

  [[noreturn]] void abort(int exit_code, const char* message) override {
    std::fprintf(stderr, "tern: abort (exit code %d): %s\n", exit_code, message != nullptr ? message : "");
    std::fflush(stderr);
    _exit(exit_code);
  }

  Status finalize() override {
    finalized_ = true;
    values_.clear();
    return Status::Ok;
  }

 private:
  Status check_usable() {
    if (!finalized_) return Status::Ok;
    last_error_ = "bootstrap already finalized";
    return Status::InvalidParam;
  }

  Status check_key(const char* key) {
    if (!is_valid_bootstrap_key(key)) {
      last_error_ = "invalid key: empty, longer than 511 characters or starting with the reserved 'pmix'";
      return Status::InvalidParam;
    }
    return Status::Ok;
  }

  std::string job_id_;
  std::string last_error_;
  std::vector<unsigned> peers_{0};
  std::map<std::string, std::vector<std::byte>, std::less<>> values_;
  bool finalized_ = false;
};

}  // namespace

Status create_singleton_bootstrap(std::unique_ptr<Bootstrap>& out, std::string job_id) {
  if (job_id.empty()) {
    const char* from_env = std::getenv("TERN_JOB_ID");
    job_id = (from_env != nullptr && *from_env != '\0') ? from_env : "s" + std::to_string(getpid());
  }
  out.reset(new (std::nothrow) SingletonBootstrap(sanitize_job_id(job_id)));
  return out ? Status::Ok : Status::NoMemory;
}

}  // namespace tern::runtime
