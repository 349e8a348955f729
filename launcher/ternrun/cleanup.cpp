#include "ternrun/cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

namespace tern::launcher {

TempDir::~TempDir() { remove(); }

bool TempDir::create(std::string& error) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/ternrun.XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) {
    error = "cannot make a temporary directory " + pattern + ": " + std::strerror(errno);
    return false;
  }
  path_ = buffer.data();
  return true;
}

void TempDir::remove() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
  path_.clear();
}

unsigned remove_job_segments(const std::string& job_id) {
  // The engine names segments "/tern-<job>-<pid>-<n>"; the '-' after the id
  // keeps job "a" from sweeping job "ab".
  const std::string prefix = "tern-" + job_id + "-";
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return 0;
  unsigned removed = 0;
  while (dirent* entry = readdir(dir)) {
    if (std::strncmp(entry->d_name, prefix.c_str(), prefix.size()) != 0) continue;
    if (unlinkat(dirfd(dir), entry->d_name, 0) == 0) ++removed;
  }
  closedir(dir);
  return removed;
}

bool start_sweeper(const std::string& temp_dir, const std::string& job_id, std::string& error) {
  int alive[2];
  if (pipe2(alive, O_CLOEXEC) != 0) {
    error = std::string("cannot start the sweeper: pipe: ") + std::strerror(errno);
    return false;
  }
  const pid_t first = fork();
  if (first < 0) {
    error = std::string("cannot start the sweeper: fork: ") + std::strerror(errno);
    close(alive[0]);
    close(alive[1]);
    return false;
  }
  if (first == 0) {
    // A grandchild, so that ternrun never reaps or counts it: the middle
    // process exits at once and the sweeper goes to init (ternrun is not a
    // subreaper yet). Its own session keeps a signal to ternrun's process
    // group or terminal from reaching it.
    if (fork() != 0) _exit(0);
    setsid();
    const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
      if (null_fd >= 0) dup2(null_fd, fd);  // no hold on the caller's output pipes
    }
    // Every descriptor but the pipe's read end goes (no pipe of ternrun's
    // caller stays open for as long as the sweeper lives).
    const int keep = alive[0];
    for (int fd = 3; fd < 1024; ++fd) {
      if (fd != keep) close(fd);
    }
    char byte;
    // ternrun never writes: the read returns (0) when its last copy of the
    // write end closes, that is when ternrun has ended.
    while (read(keep, &byte, 1) < 0 && errno == EINTR) {
    }
    // Ranks die of their parent-death signal at the same moment; give a
    // dying one the time to stop before sweeping behind it.
    usleep(200 * 1000);
    remove_job_segments(job_id);
    std::error_code ignored;
    std::filesystem::remove_all(temp_dir, ignored);
    _exit(0);
  }
  close(alive[0]);
  while (waitpid(first, nullptr, 0) < 0 && errno == EINTR) {
  }
  // Kept open (close-on-exec, so no rank holds it) until ternrun ends.
  (void)alive[1];
  return true;
}

void adopt_orphans() { prctl(PR_SET_CHILD_SUBREAPER, 1); }

namespace {

// The processes whose parent is `parent`, from /proc (which needs no kernel
// option, unlike /proc/<pid>/task/<tid>/children).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> found;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return found;
  while (dirent* entry = readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    char path[64];
    std::snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    FILE* file = std::fopen(path, "r");
    if (file == nullptr) continue;
    char line[1024];
    bool read_line = std::fgets(line, sizeof(line), file) != nullptr;
    std::fclose(file);
    if (!read_line) continue;
    // "pid (command) state ppid ...": the command may hold spaces and ')'.
    const char* close = std::strrchr(line, ')');
    char state = 0;
    long ppid = 0;
    if (close != nullptr && std::sscanf(close + 1, " %c %ld", &state, &ppid) == 2 && ppid == parent) {
      found.push_back(static_cast<pid_t>(pid));
    }
  }
  closedir(proc);
  return found;
}

}  // namespace

unsigned end_children() {
  unsigned ended = 0;
  // Killing a child can hand its own children to ternrun, hence the rounds.
  for (int round = 0; round < 100; ++round) {
    std::vector<pid_t> children = children_of(getpid());
    if (children.empty()) break;
    for (pid_t child : children) kill(child, SIGKILL);
    for (pid_t child : children) {
      while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    ended += static_cast<unsigned>(children.size());
  }
  return ended;
}

}  // namespace tern::launcher
