// What a job leaves on the machine, and its removal: ternrun's private
// temporary directory (PMIx rendezvous files) and the job's shared-memory
// segments, which ranks that crashed could not unlink.
#pragma once

#include <string>

namespace tern::launcher {

class TempDir {
 public:
  TempDir() = default;
  ~TempDir();  // removes the directory and everything in it
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Makes a new directory only this user can enter, under $TMPDIR (or /tmp).
  [[nodiscard]] bool create(std::string& error);
  void remove();

  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

// Unlinks /dev/shm/tern-<job_id>-*; returns how many.
unsigned remove_job_segments(const std::string& job_id);

// Starts a process, outside ternrun's process tree and session, that waits
// for ternrun to end however it ends (SIGKILL included) and then removes
// `temp_dir` and the job's segments, which a killed ternrun cannot. Call it
// before any thread starts and before adopt_orphans(). False (and `error`)
// if it could not start; ternrun then cleans up only when it ends itself.
bool start_sweeper(const std::string& temp_dir, const std::string& job_id, std::string& error);

// Makes ternrun the reaper of every process its ranks leave behind (a rank's
// child that outlives the rank, even one that left the job's process group
// with setsid), so end_children() can find them.
void adopt_orphans();

// SIGKILLs and reaps every child ternrun still has, until none is left;
// returns how many there were.
unsigned end_children();

}  // namespace tern::launcher
