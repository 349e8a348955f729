// What a bootstrap under a launcher (PMIx or PMI) learns about its job at
// start-up and then answers from memory; the wire protocols stay in the
// classes built on it.
#pragma once

#include <string>
#include <vector>

#include "tern/runtime/bootstrap.hpp"

namespace tern::runtime {

class LaunchedBootstrap : public Bootstrap {
 public:
  unsigned rank() const noexcept override { return rank_; }
  unsigned size() const noexcept override { return size_; }
  unsigned local_rank() const noexcept override { return local_rank_; }
  unsigned local_size() const noexcept override { return static_cast<unsigned>(local_peers_.size()); }
  unsigned node_id() const noexcept override { return node_id_; }
  const std::vector<unsigned>& local_peers() const noexcept override { return local_peers_; }
  const std::string& job_id() const noexcept override { return job_id_; }
  const std::string& last_error() const noexcept override { return last_error_; }

 protected:
  // InvalidParam (and why, in last_error) once the bootstrap was finalized.
  Status check_usable(const char* what) {
    if (!finalized_) return Status::Ok;
    last_error_ = std::string(what) + ": bootstrap already finalized";
    return Status::InvalidParam;
  }

  unsigned rank_ = 0;
  unsigned size_ = 1;
  unsigned local_rank_ = 0;
  unsigned node_id_ = 0;
  std::vector<unsigned> local_peers_;
  std::string job_id_;
  std::string last_error_;
  bool initialized_ = false;
  bool finalized_ = false;
};

}  // namespace tern::runtime
