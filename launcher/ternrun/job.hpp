// The job ternrun runs: its names and each rank's environment (before PMIx
// adds the variables that lead a client to this server).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ternrun/options.hpp"

namespace tern::launcher {

struct Job {
  std::string nspace;    // the PMIx namespace
  std::string id;        // TERN_JOB_ID: names the job's shared-memory segments, /dev/shm/tern-<id>-*
  std::string hostname;
  unsigned size = 0;
  bool oversubscribed = false;  // more ranks than cores
  // The kernel backs memory a program marks (madvise) with transparent huge
  // pages: /sys/kernel/mm/transparent_hugepage/enabled is always or madvise.
  bool transparent_hugepages = false;
};

// Reads the kernel's transparent huge page mode (the bracketed word of
// /sys/kernel/mm/transparent_hugepage/enabled): true for always or madvise.
[[nodiscard]] bool kernel_offers_transparent_hugepages();

// The job's PMIx namespace, "ternrun-<pid>-<secret>", which is also its
// password: the PMIx server accepts a client only for a registered namespace
// and rank, and the namespace reaches the ranks alone (their environment and
// ternrun's private directory); nothing visible to other users on the host
// (shm or socket names: see make_job_id) is made from it, so a stranger cannot
// claim a rank. `secret` comes from random_hex(16).
std::string make_namespace(long pid, std::string_view secret);

// The name of the job's shared resources, visible on the host (/dev/shm,
// abstract sockets): "ternrun-<pid>-<salt as 6 hex digits>", with no part of
// the namespace's secret. The salt keeps a reused pid of an earlier, crashed
// ternrun from sharing names with what that one left behind.
std::string make_job_id(long pid, std::uint32_t salt);

// `bytes` random bytes from the kernel, as hex digits (empty if none came).
std::string random_hex(std::size_t bytes);

// Letters, digits, '-' and '_' are kept, anything else becomes '_': the
// characters that are safe in shared-memory and socket names.
std::string sanitize_job_id(std::string_view nspace);

// "0,1,...,size-1": PMIX_LOCAL_PEERS, and the input of PMIx_generate_ppn.
std::string rank_list(unsigned size);

// The environment every rank starts with, as NAME=value strings: ternrun's own
// (`base`, a null-terminated array like environ) without the variables of an
// outer PMIx server (PMIX_*, but PMIX_MCA_* settings are kept), then the -x
// variables, TERN_JOB_ID, and for an oversubscribed job TERN_WAIT_MODE=adaptive
// with a short TERN_SPIN_COUNT, unless -x sets either. A -x without value whose variable ternrun does not have
// adds a line to `warnings`.
std::vector<std::string> rank_environment(const char* const* base, const Options& options, const Job& job,
                                          std::vector<std::string>& warnings);

}  // namespace tern::launcher
