// A singleton job that aborts leaves nothing in /dev/shm: no launcher sweeps
// up after it. A child starts a singleton Job (its worker creates a shared
// segment named after the process, whose name a rank alone on its host
// gives up at start-up: nobody will attach), checks the name is gone
// already, and aborts; the parent checks the exit code and that nothing of
// the child is left.
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "tern/engine/job.hpp"

namespace {

// Entries of /dev/shm naming process `pid`.
int segments_of(pid_t pid) {
  const std::string mark = "-" + std::to_string(pid) + "-";
  int found = 0;
  if (DIR* dir = opendir("/dev/shm")) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name.rfind("tern-", 0) == 0 && name.find(mark) != std::string::npos) ++found;
    }
    closedir(dir);
  }
  return found;
}

}  // namespace

int main() {
  unsetenv("PMIX_NAMESPACE");
  unsetenv("PMIX_RANK");
  setenv("TERN_BOOTSTRAP", "singleton", 1);
  const pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    alarm(30);
    std::unique_ptr<tern::engine::Job> job;
    std::string error;
    if (tern::engine::Job::create(job, error) != tern::Status::Ok) {
      std::fprintf(stderr, "job_abort_cleanup: %s\n", error.c_str());
      _exit(10);
    }
    if (segments_of(getpid()) != 0) _exit(11);  // named while the job runs: a kill would leave it
    job->abort(3, "job_abort_cleanup: aborting on purpose");
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child) return 2;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 3) {
    std::printf("job_abort_cleanup: FAIL (child status %d)\n", status);
    return 1;
  }
  const int left = segments_of(child);
  if (left != 0) {
    std::printf("job_abort_cleanup: FAIL (%d segment(s) of the aborted job left in /dev/shm)\n", left);
    return 1;
  }
  std::printf("job_abort_cleanup: PASS\n");
  return 0;
}
