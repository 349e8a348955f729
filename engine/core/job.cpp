// Job start-up: bootstrap, worker, address exchange; endpoints on demand.
#include "tern/engine/job.hpp"

#include <cstdlib>

#include "tern/runtime/log.hpp"

namespace tern::engine {
namespace {

// The key every rank publishes its packed worker address under.
constexpr const char* kAddressKey = "tern.worker.address";

}  // namespace

Status Job::create(std::unique_ptr<Job>& out, std::string& error, const WorkerParams& params) {
  std::unique_ptr<Job> job(new Job());
  if (Status s = runtime::create_bootstrap(job->bootstrap_, error); s != Status::Ok) return s;
  runtime::Bootstrap& boot = *job->bootstrap_;

  WorkerParams worker_params = params;
  // Every rank must name its segments after the same job, also under
  // launchers that do not set TERN_JOB_ID.
  worker_params.job_id = boot.job_id();
  worker_params.local_peers = boot.local_size() > 0 ? boot.local_size() - 1 : 0;
  if (Status s = Worker::create(worker_params, job->worker_); s != Status::Ok) {
    error = std::string("cannot create the engine worker: ") + to_string(s);
    return s;
  }
  const auto address = job->worker_->address();
  Status s = boot.put(kAddressKey, address);
  if (s == Status::Ok) s = boot.commit();
  if (s == Status::Ok) s = boot.fence(true);
  if (s != Status::Ok) {
    error = std::string("cannot exchange worker addresses through ") + boot.name() + ": " + boot.last_error();
    return s;
  }
  job->endpoints_.assign(boot.size(), nullptr);
  out = std::move(job);
  return Status::Ok;
}

Job::~Job() {
  worker_.reset();
  if (bootstrap_) (void)bootstrap_->finalize();
}

Status Job::endpoint(unsigned rank, Endpoint*& out) {
  out = nullptr;
  if (rank >= endpoints_.size()) return Status::InvalidParam;
  if (endpoints_[rank] != nullptr) {
    out = endpoints_[rank];
    return Status::Ok;
  }
  std::vector<std::byte> address;
  if (Status s = bootstrap_->get(rank, kAddressKey, address); s != Status::Ok) {
    TERN_LOG(Error, "job: no address for rank %u: %s", rank, bootstrap_->last_error().c_str());
    return s;
  }
  if (Status s = worker_->connect(address, endpoints_[rank]); s != Status::Ok) return s;
  out = endpoints_[rank];
  return Status::Ok;
}

void Job::abort(int exit_code, const char* message) {
  // No launcher sweeps up after a singleton; and under one, the sooner the
  // better.
  if (worker_) worker_->release_shared_names();
  bootstrap_->abort(exit_code, message);
  std::_Exit(exit_code);  // not reached: the bootstrap's abort does not return
}

}  // namespace tern::engine
