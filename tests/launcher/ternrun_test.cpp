// ternrun end to end: jobs that succeed, ranks that fail in each way, signals
// and time limits, output forwarding, the command line; and after each job,
// no rank process, no /dev/shm entry and nothing in the temporary directory.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "launch.hpp"

namespace tern::launcher {
namespace {

using testing::Finished;
using testing::Launch;
using testing::lines_of;
using namespace std::chrono_literals;

const std::string kTernrun = TERNRUN_PATH;
const std::string kMpirun = MPIRUN_PATH;
const std::string kRing = PMIX_RING_PATH;
const std::string kProbe = PROBE_PATH;

// What a probe rank said when it became ready.
struct Ready {
  unsigned rank = 0;
  long pid = 0;
  std::string job;
};

std::vector<Ready> ready_lines(const std::string& out) {
  std::vector<Ready> found;
  for (const std::string& line : lines_of(out)) {
    unsigned rank = 0;
    long pid = 0;
    char job[256] = {};
    if (std::sscanf(line.c_str(), "ready rank %u pid %ld job %255s", &rank, &pid, job) == 3) {
      found.push_back({rank, pid, job});
    }
  }
  return found;
}

bool process_gone(long pid) { return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH; }

std::vector<long> pids_of(const std::vector<Ready>& ready) {
  std::vector<long> pids;
  for (const Ready& rank : ready) pids.push_back(rank.pid);
  return pids;
}

// The parent of `pid` as /proc tells it; 0 once `pid` is gone.
long parent_of(long pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::size_t name_end = stat.rfind(')');
  char state = 0;
  long parent = 0;
  if (name_end == std::string::npos || std::sscanf(stat.c_str() + name_end + 1, " %c %ld", &state, &parent) != 2) {
    return 0;
  }
  return parent;
}

// Polls `condition` every millisecond on a thread of its own and notes when
// it first held: the tests time what ternrun does, as it happens, while
// ternrun runs.
class FirstTime {
 public:
  explicit FirstTime(std::function<bool()> condition)
      : condition_(std::move(condition)), poller_([this] { poll(); }) {}
  ~FirstTime() { stop(); }
  FirstTime(const FirstTime&) = delete;
  FirstTime& operator=(const FirstTime&) = delete;

  // Stops polling (a last look first); nothing when it never held.
  std::optional<std::chrono::steady_clock::time_point> when() {
    stop();
    return when_;
  }

 private:
  void poll() {
    for (;;) {
      bool last_look = stopping_.load();
      if (condition_()) {
        when_ = std::chrono::steady_clock::now();
        return;
      }
      if (last_look) return;
      std::this_thread::sleep_for(1ms);
    }
  }
  void stop() {
    stopping_ = true;
    if (poller_.joinable()) poller_.join();
  }

  std::function<bool()> condition_;
  std::atomic<bool> stopping_{false};
  std::optional<std::chrono::steady_clock::time_point> when_;
  std::thread poller_;
};

// Seconds from `from` to `to`; infinite when either never came.
double seconds_between(std::optional<std::chrono::steady_clock::time_point> from,
                       std::optional<std::chrono::steady_clock::time_point> to) {
  if (!from || !to) return std::numeric_limits<double>::infinity();
  return std::chrono::duration<double>(*to - *from).count();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Each test's ternrun gets its own TMPDIR, which must be empty once ternrun
// has exited: the PMIx rendezvous files went with it.
class launcher_run : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/ternrun-test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    tmpdir_ = pattern;
  }

  void TearDown() override {
    std::error_code error;
    EXPECT_TRUE(std::filesystem::is_empty(tmpdir_, error)) << "ternrun left files in " << tmpdir_;
    std::filesystem::remove_all(tmpdir_, error);
  }

  std::vector<std::string> env(std::vector<std::string> extra = {}) const {
    extra.push_back("TMPDIR=" + tmpdir_);
    return extra;
  }

  Finished ternrun(std::vector<std::string> args, std::vector<std::string> extra_env = {},
                   std::chrono::milliseconds limit = 30s) {
    args.insert(args.begin(), kTernrun);
    return testing::run(args, env(std::move(extra_env)), limit);
  }

