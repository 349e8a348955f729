// ternrun: starts the ranks of a job on this machine and serves them PMIx.
//
// Order matters here: the signals ternrun watches are blocked before the PMIx
// library starts its thread (so they all arrive at the signalfd of the main
// thread), every rank is registered with PMIx before it is forked, and the
// cleanup (PMIx files, shared memory) runs after the last rank is gone.
#include <fcntl.h>
#include <pmix.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ternrun/cleanup.hpp"
#include "ternrun/io_forward.hpp"
#include "ternrun/job.hpp"
#include "ternrun/options.hpp"
#include "ternrun/placement.hpp"
#include "ternrun/pmix_server.hpp"
#include "ternrun/spawn.hpp"
#include "ternrun/supervisor.hpp"
#include "ternrun/topology.hpp"

extern char** environ;

namespace tern::launcher {
namespace {

// Exit codes of ternrun's own failures (a rank's failure passes its code on).
constexpr int kExitSetupFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoProgram = 127;

void say(const std::string& text) { std::fprintf(stderr, "ternrun: %s\n", text.c_str()); }

// A pipe made now could otherwise become fd 0, 1 or 2 of ternrun, and the
// dup2 calls that give it to a rank would go wrong.
void ensure_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      int null_fd = open("/dev/null", O_RDWR);
      if (null_fd >= 0 && null_fd != fd) {
        dup2(null_fd, fd);
        close(null_fd);
      }
    }
  }
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

struct Pipe {
  int read_fd = -1;
  int write_fd = -1;
  bool open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read_fd = fds[0];
    write_fd = fds[1];
    return true;
  }
};

