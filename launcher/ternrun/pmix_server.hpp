// ternrun's side of PMIx: the server library, the job's registration, and the
// upcalls clients cause (connect, finalize, fence, abort).
//
// The PMIx library runs its own progress thread and calls the upcalls there.
// They do little: a fence is answered at once (every rank is local, so the
// library has already gathered the whole job's data), and an abort is queued
// for the main thread, which is woken through notify_fd().
#pragma once

#include <hwloc.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ternrun/job.hpp"
#include "ternrun/placement.hpp"
#include "ternrun/topology.hpp"

namespace tern::launcher {

struct AbortRequest {
  unsigned rank = 0;
  int status = 0;
  std::string message;
};

class PmixServer {
 public:
  PmixServer() = default;
  ~PmixServer();  // stop()
  PmixServer(const PmixServer&) = delete;
  PmixServer& operator=(const PmixServer&) = delete;

  // Starts the PMIx server library with its rendezvous files (and any other
  // file it makes) in `tmpdir`, and `topology` as the machine's.
  [[nodiscard]] bool start(const std::string& tmpdir, const Topology& topology, std::string& error);

  // Registers the namespace with the job-level information (sizes, local
  // peers, node and proc maps, job id, node id, host name), the information of
  // every rank (rank, local and node rank, host, locality when bound), and
  // every rank as a client of this user. Returns once PMIx has taken it all.
  [[nodiscard]] bool register_job(const Job& job, const std::vector<Location>& locations, BindTo bind_to,
                                  const Topology& topology, const std::string& tmpdir, std::string& error);

  // Adds to `env` the variables that lead `rank` to this server.
  [[nodiscard]] bool setup_fork(const Job& job, unsigned rank, std::vector<std::string>& env, std::string& error);

  // Readable (an eventfd) once an abort is waiting in take_aborts().
  [[nodiscard]] int notify_fd() const noexcept { return notify_fd_; }
  // The aborts since the last call, oldest first; clears notify_fd().
  std::vector<AbortRequest> take_aborts();

  // Shuts the library down (its thread and its files). Idempotent. The
  // library's finalize runs on a thread of its own: when it has not returned
  // within `limit_ms`, or `interrupt_fd` (the signalfd; -1: none) becomes
  // readable first, it is left behind and stop() returns false; the caller
  // then ends the process with std::_Exit, since exit handlers could wait on
  // the same library.
  bool stop(int limit_ms = 5000, int interrupt_fd = -1);

  // Called from the PMIx thread.
  void record_abort(unsigned rank, int status, const char* message);

  // What PMIx hands back to the upcalls for a client: its rank and the server.
  struct Client {
    PmixServer* server = nullptr;
    unsigned rank = 0;
  };

 private:
  bool started_ = false;
  int notify_fd_ = -1;
  std::unique_ptr<Client[]> clients_;  // fixed once registered: PMIx keeps pointers into it
  std::mutex mutex_;                   // guards aborts_
  std::vector<AbortRequest> aborts_;
};

}  // namespace tern::launcher