  // Runs a probe job whose ranks all say ready before one of them fails, and
  // measures from the first rank's death to the last one's: the time ternrun
  // takes to end the job once a rank has failed. Neither the start-up nor
  // the ranks' or ternrun's own exit counts, which sanitizer builds make
  // slow (LeakSanitizer's scan at exit) without ternrun being any slower.
  Finished ternrun_ending(std::vector<std::string> args, unsigned ranks, double& seconds_to_end,
                          std::vector<std::string> extra_env = {}) {
    args.insert(args.begin(), kTernrun);
    Launch launch(args, env(std::move(extra_env)));
    bool all_ready = launch.wait_for_lines(ranks, 20s);
    const std::vector<long> pids = pids_of(ready_lines(launch.out()));
    FirstTime one_gone([&pids] { return std::any_of(pids.begin(), pids.end(), process_gone); });
    FirstTime all_gone([&pids] { return std::all_of(pids.begin(), pids.end(), process_gone); });
    Finished done = launch.finish(30s);
    seconds_to_end = seconds_between(one_gone.when(), all_gone.when());
    EXPECT_TRUE(all_ready) << done.out << done.err;
    return done;
  }

  // A rank calling abort with `status` ends the job at once, the others
  // included, with `exit_code`.
  void expect_abort_ends_job(const std::string& rank, int status, int exit_code) {
    double seconds = 0;
    Finished done = ternrun_ending({"-n", "2", kProbe, "abort", rank, std::to_string(status), "boom"}, 2, seconds);
    EXPECT_EQ(done.exit_code, exit_code) << done.err;
    EXPECT_LT(seconds, 2.0);
    EXPECT_TRUE(contains(done.err, "ternrun: rank " + rank + " called abort: boom\n")) << done.err;
    std::vector<Ready> ready = ready_lines(done.out);
    ASSERT_EQ(ready.size(), 2u) << done.out;
    for (const Ready& one : ready) EXPECT_TRUE(process_gone(one.pid)) << "rank " << one.rank;
  }

  void expect_ring(unsigned ranks, const std::vector<std::string>& options) {
    std::vector<std::string> args = {"-n", std::to_string(ranks)};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back(kRing);
    Finished done = ternrun(args);
    ASSERT_FALSE(done.timed_out) << done.err;
    EXPECT_EQ(done.exit_code, 0) << done.err;
    std::vector<std::string> lines = lines_of(done.out);
    std::sort(lines.begin(), lines.end());
    std::vector<std::string> expected;
    for (unsigned rank = 0; rank < ranks; ++rank) {
      expected.push_back("rank " + std::to_string(rank) + " of " + std::to_string(ranks) + " ok");
    }
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(lines, expected) << done.err;
    EXPECT_EQ(done.err, "");
  }

