// A job: this process's bootstrap (PMIx under a launcher, a singleton
// otherwise) and its worker, with endpoints to other ranks made on first use
// from the addresses every rank published. What the MPI and SHMEM front ends
// start from.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tern/engine/worker.hpp"
#include "tern/runtime/bootstrap.hpp"

namespace tern::engine {

class AgentProcess;

class Job {
 public:
  // Bootstraps, creates the worker (named after the job, expecting the other
  // local ranks), publishes its address and meets the other ranks at a
  // collecting fence. On failure `error` says which step failed and why.
  [[nodiscard]] static Status create(std::unique_ptr<Job>& out, std::string& error,
                                     const WorkerParams& params = WorkerParams());
  // Destroys the worker, then leaves the job.
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  [[nodiscard]] unsigned rank() const noexcept { return bootstrap_->rank(); }
  [[nodiscard]] unsigned size() const noexcept { return bootstrap_->size(); }
  [[nodiscard]] runtime::Bootstrap& bootstrap() noexcept { return *bootstrap_; }
  [[nodiscard]] Worker& worker() noexcept { return *worker_; }

  // The endpoint to `rank` (this rank too: loopback), connected on first use
  // from the address that rank published. InvalidParam for a rank out of
  // range; the bootstrap's or connect's error otherwise.
  [[nodiscard]] Status endpoint(unsigned rank, Endpoint*& out);
  // Why the last endpoint() that failed did, naming both ranks and hosts
  // ("rank 0 (h1) cannot reach rank 1 (h2): no common transport (...)").
  [[nodiscard]] const std::string& last_error() const noexcept { return last_error_; }

  // The host name `rank` published with its address; "?" when unknown.
  [[nodiscard]] std::string host_of(unsigned rank);

  // Ends the whole job with `exit_code`; the launcher prints `message`.
  [[noreturn]] void abort(int exit_code, const char* message);

  // Told when the worker disconnects a rank that broke the protocol (sent
  // malformed messages, or garbage on a connection); `rank` is -1 when this
  // rank's own shared-memory queue was found corrupted, which cuts it off
  // from every local rank. The calls that need that rank fail from then
  // on. Without a handler the job is ended with a message naming both
  // ranks and their hosts: a rank left waiting for the other would hang.
  // A peer that is no rank of the job is only logged.
  using PeerFailureHandler = void (*)(void* arg, int rank, Status reason);
  void on_peer_failure(PeerFailureHandler handler, void* arg) noexcept {
    peer_failure_handler_ = handler;
    peer_failure_arg_ = arg;
  }
  // "rank 3 (host h2)", as messages name ranks.
  [[nodiscard]] std::string describe_rank(unsigned rank);

 private:
  Job() = default;
  static std::string name_peer(void* arg, uint64_t peer_id);
  // The rank whose published address carries `peer_id`, or -1.
  [[nodiscard]] int rank_of(uint64_t peer_id);
  static void peer_failed(void* arg, Endpoint* endpoint, Status reason);
  // At start-up: connects to every rank on this host over shm (see job.cpp).
  void attach_local_peers();
  // Jobs over several hosts: the first rank of each host starts the host's
  // progress agent and publishes its address; every rank connects to it.
  [[nodiscard]] Status start_agent();
  void attach_agent();
  [[nodiscard]] bool first_on_host(unsigned rank) const;
  static bool agent_of_peer(void* arg, uint64_t peer_id, std::vector<std::byte>& agent_address);

  std::unique_ptr<runtime::Bootstrap> bootstrap_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<AgentProcess> agent_;  // on the first rank of a host, where one runs
  bool agent_wanted_ = false;            // this job's hosts each have a progress agent
  std::vector<Endpoint*> endpoints_;  // by rank; null until first use
  std::string last_error_;
  PeerFailureHandler peer_failure_handler_ = nullptr;
  void* peer_failure_arg_ = nullptr;
};

}  // namespace tern::engine
