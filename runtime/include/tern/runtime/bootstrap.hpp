// How a process learns its place in a job (rank, size, which ranks share its
// node) and exchanges small blobs (worker addresses) with the other ranks.
//
// Started by a PMIx server (ternrun, Open MPI's mpirun, prterun, srun
// --mpi=pmix), a process is a PMIx client; started by a PMI-2 or PMI-1
// server (MPICH's mpirun, srun --mpi=pmi2), a PMI client; started on its own
// it is a singleton job of size 1, as `./a.out` is under Open MPI or MPICH.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tern/runtime/config.hpp"
#include "tern/runtime/status.hpp"

namespace tern::runtime {

// One thread at a time: callers that share a bootstrap between threads lock
// around it (it is used at start-up and for the first contact with a peer,
// never on a communication fast path).
class Bootstrap {
 public:
  virtual ~Bootstrap() = default;

  // This process's rank in the job, 0 .. size() - 1.
  [[nodiscard]] virtual unsigned rank() const noexcept = 0;
  // Number of ranks in the job.
  [[nodiscard]] virtual unsigned size() const noexcept = 0;
  // This process's index among the ranks of its node, 0 .. local_size() - 1.
  [[nodiscard]] virtual unsigned local_rank() const noexcept = 0;
  // Number of ranks of this job on this node (this one included).
  [[nodiscard]] virtual unsigned local_size() const noexcept = 0;
  // The node this process runs on, as the launcher numbers nodes (0 when it does not say).
  [[nodiscard]] virtual unsigned node_id() const noexcept = 0;
  // Ranks on this node (this one included), ascending.
  [[nodiscard]] virtual const std::vector<unsigned>& local_peers() const noexcept = 0;
  // Names this job's shared resources (letters, digits, '-', '_' only); the
  // same in every rank of the job. TERN_JOB_ID wins when set, so that the
  // launcher's clean-up after a crash finds what the ranks created.
  [[nodiscard]] virtual const std::string& job_id() const noexcept = 0;
  // "pmix", "pmi2", "pmi1" or "singleton".
  [[nodiscard]] virtual const char* name() const noexcept = 0;
  // Why the last call that failed did, naming the PMIx call and its status
  // string (the PMI command and the server's answer) where there was one;
  // empty before any failure.
  [[nodiscard]] virtual const std::string& last_error() const noexcept = 0;

  // Publishes `value` under `key` for every rank of the job; visible to
  // others after commit() and a fence. `key`: at most 511 characters, not
  // starting with "pmix" (reserved by PMIx). The bytes are copied.
  [[nodiscard]] virtual Status put(const char* key, std::span<const std::byte> value) = 0;
  // Sends what was put since the last commit to the local server.
  [[nodiscard]] virtual Status commit() = 0;
  // Barrier over the job; with `collect`, data put and committed before
  // becomes gettable without a server round trip. Without it, a later get()
  // of a peer's key asks the server (which fetches from the peer's node), so
  // a job only pays for the peers it talks to.
  [[nodiscard]] virtual Status fence(bool collect) = 0;
  // Fetches what `rank` put under `key` into `value` (replaced). NotFound
  // when that rank did not publish the key; after a fence without collect
  // the server goes looking for it first, and some servers answer TimedOut
  // (after a few seconds) instead. InvalidParam for a rank out of range.
  // Values that are not byte objects (a server's string, a number) come
  // back as their bytes: a string without its terminating zero, a number in
  // host byte order.
  [[nodiscard]] virtual Status get(unsigned rank, const char* key, std::vector<std::byte>& value) = 0;
  // Ends the whole job: the launcher is told (`message` is what it prints)
  // and kills the other ranks; this process exits with `exit_code`.
  [[noreturn]] virtual void abort(int exit_code, const char* message) = 0;
  // Leaves the job. Further calls except the accessors fail; calling it
  // twice is harmless. The destructor finalizes if this was not called.
  [[nodiscard]] virtual Status finalize() = 0;
};

struct BootstrapOptions {
  BootstrapMode mode = BootstrapMode::Auto;
  // PMIx_Init (each answer of a PMI server at start-up) taking longer than
  // this fails with TimedOut; 0: no limit.
  unsigned init_timeout_seconds = kDefaultBootstrapTimeout;
};

// Creates the bootstrap TERN_BOOTSTRAP asks for (auto by default). auto:
// PMIx when the environment shows a PMIx server started this process
// (PMIX_NAMESPACE, PMIX_RANK or a PMIX_SERVER_URI* variable); else PMI
// (PMI-2, or PMI-1 where the server declines it) when it shows a PMI server
// (PMI_FD); else, when it shows a launcher Tern cannot speak to
// (unsupported_launcher), Unreachable with that message; a singleton only
// with no launcher in sight. If the environment says PMIx or PMI but the
// server does not answer as it should, that is an error, not a silent
// singleton: N ranks that each think they are alone would run the job N
// times. On failure `error` names the PMIx call and its status string (the
// PMI command and the answer, or the bad TERN_* value) and `out` is left
// empty.
//
// PMIx_Init waits forever for a server that accepts nothing (a stale
// PMIX_SERVER_URI pointing at a dead host), so it runs on a helper thread and
// is given up on after TERN_BOOTSTRAP_TIMEOUT seconds: TimedOut, with the
// URI in the message. The helper thread stays behind, stuck in libpmix; the
// process can only report the error and exit.
[[nodiscard]] Status create_bootstrap(std::unique_ptr<Bootstrap>& out, std::string& error);
[[nodiscard]] Status create_bootstrap(const BootstrapOptions& options, std::unique_ptr<Bootstrap>& out,
                                      std::string& error);

// A job of size 1 whose put/get go to a map in this process; fence is a
// no-op. `job_id`: empty for TERN_JOB_ID, else "s<pid>".
[[nodiscard]] Status create_singleton_bootstrap(std::unique_ptr<Bootstrap>& out, std::string job_id = {});

// Whether `key` may be put and got: not empty, at most 511 characters, not
// starting with "pmix" (reserved by PMIx).
[[nodiscard]] bool is_valid_bootstrap_key(const char* key) noexcept;

// True when the environment shows that a PMIx server started this process.
[[nodiscard]] bool pmix_environment_present() noexcept;

// True when the environment shows that a PMI-1/PMI-2 server started this
// process and handed it a connected socket (PMI_FD).
[[nodiscard]] bool pmi_environment_present() noexcept;

// When the environment shows a launcher but neither a PMIx server nor a PMI
// socket (PMI_PORT alone, PMI_RANK without PMI_FD, srun's SLURM_STEP_ID with
// more than one task, OMPI_COMM_WORLD_SIZE > 1, ...): a message naming what
// was seen and the commands that work. Empty otherwise.
[[nodiscard]] std::string unsupported_launcher();

// `raw` with every character other than letters, digits, '-' and '_'
// replaced by '_'; too long a name is shortened and given a hash of the
// whole, because segment and socket names built from it have length limits.
[[nodiscard]] std::string sanitize_job_id(std::string_view raw);

}  // namespace tern::runtime