  std::string tmpdir_;
};

TEST_F(launcher_run, Ring1) { expect_ring(1, {}); }
TEST_F(launcher_run, Ring2) { expect_ring(2, {}); }
TEST_F(launcher_run, Ring3Oversubscribed) { expect_ring(3, {"--oversubscribe"}); }
TEST_F(launcher_run, Ring4Oversubscribed) { expect_ring(4, {"--oversubscribe", "--map-by", "numa"}); }
TEST_F(launcher_run, Ring2Unbound) { expect_ring(2, {"--bind-to", "none"}); }

TEST_F(launcher_run, MpirunAliasRunsTheJob) {
  Finished done = testing::run({kMpirun, "-np", "2", kRing}, env());
  EXPECT_EQ(done.exit_code, 0) << done.err;
  EXPECT_EQ(lines_of(done.out).size(), 2u) << done.out;
}

TEST_F(launcher_run, RankExitCodeEndsTheJob) {
  double seconds = 0;
  Finished done = ternrun_ending({"-n", "2", kProbe, "exit", "3", "1"}, 2, seconds);
  EXPECT_EQ(done.exit_code, 3) << done.err;
  EXPECT_LT(seconds, 2.0);
  EXPECT_TRUE(contains(done.err, "ternrun: rank 1 exited with code 3\n")) << done.err;
  EXPECT_FALSE(contains(done.err, "rank 0")) << "only the first failure is reported: " << done.err;
  std::vector<Ready> ready = ready_lines(done.out);
  ASSERT_EQ(ready.size(), 2u) << done.out;
  for (const Ready& rank : ready) EXPECT_TRUE(process_gone(rank.pid)) << "rank " << rank.rank;
}

TEST_F(launcher_run, RankIgnoringSigtermIsKilled) {
  double seconds = 0;
  Finished done = ternrun_ending({"-n", "2", "-x", "PROBE_IGNORE_TERM=1", kProbe, "exit", "3", "1"}, 2, seconds);
  EXPECT_EQ(done.exit_code, 3) << done.err;
  // Half a second of grace for SIGTERM, then SIGKILL.
  EXPECT_GE(seconds, 0.4);
  EXPECT_LT(seconds, 2.0);
  std::vector<Ready> ready = ready_lines(done.out);
  ASSERT_EQ(ready.size(), 2u) << done.out;
  for (const Ready& rank : ready) EXPECT_TRUE(process_gone(rank.pid)) << "rank " << rank.rank;
}

TEST_F(launcher_run, RankKilledBySignalLeavesNothing) {
  double seconds = 0;
  Finished done = ternrun_ending({"-n", "2", kProbe, "signal", "9", "1"}, 2, seconds);
  EXPECT_EQ(done.exit_code, 128 + 9) << done.err;
  EXPECT_LT(seconds, 2.0);
  EXPECT_TRUE(contains(done.err, "ternrun: rank 1 killed by signal 9 (Killed)\n")) << done.err;
  std::vector<Ready> ready = ready_lines(done.out);
  ASSERT_EQ(ready.size(), 2u) << done.out;
  for (const Ready& rank : ready) EXPECT_TRUE(process_gone(rank.pid)) << "rank " << rank.rank;
  ASSERT_FALSE(ready[0].job.empty());
  EXPECT_EQ(ready[0].job, ready[1].job);
  std::string segment = "/dev/shm/tern-" + ready[0].job + "-test";
  struct stat info{};
  EXPECT_NE(stat(segment.c_str(), &info), 0) << segment << " was left behind";
}

TEST_F(launcher_run, RankCallingAbortEndsTheJob) { expect_abort_ends_job("1", 7, 7); }
// shmem_global_exit(0) and MPI_Abort(comm, 0) end a job on purpose: at once,
// with the status the program gave.
TEST_F(launcher_run, AbortWithStatusZeroEndsTheJobWithZero) { expect_abort_ends_job("0", 0, 0); }
// A status no process can exit with is a failure, not a truncated success.
TEST_F(launcher_run, AbortWithStatusNoProcessCanExitWithFails) { expect_abort_ends_job("1", 256, 1); }

void expect_signal_cleans_up(const std::vector<std::string>& env, int signal_number) {
  Launch launch({kTernrun, "-n", "2", kProbe, "sleep"}, env);
  ASSERT_TRUE(launch.wait_for_lines(2, 10s)) << launch.out();
  launch.signal(signal_number);
  Finished done = launch.finish(10s);
  EXPECT_EQ(done.exit_code, 128 + signal_number) << done.err;
  EXPECT_TRUE(contains(done.err, "received signal " + std::to_string(signal_number))) << done.err;
  std::vector<Ready> ready = ready_lines(done.out);
  ASSERT_EQ(ready.size(), 2u) << done.out;
  for (const Ready& rank : ready) EXPECT_TRUE(process_gone(rank.pid)) << "rank " << rank.rank;
}

TEST_F(launcher_run, SigtermCleansUp) { expect_signal_cleans_up(env(), SIGTERM); }
TEST_F(launcher_run, SigintCleansUp) { expect_signal_cleans_up(env(), SIGINT); }

TEST_F(launcher_run, TimeoutKillsHungJob) {
  Finished done = ternrun({"--timeout", "1", "-n", "2", kProbe, "sleep"});
  EXPECT_EQ(done.exit_code, 124) << done.err;
  EXPECT_TRUE(contains(done.err, "ternrun: job timed out after 1 s\n")) << done.err;
  EXPECT_GE(done.seconds, 1.0);
  EXPECT_LT(done.seconds, 4.0);
  for (const Ready& rank : ready_lines(done.out)) EXPECT_TRUE(process_gone(rank.pid)) << "rank " << rank.rank;
}

TEST_F(launcher_run, ProcessesLeftByRanksAreEnded) {
  Launch launch({kTernrun, "-n", "2", kProbe, "daemon"}, env());
  bool all_ready = launch.wait_for_lines(2, 20s);
  // A child's parent changes when its rank exits (ternrun adopts it); one
  // whose parent is ternrun already has lost its rank before we looked.
  const std::vector<long> children = pids_of(ready_lines(launch.out()));
  std::vector<long> ranks;
  for (long child : children) {
    long parent = parent_of(child);
    ranks.push_back(parent_of(parent) == static_cast<long>(getpid()) ? 0 : parent);
  }
  FirstTime ranks_gone([&] {
    for (std::size_t index = 0; index < children.size(); ++index) {
      if (ranks[index] != 0 && parent_of(children[index]) == ranks[index]) return false;
    }
    return true;
  });
  FirstTime children_gone([&children] { return std::all_of(children.begin(), children.end(), process_gone); });
  Finished done = launch.finish(30s);
  ASSERT_TRUE(all_ready) << done.out << done.err;
  EXPECT_EQ(done.exit_code, 0) << done.err;
  // Their copies of the ranks' stdout must not keep ternrun waiting: they
  // end soon after the ranks.
  EXPECT_LT(seconds_between(ranks_gone.when(), children_gone.when()), 0.9);
  ASSERT_EQ(children.size(), 2u) << done.out;
  for (long child : children) EXPECT_TRUE(process_gone(child)) << "child " << child;
}

TEST_F(launcher_run, TagOutputPrefixesEveryLine) {
  Finished done = ternrun({"--tag-output", "-n", "2", kProbe, "print", "3"});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  std::vector<std::string> out_lines = lines_of(done.out);
  std::vector<std::string> err_lines = lines_of(done.err);
  std::multiset<std::string> out(out_lines.begin(), out_lines.end());
  std::multiset<std::string> err(err_lines.begin(), err_lines.end());
  std::multiset<std::string> expected_out, expected_err;
  for (int rank = 0; rank < 2; ++rank) {
    std::string tag = "[" + std::to_string(rank) + "] rank " + std::to_string(rank);
    for (int line = 0; line < 3; ++line) {
      expected_out.insert(tag + " line " + std::to_string(line));
      expected_err.insert(tag + " err " + std::to_string(line));
    }
    expected_out.insert(tag + " tail");  // the unfinished last line, flushed at exit
  }
  EXPECT_EQ(out, expected_out) << done.out;
  EXPECT_EQ(err, expected_err) << done.err;
}

TEST_F(launcher_run, UntaggedOutputIsPassedThrough) {
  Finished done = ternrun({"-n", "1", kProbe, "print", "2"});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  EXPECT_EQ(done.out, "rank 0 line 0\nrank 0 line 1\nrank 0 tail\n");
  EXPECT_EQ(done.err, "rank 0 err 0\nrank 0 err 1\n");
}

TEST_F(launcher_run, LongLinesAreNeverInterleaved) {
  const int lines = 300;
  const std::size_t length = 10000;  // far above PIPE_BUF: each line takes several writes
  Finished done = ternrun({"-n", "2", kProbe, "flood", std::to_string(lines), std::to_string(length)});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  std::map<char, int> count;
  for (const std::string& line : lines_of(done.out)) {
    ASSERT_EQ(line.size(), length);
    ASSERT_EQ(line.find_first_not_of(line[0]), std::string::npos) << "a line holds two ranks' output";
    ++count[line[0]];
  }
  EXPECT_EQ(count['0'], lines);
  EXPECT_EQ(count['1'], lines);
}

TEST_F(launcher_run, ExportedVariablesReachEveryRank) {
  Finished done = ternrun({"-n", "2", "-x", "TERN_TEST_SET=bar", "-x", "TERN_TEST_PASSED", kProbe, "env",
                           "TERN_TEST_SET", "TERN_TEST_PASSED", "TERN_JOB_ID"},
                          {"TERN_TEST_PASSED=from-ternrun"});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  std::vector<std::string> lines = lines_of(done.out);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), "TERN_TEST_SET=bar"), 2);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), "TERN_TEST_PASSED=from-ternrun"), 2);
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& line) { return line.starts_with("TERN_JOB_ID=ternrun-"); }),
            2)
      << done.out;
}

