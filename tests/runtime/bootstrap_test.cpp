// The bootstrap: the singleton a program runs as without a launcher, the
// choice between singleton and PMIx, what happens under a PMIx environment
// whose server cannot be reached, and (when Open MPI's mpirun is installed)
// real PMIx jobs of the probe program.
//
// Anything that calls PMIx_Init runs in a child process: PMIx keeps
// process-wide state and threads that the rest of this binary must not see.
#include "tern/runtime/bootstrap.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace tern::runtime {
namespace {

using Clock = std::chrono::steady_clock;

std::span<const std::byte> bytes_of(const std::string& text) { return std::as_bytes(std::span(text.data(), text.size())); }

std::string text_of(const std::vector<std::byte>& bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

bool only_safe_characters(const std::string& id) {
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

// Every test starts with no PMIx variables and no TERN_BOOTSTRAP* / TERN_JOB_ID
// (as if started by hand), whatever the environment of the test run, and
// gets the original environment back afterwards.
class BootstrapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (char** entry = environ; *entry != nullptr; ++entry) {
      std::string_view item(*entry);
      auto eq = item.find('=');
      std::string name(item.substr(0, eq));
      if (name.rfind("PMIX_", 0) == 0 || name.rfind("TERN_BOOTSTRAP", 0) == 0 || name == "TERN_JOB_ID") {
        saved_.emplace_back(name, std::string(item.substr(eq + 1)));
      }
    }
    for (const auto& [name, value] : saved_) unsetenv(name.c_str());
  }
  void TearDown() override {
    for (char** entry = environ; *entry != nullptr;) {
      std::string_view item(*entry);
      std::string name(item.substr(0, item.find('=')));
      if (name.rfind("PMIX_", 0) == 0 || name.rfind("TERN_BOOTSTRAP", 0) == 0 || name == "TERN_JOB_ID") {
        unsetenv(name.c_str());  // shifts environ; look at the same slot again
      } else {
        ++entry;
      }
    }
    for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  std::vector<std::pair<std::string, std::string>> saved_;
};

// ---- the singleton

TEST_F(BootstrapTest, WithoutALauncherAProcessIsASingleton) {
  ASSERT_FALSE(pmix_environment_present());
  std::unique_ptr<Bootstrap> bootstrap;
  std::string error;
  ASSERT_EQ(create_bootstrap(bootstrap, error), Status::Ok) << error;
  ASSERT_NE(bootstrap, nullptr);
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_STREQ(bootstrap->name(), "singleton");
  EXPECT_EQ(bootstrap->size(), 1u);
  EXPECT_EQ(bootstrap->rank(), 0u);
  EXPECT_EQ(bootstrap->local_rank(), 0u);
  EXPECT_EQ(bootstrap->local_size(), 1u);
  EXPECT_EQ(bootstrap->node_id(), 0u);
  EXPECT_EQ(bootstrap->local_peers(), std::vector<unsigned>{0});
  EXPECT_EQ(bootstrap->job_id(), "s" + std::to_string(getpid()));
  EXPECT_TRUE(bootstrap->last_error().empty());
  EXPECT_EQ(bootstrap->finalize(), Status::Ok);
}

TEST_F(BootstrapTest, SingletonJobIdComesFromTernJobId) {
  ASSERT_EQ(setenv("TERN_JOB_ID", "job 42/a.b", 1), 0);
  std::unique_ptr<Bootstrap> bootstrap;
  std::string error;
  ASSERT_EQ(create_bootstrap(bootstrap, error), Status::Ok) << error;
  EXPECT_EQ(bootstrap->job_id(), "job_42_a_b");

  ASSERT_EQ(create_singleton_bootstrap(bootstrap, "given"), Status::Ok);
  EXPECT_EQ(bootstrap->job_id(), "given");
}

TEST_F(BootstrapTest, SingletonPutCommitFenceGetRoundTrip) {
  std::unique_ptr<Bootstrap> bootstrap;
  ASSERT_EQ(create_singleton_bootstrap(bootstrap), Status::Ok);
  const std::string address = std::string("worker\0address", 14);  // embedded zero kept
  ASSERT_EQ(bootstrap->put("tern.address", bytes_of(address)), Status::Ok);
  ASSERT_EQ(bootstrap->put("tern.empty", {}), Status::Ok);
  ASSERT_EQ(bootstrap->commit(), Status::Ok);
  ASSERT_EQ(bootstrap->fence(true), Status::Ok);

  std::vector<std::byte> value{std::byte{1}, std::byte{2}};
  ASSERT_EQ(bootstrap->get(0, "tern.address", value), Status::Ok);
  EXPECT_EQ(text_of(value), address);
  ASSERT_EQ(bootstrap->get(0, "tern.empty", value), Status::Ok);
  EXPECT_TRUE(value.empty());

  // A second put replaces; a fence without collection changes nothing here.
  ASSERT_EQ(bootstrap->put("tern.address", bytes_of("second")), Status::Ok);
  ASSERT_EQ(bootstrap->commit(), Status::Ok);
  ASSERT_EQ(bootstrap->fence(false), Status::Ok);
  ASSERT_EQ(bootstrap->get(0, "tern.address", value), Status::Ok);
  EXPECT_EQ(text_of(value), "second");
  EXPECT_EQ(bootstrap->finalize(), Status::Ok);
}

TEST_F(BootstrapTest, SingletonMissingKeyIsNotFound) {
  std::unique_ptr<Bootstrap> bootstrap;
  ASSERT_EQ(create_singleton_bootstrap(bootstrap), Status::Ok);
  ASSERT_EQ(bootstrap->fence(true), Status::Ok);
  std::vector<std::byte> value{std::byte{7}};
  EXPECT_EQ(bootstrap->get(0, "tern.nobody.put.this", value), Status::NotFound);
  EXPECT_EQ(value.size(), 1u);  // left alone
}

TEST_F(BootstrapTest, SingletonRefusesBadArguments) {
  std::unique_ptr<Bootstrap> bootstrap;
  ASSERT_EQ(create_singleton_bootstrap(bootstrap), Status::Ok);
  std::vector<std::byte> value;
  EXPECT_EQ(bootstrap->get(1, "tern.key", value), Status::InvalidParam);
  EXPECT_NE(bootstrap->last_error().find("out of range"), std::string::npos) << bootstrap->last_error();
  const std::string too_long(512, 'k');
  for (const char* key : {static_cast<const char*>(nullptr), "", "pmix.reserved", too_long.c_str()}) {
    EXPECT_EQ(bootstrap->put(key, bytes_of("x")), Status::InvalidParam) << (key ? key : "(null)");
    EXPECT_EQ(bootstrap->get(0, key, value), Status::InvalidParam) << (key ? key : "(null)");
  }
  EXPECT_EQ(bootstrap->put(std::string(511, 'k').c_str(), bytes_of("x")), Status::Ok);
}

TEST_F(BootstrapTest, FinalizeTwiceIsHarmlessAndEndsUse) {
  std::unique_ptr<Bootstrap> bootstrap;
  ASSERT_EQ(create_singleton_bootstrap(bootstrap), Status::Ok);
  EXPECT_EQ(bootstrap->finalize(), Status::Ok);
  EXPECT_EQ(bootstrap->finalize(), Status::Ok);
  std::vector<std::byte> value;
  EXPECT_EQ(bootstrap->put("tern.key", bytes_of("x")), Status::InvalidParam);
  EXPECT_EQ(bootstrap->fence(true), Status::InvalidParam);
  EXPECT_EQ(bootstrap->get(0, "tern.key", value), Status::InvalidParam);
  EXPECT_NE(bootstrap->last_error().find("finalized"), std::string::npos);
}

TEST_F(BootstrapTest, SingletonAbortExitsWithTheCodeAndMessage) {
  std::unique_ptr<Bootstrap> bootstrap;
  ASSERT_EQ(create_singleton_bootstrap(bootstrap), Status::Ok);
  EXPECT_EXIT(bootstrap->abort(7, "giving up on purpose"), ::testing::ExitedWithCode(7), "giving up on purpose");
}

// ---- choosing the bootstrap

TEST_F(BootstrapTest, EnvironmentDetection) {
  EXPECT_FALSE(pmix_environment_present());
  for (const char* name : {"PMIX_NAMESPACE", "PMIX_RANK", "PMIX_SERVER_URI41", "PMIX_SERVER_URI2"}) {
    ASSERT_EQ(setenv(name, "x", 1), 0);
    EXPECT_TRUE(pmix_environment_present()) << name;
    unsetenv(name);
    EXPECT_FALSE(pmix_environment_present()) << name;
  }
  // Set but empty is not a launcher's doing.
  ASSERT_EQ(setenv("PMIX_NAMESPACE", "", 1), 0);
  EXPECT_FALSE(pmix_environment_present());
}

TEST_F(BootstrapTest, SingletonModeIgnoresAPmixEnvironment) {
  ASSERT_EQ(setenv("PMIX_NAMESPACE", "bogus", 1), 0);
  ASSERT_EQ(setenv("TERN_BOOTSTRAP", "singleton", 1), 0);
  std::unique_ptr<Bootstrap> bootstrap;
  std::string error;
  ASSERT_EQ(create_bootstrap(bootstrap, error), Status::Ok) << error;
  EXPECT_STREQ(bootstrap->name(), "singleton");
  BootstrapOptions options;
  options.mode = BootstrapMode::Singleton;
  ASSERT_EQ(create_bootstrap(options, bootstrap, error), Status::Ok) << error;
  EXPECT_STREQ(bootstrap->name(), "singleton");
}

TEST_F(BootstrapTest, PmixModeWithoutALauncherFailsWithAMessage) {
  std::unique_ptr<Bootstrap> bootstrap;
  std::string error;
  BootstrapOptions options;
  options.mode = BootstrapMode::Pmix;
  EXPECT_EQ(create_bootstrap(options, bootstrap, error), Status::Unreachable);
  EXPECT_EQ(bootstrap, nullptr);
  EXPECT_NE(error.find("TERN_BOOTSTRAP=pmix"), std::string::npos) << error;
  EXPECT_NE(error.find("PMIX_NAMESPACE"), std::string::npos) << error;

  ASSERT_EQ(setenv("TERN_BOOTSTRAP", "pmix", 1), 0);
  EXPECT_EQ(create_bootstrap(bootstrap, error), Status::Unreachable);
  EXPECT_NE(error.find("TERN_BOOTSTRAP=pmix"), std::string::npos) << error;
}

TEST_F(BootstrapTest, BadTernBootstrapIsRefused) {
  ASSERT_EQ(setenv("TERN_BOOTSTRAP", "slurm", 1), 0);
  std::unique_ptr<Bootstrap> bootstrap;
  std::string error;
  EXPECT_EQ(create_bootstrap(bootstrap, error), Status::InvalidParam);
  EXPECT_EQ(bootstrap, nullptr);
  EXPECT_NE(error.find("TERN_BOOTSTRAP"), std::string::npos) << error;
  EXPECT_NE(error.find("'slurm'"), std::string::npos) << error;
}

TEST(BootstrapJobId, Sanitized) {
  EXPECT_EQ(sanitize_job_id("1234567"), "1234567");
  EXPECT_EQ(sanitize_job_id("prterun-host-1234@1"), "prterun-host-1234_1");
  EXPECT_EQ(sanitize_job_id("a b/c.d:e"), "a_b_c_d_e");
  EXPECT_EQ(sanitize_job_id("ok-_OK9"), "ok-_OK9");
  EXPECT_EQ(sanitize_job_id(""), "job");
}

TEST(BootstrapJobId, LongNamesAreShortenedButStayDistinct) {
  std::string base(200, 'n');
  std::string a = sanitize_job_id(base + "a");
  std::string b = sanitize_job_id(base + "b");
  EXPECT_LE(a.size(), 48u);
  EXPECT_LE(b.size(), 48u);
  EXPECT_NE(a, b);
  EXPECT_TRUE(only_safe_characters(a)) << a;
  EXPECT_EQ(a, sanitize_job_id(base + "a"));  // the same in every rank
  EXPECT_EQ(sanitize_job_id(std::string(48, 'x')), std::string(48, 'x'));
}

// ---- a PMIx environment whose server is not there

// Runs `body` in a child process (so PMIx_Init's state and threads stay
// there) and returns what it wrote, or nothing when it did not finish within
// `limit`; then the child is killed.
std::optional<std::string> run_in_child(const std::function<std::string()>& body, std::chrono::milliseconds limit) {
  int fds[2];
  if (pipe(fds) != 0) return std::nullopt;
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return std::nullopt;
  if (pid == 0) {
    close(fds[0]);
    std::string result = body();
    std::size_t done = 0;
    while (done < result.size()) {
      ssize_t n = write(fds[1], result.data() + done, result.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string output;
  const auto deadline = Clock::now() + limit;
  bool finished = false;
  while (Clock::now() < deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd pfd{fds[0], POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(std::max<long long>(left, 1))) <= 0) continue;
    char buffer[4096];
    ssize_t n = read(fds[0], buffer, sizeof(buffer));
    if (n <= 0) {
      finished = true;
      break;
    }
    output.append(buffer, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  if (!finished) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!finished) return std::nullopt;
  return output;
}

// A TCP port on the loopback that refuses connections (bound, not
// listening), or with `listening`, one that takes connections (the kernel
// completes them) and never says a word: a hung server.
class LoopbackPort {
 public:
  explicit LoopbackPort(bool listening) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(addr);
    if (fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
        getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &length) == 0 && (!listening || listen(fd_, 8) == 0)) {
      port_ = ntohs(addr.sin_port);
    }
  }
  ~LoopbackPort() {
    if (fd_ >= 0) close(fd_);
  }
  [[nodiscard]] unsigned port() const { return port_; }

 private:
  int fd_ = -1;
  unsigned port_ = 0;
};

// Decision: when the environment says a PMIx server started us but PMIx_Init
// fails, create_bootstrap fails with a message naming PMIx_Init and its
// status. Falling back to a singleton would let every rank of a broken job
// run alone, each believing it is the whole job.
struct ServerCase {
  const char* name;
  std::vector<std::string> environment;  // NAME=value; REFUSING and SILENT become port numbers
};

// Names the case in test listings (ctest names carry it) instead of the list.
void PrintTo(const ServerCase& server, std::ostream* out) { *out << server.name; }

class BootstrapUnreachableServer : public BootstrapTest, public ::testing::WithParamInterface<ServerCase> {};

TEST_P(BootstrapUnreachableServer, FailsQuicklyNamingPmixInit) {
  LoopbackPort refusing(false);
  LoopbackPort silent(true);
  ASSERT_NE(refusing.port(), 0u);
  ASSERT_NE(silent.port(), 0u);
  std::vector<std::pair<std::string, std::string>> variables;
  for (std::string item : GetParam().environment) {
    if (auto at = item.find("REFUSING"); at != std::string::npos) item.replace(at, 8, std::to_string(refusing.port()));
    if (auto at = item.find("SILENT"); at != std::string::npos) item.replace(at, 6, std::to_string(silent.port()));
    auto eq = item.find('=');
    variables.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  const auto start = Clock::now();
  std::optional<std::string> result = run_in_child(
      [&] {
        // libpmix reports some of these on stderr itself; keep the test log readable.
        int null_fd = open("/dev/null", O_WRONLY);
        if (null_fd >= 0) dup2(null_fd, STDERR_FILENO);
        for (const auto& [name, value] : variables) setenv(name.c_str(), value.c_str(), 1);
        std::unique_ptr<Bootstrap> bootstrap;
        std::string error;
        Status s = create_bootstrap(bootstrap, error);
        return std::string(to_string(s)) + "|" + (bootstrap ? bootstrap->name() : "none") + "|" + error;
      },
      std::chrono::seconds(10));
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_TRUE(result.has_value()) << "create_bootstrap hung for 10 s";
  EXPECT_LT(seconds, 4.0);
  auto first = result->find('|');
  auto second = result->find('|', first + 1);
  ASSERT_NE(second, std::string::npos) << *result;
  std::string status = result->substr(0, first);
  std::string name = result->substr(first + 1, second - first - 1);
  std::string error = result->substr(second + 1);
  EXPECT_NE(status, to_string(Status::Ok)) << *result;
  EXPECT_EQ(name, "none");
  EXPECT_EQ(error.rfind("PMIx_Init ", 0), 0u) << error;
  if (status == to_string(Status::TimedOut)) {
    EXPECT_NE(error.find("TERN_BOOTSTRAP_TIMEOUT"), std::string::npos) << error;
    EXPECT_NE(error.find("PMIX_SERVER_URI41=bogus.0;tcp4://127.0.0.1:" + std::to_string(silent.port())),
              std::string::npos)
        << error;
  } else {
    EXPECT_EQ(error.rfind("PMIx_Init failed: ", 0), 0u) << error;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Environments, BootstrapUnreachableServer,
    ::testing::Values(ServerCase{"namespace_only", {"PMIX_NAMESPACE=bogus"}},
                      ServerCase{"namespace_and_rank", {"PMIX_NAMESPACE=bogus", "PMIX_RANK=0"}},
                      ServerCase{"garbage_uri", {"PMIX_NAMESPACE=bogus", "PMIX_RANK=0", "PMIX_SERVER_URI41=garbage"}},
                      ServerCase{"old_uri_only", {"PMIX_SERVER_URI2=junk"}},
                      ServerCase{"refused", {"PMIX_NAMESPACE=bogus", "PMIX_RANK=0",
                                             "PMIX_SERVER_URI41=bogus.0;tcp4://127.0.0.1:REFUSING",
                                             "PMIX_SERVER_URI4=bogus.0;tcp4://127.0.0.1:REFUSING"}},
                      // A server that takes the connection and never answers: libpmix
                      // would wait forever; the time limit turns that into an error.
                      ServerCase{"silent", {"PMIX_NAMESPACE=bogus", "PMIX_RANK=0",
                                            "PMIX_SERVER_URI41=bogus.0;tcp4://127.0.0.1:SILENT",
                                            "TERN_BOOTSTRAP_TIMEOUT=1"}}),
    [](const ::testing::TestParamInfo<ServerCase>& info) { return std::string(info.param.name); });

// ---- real PMIx jobs: the probe program under Open MPI's mpirun

std::string find_in_path(const char* program) {
  const char* path = std::getenv("PATH");
  std::string_view rest(path != nullptr ? path : "/usr/bin:/bin");
  while (!rest.empty()) {
    auto colon = rest.find(':');
    std::string candidate = std::string(rest.substr(0, colon)) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  }
  return {};
}

// Runs `argv` with stdout and stderr captured; nothing when it outlives `limit`.
std::optional<std::pair<int, std::string>> run_program(const std::vector<std::string>& argv,
                                                       std::chrono::seconds limit) {
  int fds[2];
  if (pipe(fds) != 0) return std::nullopt;
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return std::nullopt;
  if (pid == 0) {
    // Its own process group, so a timeout kills mpirun's children as well.
    setpgid(0, 0);
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);
  close(fds[1]);
  std::string output;
  const auto deadline = Clock::now() + limit;
  bool eof = false;
  while (!eof && Clock::now() < deadline) {
    pollfd pfd{fds[0], POLLIN, 0};
    if (poll(&pfd, 1, 100) <= 0) continue;
    char buffer[4096];
    ssize_t n = read(fds[0], buffer, sizeof(buffer));
    if (n <= 0) eof = true;
    else output.append(buffer, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  if (!eof) kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!eof) return std::nullopt;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return std::make_pair(code, output);
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(BootstrapTest, ProbeRunsAsASingletonWithoutALauncher) {
  auto result = run_program({TERN_BOOTSTRAP_PROBE}, std::chrono::seconds(30));
  ASSERT_TRUE(result.has_value()) << "the probe hung";
  EXPECT_EQ(result->first, 0) << result->second;
  EXPECT_NE(result->second.find("probe: singleton rank 0 of 1 ok"), std::string::npos) << result->second;
}

class BootstrapUnderOpenMpi : public BootstrapTest, public ::testing::WithParamInterface<unsigned> {};

TEST_P(BootstrapUnderOpenMpi, RanksExchangeKeys) {
  std::string mpirun = find_in_path("mpirun.openmpi");
  if (mpirun.empty()) GTEST_SKIP() << "mpirun.openmpi is not installed (Debian package openmpi-bin)";
  // Open MPI refuses root unless told; test containers often run as root.
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  const unsigned ranks = GetParam();
  auto result = run_program({mpirun, "--oversubscribe", "-n", std::to_string(ranks), TERN_BOOTSTRAP_PROBE},
                            std::chrono::seconds(60));
  unsetenv("OMPI_ALLOW_RUN_AS_ROOT");
  unsetenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM");
  ASSERT_TRUE(result.has_value()) << "mpirun.openmpi with the probe hung";
  EXPECT_EQ(result->first, 0) << result->second;
  EXPECT_EQ(count_of(result->second, "probe: pmix rank "), static_cast<int>(ranks)) << result->second;
  EXPECT_EQ(count_of(result->second, " of " + std::to_string(ranks) + " ok"), static_cast<int>(ranks))
      << result->second;
}

INSTANTIATE_TEST_SUITE_P(Ranks, BootstrapUnderOpenMpi, ::testing::Values(1u, 2u, 3u));

}  // namespace
}  // namespace tern::runtime
