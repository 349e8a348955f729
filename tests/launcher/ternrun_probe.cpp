// The ranks of ternrun's integration tests: each behaves as its arguments say,
// mostly to fail in one particular way.
//
//   ternrun_probe sleep                     every rank sleeps until killed
//   ternrun_probe exit CODE RANK            RANK exits with CODE, the others sleep
//   ternrun_probe signal SIGNAL RANK        RANK makes /dev/shm/tern-<job>-test, then
//                                           kills itself with SIGNAL; the others sleep
//   ternrun_probe abort RANK CODE MESSAGE   RANK calls PMIx_Abort, the others sleep
//   ternrun_probe env VAR...                prints VAR=value (or "VAR unset") per VAR
//   ternrun_probe print LINES               LINES lines to stdout and stderr, then a
//                                           last stdout line without newline
//   ternrun_probe flood LINES LENGTH        LINES lines of LENGTH copies of the rank's
//                                           last digit, through stdio's buffer
//   ternrun_probe daemon                    each rank starts a child in a session of
//                                           its own that sleeps (and says ready), then
//                                           exits 0 at once
//
// Ranks that sleep first print "ready rank R pid P job J" (and flush), so a
// test knows they run and which processes and files must be gone afterwards.
// In exit, signal and abort, every rank has printed it before any fails.
// With PROBE_IGNORE_TERM=1 in the environment, sleeping ranks ignore SIGTERM.
#include <fcntl.h>
#include <pmix.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

unsigned own_rank() {
  const char* text = std::getenv("PMIX_RANK");
  return text != nullptr ? static_cast<unsigned>(std::strtoul(text, nullptr, 10)) : 0;
}

void say_ready(unsigned rank) {
  const char* job = std::getenv("TERN_JOB_ID");
  std::printf("ready rank %u pid %ld job %s\n", rank, static_cast<long>(getpid()), job != nullptr ? job : "none");
  std::fflush(stdout);
}

void ignore_term_if_asked() {
  const char* ignore = std::getenv("PROBE_IGNORE_TERM");
  if (ignore != nullptr && std::strcmp(ignore, "1") == 0) signal(SIGTERM, SIG_IGN);
}

[[noreturn]] void sleep_forever() {
  for (;;) pause();
}

// Every rank says it is ready, then waits in a PMIx fence for all others to
// have said so: a rank that fails next cannot end the job before every ready
// line is out.
bool meet_everyone(unsigned rank) {
  pmix_proc_t self;
  if (PMIx_Init(&self, nullptr, 0) != PMIX_SUCCESS || self.rank != rank) return false;
  ignore_term_if_asked();
  say_ready(rank);
  return PMIx_Fence(nullptr, 0, nullptr, 0) == PMIX_SUCCESS;
}

int usage() {
  std::fprintf(stderr, "ternrun_probe: bad arguments (see the comment at the top of ternrun_probe.cpp)\n");
  return 64;
}

}  // namespace

// LeakSanitizer (ASan builds) reads this: libpmix keeps allocations past
// PMIx_Finalize, which are not this program's leaks.
extern "C" const char* __lsan_default_suppressions() { return "leak:libpmix.so\n"; }
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string action = argv[1];
  const unsigned rank = own_rank();

  if (action == "sleep") {
    ignore_term_if_asked();
    say_ready(rank);
    sleep_forever();
  }
  if ((action == "exit" || action == "signal") && argc == 4) {
    unsigned failing = static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10));
    if (!meet_everyone(rank)) return 70;
    if (rank != failing) sleep_forever();
    if (action == "exit") return std::atoi(argv[2]);
    // Stands in for a segment the engine would have made: the sweep after
    // the job must remove it, as the rank cannot.
    const char* job = std::getenv("TERN_JOB_ID");
    std::string path = std::string("/dev/shm/tern-") + (job != nullptr ? job : "none") + "-test";
    int fd = open(path.c_str(), O_CREAT | O_WRONLY, 0600);
    if (fd >= 0) close(fd);
    raise(std::atoi(argv[2]));
    return 0;
  }
  if (action == "abort" && argc == 5) {
    if (!meet_everyone(rank)) return 70;
    if (rank != std::strtoul(argv[2], nullptr, 10)) sleep_forever();
    int code = std::atoi(argv[3]);
    PMIx_Abort(code, argv[4], nullptr, 0);
    // What MPI_Abort does once the launcher has heard it.
    _exit(code);
  }
  if (action == "daemon") {
    int sync[2];
    if (pipe(sync) != 0) return 71;
    pid_t child = fork();
    if (child == 0) {
      // Out of the job's process group, holding the rank's stdout: only
      // ternrun's adoption of orphans can still find it.
      setsid();
      say_ready(rank);
      char byte = 1;
      if (write(sync[1], &byte, 1) != 1) _exit(72);
      sleep_forever();
    }
    char byte = 0;
    if (child < 0 || read(sync[0], &byte, 1) != 1) return 73;
    return 0;
  }
  if (action == "env") {
    for (int index = 2; index < argc; ++index) {
      const char* value = std::getenv(argv[index]);
      if (value != nullptr) std::printf("%s=%s\n", argv[index], value);
      else std::printf("%s unset\n", argv[index]);
    }
    return 0;
  }
  if (action == "print" && argc == 3) {
    int lines = std::atoi(argv[2]);
    for (int line = 0; line < lines; ++line) {
      std::printf("rank %u line %d\n", rank, line);
      std::fprintf(stderr, "rank %u err %d\n", rank, line);
    }
    std::printf("rank %u tail", rank);
    return 0;
  }
  if (action == "flood" && argc == 4) {
    int lines = std::atoi(argv[2]);
    std::string line(static_cast<std::size_t>(std::atoi(argv[3])), static_cast<char>('0' + rank % 10));
    line += '\n';
    for (int index = 0; index < lines; ++index) std::fwrite(line.data(), 1, line.size(), stdout);
    return 0;
  }
  return usage();
}