int run(int argc, char** argv) {
  ensure_standard_fds();
  Options options;
  ParseResult parsed = parse_options(argc, argv, options);
  switch (parsed.outcome) {
    case ParseOutcome::Help: print_usage(stdout, "ternrun"); return 0;
    case ParseOutcome::Version: std::printf("%s, PMIx %s\n", version_string(), PMIx_Get_version()); return 0;
    case ParseOutcome::Error: say(parsed.error + " (see --help)"); return kExitUsage;
    case ParseOutcome::Run: break;
  }

  std::string error;
  std::string program;
  if (!resolve_program(options.command.front(), program, error)) {
    say(error);
    return kExitNoProgram;
  }

  Topology topology;
  if (!topology.load(error)) {
    say(error);
    return kExitSetupFailed;
  }
  Job job;
  job.size = options.ranks;
  job.oversubscribed = options.ranks > topology.cores();
  job.transparent_hugepages = kernel_offers_transparent_hugepages();
  if (job.oversubscribed && !options.oversubscribe) {
    say(std::to_string(options.ranks) + " ranks requested but this machine has " + std::to_string(topology.cores()) +
        " cores: add --oversubscribe to run more ranks than cores");
    return kExitSetupFailed;
  }
  BindTo bind_to = options.bind_to;
  if (job.oversubscribed && bind_to != BindTo::None) {
    // Ranks sharing cores must be free to move between them.
    if (options.bind_to_set) say("more ranks than cores: ranks are not bound");
    bind_to = BindTo::None;
  }
  std::vector<Location> locations = map_ranks(job.size, topology.numa_of_core(), options.map_by);

  const std::string secret = random_hex(16);
  if (secret.empty()) {
    say(std::string("cannot draw the job's secret (getrandom): ") + std::strerror(errno));
    return kExitSetupFailed;
  }
  job.nspace = make_namespace(static_cast<long>(getpid()), secret);
  job.id = make_job_id(static_cast<long>(getpid()), std::random_device{}());
  job.hostname = host_name();

  std::vector<std::string> warnings;
  const std::vector<std::string> base_env = rank_environment(environ, options, job, warnings);
  for (const std::string& warning : warnings) say("warning: " + warning);
  // A core of its own for each rank's progress thread where one is spare
  // (used only by ranks that start one: TERN_PROGRESS); the user's
  // TERN_PROGRESS_CPUS, if any, stands.
  std::vector<int> progress_core(job.size, -1);
  const std::string* user_progress_cpus = nullptr;
  for (const std::string& variable : base_env) {
    if (variable.starts_with("TERN_PROGRESS_CPUS=")) user_progress_cpus = &variable;
  }
  if (user_progress_cpus == nullptr) {
    progress_core = progress_cores(locations, topology.numa_of_core(), bind_to == BindTo::Core);
  }

  // Blocked in every thread, read from a signalfd by the main loop; ranks get
  // the original mask back.
  sigset_t watched;
  sigemptyset(&watched);
  for (int signal_number : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2}) sigaddset(&watched, signal_number);
  sigset_t original_mask;
  pthread_sigmask(SIG_BLOCK, &watched, &original_mask);
  signal(SIGPIPE, SIG_IGN);  // a closed stdout must not kill ternrun before it cleans up
  int signal_fd = signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signal_fd < 0) {
    say(std::string("signalfd failed: ") + std::strerror(errno));
    return kExitSetupFailed;
  }

  TempDir tmpdir;
  if (!tmpdir.create(error)) {
    say(error);
    return kExitSetupFailed;
  }
  if (!start_sweeper(tmpdir.path(), job.id, error)) say("warning: " + error);
  PmixServer server;
  if (!server.start(tmpdir.path(), topology, error) ||
      !server.register_job(job, locations, bind_to, topology, tmpdir.path(), error)) {
    say(error);
    return kExitSetupFailed;
  }

  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  // Only rank 0 reads ternrun's stdin, as under mpirun. A terminal is not
  // handed on: the ranks are not in the terminal's foreground group, so a read
  // would stop the rank (SIGTTIN) instead of reading.
  int rank0_stdin = isatty(STDIN_FILENO) ? null_fd : STDIN_FILENO;

  adopt_orphans();
  Supervisor supervisor(server, signal_fd, options.timeout_seconds);
  for (unsigned rank = 0; rank < job.size; ++rank) {
    SpawnRequest request;
    request.path = program;
    request.argv = options.command;
    request.env = base_env;
    if (progress_core[rank] >= 0) {
      request.env.push_back("TERN_PROGRESS_CPUS=" + topology.core_cpus(static_cast<unsigned>(progress_core[rank])));
    }
    request.signal_mask = original_mask;
    request.process_group = supervisor.process_group();
    request.stdin_fd = rank == 0 ? rank0_stdin : null_fd;
    if (hwloc_const_cpuset_t cpus = topology.binding(locations[rank], bind_to)) {
      cpu_set_t set;
      if (topology.to_cpu_set(cpus, set)) request.cpus = set;
    }
    if (!server.setup_fork(job, rank, request.env, error)) {
      supervisor.fail(kExitSetupFailed, "ternrun: cannot start rank " + std::to_string(rank) + ": " + error);
      break;
    }
    Pipe out, err;
    if (!out.open() || !err.open()) {
      supervisor.fail(kExitSetupFailed, "ternrun: cannot start rank " + std::to_string(rank) +
                                            ": pipe: " + std::strerror(errno));
      for (int fd : {out.read_fd, out.write_fd, err.read_fd, err.write_fd}) {
        if (fd >= 0) close(fd);
      }
      break;
    }
    request.stdout_fd = out.write_fd;
    request.stderr_fd = err.write_fd;
    pid_t pid = spawn_rank(request);
    int spawn_errno = errno;
    close(out.write_fd);
    close(err.write_fd);
    std::string tag = options.tag_output ? "[" + std::to_string(rank) + "] " : "";
    // Forwarded even if the fork failed, so the pipes are closed in one place.
    supervisor.add_output(std::make_unique<OutputForwarder>(out.read_fd, STDOUT_FILENO, tag));
    supervisor.add_output(std::make_unique<OutputForwarder>(err.read_fd, STDERR_FILENO, tag));
    if (pid < 0) {
      supervisor.fail(kExitSetupFailed, "ternrun: cannot start rank " + std::to_string(rank) +
                                            ": fork: " + std::strerror(spawn_errno));
      break;
    }
    supervisor.add_rank(pid);
    if (options.report_bindings) {
      std::string where = "rank " + std::to_string(rank) + " " + topology.describe(locations[rank], bind_to);
      if (progress_core[rank] >= 0) {
        const auto core = static_cast<unsigned>(progress_core[rank]);
        where += "; its progress thread, if it starts one, on spare core " + std::to_string(core) + " (cpus " +
                 topology.core_cpus(core) + ")";
      } else if (user_progress_cpus == nullptr) {
        where += "; its progress thread, if it starts one, shares its cpus (no spare core)";
      } else {
        where += "; its progress thread, if it starts one, on " + *user_progress_cpus;
      }
      say(where);
    }
  }
  if (null_fd >= 0) close(null_fd);

  JobOutcome outcome = supervisor.run();
  // A signal or a server that hangs (a client it refused half way) ends the
  // wait: ternrun must finish whatever became of the server.
  sigset_t ending;
  sigemptyset(&ending);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&ending, signal_number);
  const int ending_fd = signalfd(-1, &ending, SFD_CLOEXEC | SFD_NONBLOCK);
  const bool server_stopped = server.stop(5000, ending_fd);
  if (ending_fd >= 0) close(ending_fd);
  if (!server_stopped) say("warning: the PMIx server did not shut down; leaving it behind");
  tmpdir.remove();
  remove_job_segments(job.id);
  close(signal_fd);
  if (!outcome.message.empty()) std::fprintf(stderr, "%s\n", outcome.message.c_str());
  if (!server_stopped) {
    std::fflush(nullptr);
    std::_Exit(outcome.exit_code);
  }
  return outcome.exit_code;
}

}  // namespace
}  // namespace tern::launcher

// Read by the sanitizers of ASan and TSan builds: libpmix keeps allocations
// of PMIx_server_init past PMIx_server_finalize, and its listener thread
// closes a descriptor unsynchronized with the finalize; neither is ternrun's
// to report.
extern "C" const char* __lsan_default_suppressions() { return "leak:libpmix.so\n"; }
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }
extern "C" const char* __tsan_default_suppressions() { return "race:libpmix.so\n"; }
extern "C" const char* __tsan_default_options() { return "print_suppressions=0"; }

int main(int argc, char** argv) { return tern::launcher::run(argc, argv); }
