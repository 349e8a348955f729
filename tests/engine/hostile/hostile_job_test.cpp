// The job is told: a rank whose worker disconnects a rank that broke the
// protocol ends the job (no front end installed a handler), with a message
// that names the ranks and hosts involved; a handler, where one is
// installed, is called instead. Peers that are no rank are only logged. A
// singleton job over tcp in a child process, attacked by bare tcp ifaces
// that present the job's secret.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "rogue.hpp"
#include "tern/engine/job.hpp"

namespace tern::engine::hostile {
namespace {

// Runs `body` in a child whose stderr is returned in `output`; the child's
// exit status is the result (-1 if it did not exit).
template <typename Body>
int run_child(Body&& body, std::string& output) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return -1;
  const pid_t child = fork();
  if (child < 0) return -1;
  if (child == 0) {
    close(pipe_fds[0]);
    dup2(pipe_fds[1], STDERR_FILENO);
    alarm(60);
    _exit(body());
  }
  close(pipe_fds[1]);
  char buffer[4096];
  ssize_t got;
  while ((got = read(pipe_fds[0], buffer, sizeof(buffer))) > 0) output.append(buffer, static_cast<std::size_t>(got));
  close(pipe_fds[0]);
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// A singleton job over tcp whose one rank is named in malformed messages,
// one per connection, by rogues that come one after the other (tcp drops
// each at its first): the rank is disconnected (here: its own loopback
// endpoint) once they add up. 0 when the job went on (a handler was told),
// 20-29 on set-up failures; without a handler the job's abort ends the
// process first.
int attacked_job(bool with_handler) {
  unsetenv("PMIX_NAMESPACE");
  unsetenv("PMIX_RANK");
  setenv("TERN_BOOTSTRAP", "singleton", 1);
  WorkerParams params;
  params.job_id = unique_job_id("job");
  params.config.transports = "self,tcp";
  params.config.tcp_interfaces = "lo";
  std::unique_ptr<Job> job;
  std::string error;
  if (Job::create(job, error, params) != Status::Ok) return 20;
  Endpoint* self = nullptr;
  if (job->endpoint(0, self) != Status::Ok) return 21;
  struct Told {
    int calls = 0;
    int rank = -2;
  } told;
  if (with_handler) {
    job->on_peer_failure(
        [](void* arg, int rank, Status) {
          auto* t = static_cast<Told*>(arg);
          ++t->calls;
          t->rank = rank;
        },
        &told);
  }
  const uint64_t rank0 = uuid_of(job->worker());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (uint64_t n = 1; job->worker().peer_status(self) == Status::Ok; ++n) {
    TcpRogue rogue(job->worker(), params.job_id, 0x7e57000000000000ull + n);
    if (!rogue.ready() || rogue.hello() != Status::Ok) return 22;
    while (!rogue.greeted()) {
      if (std::chrono::steady_clock::now() > deadline) return 23;
      (void)job->worker().progress();
      rogue.progress();
    }
    // A synchronous send from rank 0 without an acknowledgement id.
    const tag::EagerSyncHeader lie{1, rank0, 0};
    if (rogue.ep().am_short(tag::kAmEagerSync, lie.tag, &lie.sender_uuid, 16) != Status::Ok) return 24;
    const uint64_t rejected = job->worker().rejected_messages();
    while (job->worker().rejected_messages() == rejected) {
      if (std::chrono::steady_clock::now() > deadline) return 25;
      (void)job->worker().progress();
      rogue.progress();
    }
  }
  if (told.calls != 1 || told.rank != 0) return 26;
  std::fprintf(stderr, "told: %s\n", job->last_error().c_str());
  return 0;
}

TEST(HostileJob, RankDisconnectedForGarbageEndsTheJobNamingItWithoutAHandler) {
  std::string output;
  const int status = run_child([] { return attacked_job(false); }, output);
  EXPECT_EQ(status, 1) << output;
  EXPECT_NE(output.find("rank 0 (host "), std::string::npos) << output;
  EXPECT_NE(output.find("disconnected"), std::string::npos) << output;
  EXPECT_NE(output.find("ending the job"), std::string::npos) << output;
}

TEST(HostileJob, InstalledHandlerIsToldInstead) {
  std::string output;
  const int status = run_child([] { return attacked_job(true); }, output);
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("told: rank 0 (host "), std::string::npos) << output;
  EXPECT_EQ(output.find("ending the job"), std::string::npos) << output;
}

}  // namespace
}  // namespace tern::engine::hostile