TEST_F(launcher_run, BadOptionsExitWithTwo) {
  for (auto [args, named] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--bogus", kProbe}, "'--bogus'"},
           {{"-n", "0", kProbe}, "-n"},
           {{"--bind-to", "socket", kProbe}, "--bind-to"},
           {{"--timeout", "soon", kProbe}, "--timeout"},
           {{"-n", "2"}, "no program"}}) {
    Finished done = ternrun(args);
    EXPECT_EQ(done.exit_code, 2) << named;
    EXPECT_TRUE(contains(done.err, named)) << done.err;
    EXPECT_EQ(lines_of(done.err).size(), 1u) << done.err;
  }
}

TEST_F(launcher_run, MoreRanksThanCoresNeedsOversubscribe) {
  // Cores never outnumber hardware threads, so this is always too many.
  const unsigned ranks = std::max(1u, std::thread::hardware_concurrency()) + 1;
  Finished refused = ternrun({"-n", std::to_string(ranks), kProbe, "env", "TERN_WAIT_MODE"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(contains(refused.err, "--oversubscribe")) << refused.err;
  EXPECT_EQ(refused.out, "");

  Finished done = ternrun({"-n", std::to_string(ranks), "--oversubscribe", kProbe, "env", "TERN_WAIT_MODE"});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  std::vector<std::string> lines = lines_of(done.out);
  EXPECT_EQ(lines.size(), ranks);
  EXPECT_EQ(static_cast<unsigned>(std::count(lines.begin(), lines.end(), "TERN_WAIT_MODE=adaptive")), ranks);
}

TEST_F(launcher_run, MissingProgramExits127) {
  Finished done = ternrun({"-n", "2", "/nonexistent/ternrun-test-program"});
  EXPECT_EQ(done.exit_code, 127);
  EXPECT_TRUE(contains(done.err, "/nonexistent/ternrun-test-program")) << done.err;
}

TEST_F(launcher_run, ProgramThatCannotExecExits127) {
  // Executable but neither ELF nor script: found, and then exec fails in the rank.
  char dir_pattern[] = "/tmp/ternrun-test-bin.XXXXXX";
  ASSERT_NE(mkdtemp(dir_pattern), nullptr);
  std::string program = std::string(dir_pattern) + "/garbage";
  FILE* file = std::fopen(program.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fputs("\x01\x02 not a program\n", file);
  std::fclose(file);
  chmod(program.c_str(), 0755);
  Finished done = ternrun({"-n", "1", program});
  std::filesystem::remove_all(dir_pattern);
  EXPECT_EQ(done.exit_code, 127) << done.err;
  EXPECT_TRUE(contains(done.err, "cannot execute '" + program + "'")) << done.err;
  EXPECT_TRUE(contains(done.err, "ternrun: rank 0 exited with code 127")) << done.err;
}

TEST_F(launcher_run, HelpAndVersion) {
  Finished help = ternrun({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(contains(help.out, "Usage:")) << help.out;
  EXPECT_TRUE(contains(help.out, "--oversubscribe"));
  Finished version = ternrun({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(version.out.starts_with("ternrun (Tern) ")) << version.out;
}

}  // namespace
}  // namespace tern::launcher
