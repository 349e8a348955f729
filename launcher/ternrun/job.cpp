#include "ternrun/job.hpp"

#include <sys/random.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <string>
#include <string_view>

namespace tern::launcher {
namespace {

std::string_view name_of(std::string_view entry) { return entry.substr(0, entry.find('=')); }

// What follows the first '=' of a NAME=value entry.
std::string_view value_of(std::string_view entry) {
  const std::size_t equals = entry.find('=');
  return equals == std::string_view::npos ? std::string_view() : entry.substr(equals + 1);
}

void set_variable(std::vector<std::string>& env, std::string_view name, std::string_view value) {
  std::string entry = std::string(name) + "=" + std::string(value);
  for (std::string& existing : env) {
    if (name_of(existing) == name) {
      existing = std::move(entry);
      return;
    }
  }
  env.push_back(std::move(entry));
}

const std::string* find_variable(const std::vector<std::string>& env, std::string_view name) {
  for (const std::string& entry : env) {
    if (name_of(entry) == name) return &entry;
  }
  return nullptr;
}

// Variables an outer PMIx server (Slurm, another mpirun) set for ternrun
// itself; handed down, they would point a rank at the wrong server or job.
bool from_outer_server(std::string_view name) {
  return name.starts_with("PMIX_") && !name.starts_with("PMIX_MCA_");
}

// Adds `tunable`=`value` to GLIBC_TUNABLES, unless the list already sets
// that tunable: then the user's value stands.
void add_glibc_tunable(std::vector<std::string>& env, std::string_view tunable, std::string_view value) {
  const std::string setting = std::string(tunable) + "=" + std::string(value);
  const std::string* existing = find_variable(env, "GLIBC_TUNABLES");
  if (existing == nullptr) {
    set_variable(env, "GLIBC_TUNABLES", setting);
    return;
  }
  const std::string_view list = value_of(*existing);
  for (std::string_view rest = list; !rest.empty();) {
    const std::size_t colon = rest.find(':');
    if (name_of(rest.substr(0, colon)) == tunable) return;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  set_variable(env, "GLIBC_TUNABLES", list.empty() ? setting : std::string(list) + ":" + setting);
}

// With huge pages, what malloc keeps of freed memory (bytes): blocks below
// the first come from the heap, which gives memory back beyond the second.
constexpr const char* kKeptMallocBlock = "33554432";   // 32 MiB, glibc's largest
constexpr const char* kKeptMallocTop = "134217728";    // 128 MiB

// TERN_MALLOC_HUGEPAGES takes the words of every Tern switch (the runtime's
// configuration checks them again in each rank); ternrun reads this one
// itself, as it does not link the runtime.
enum class HugepageChoice { Auto, On, Off, Invalid };
HugepageChoice parse_hugepage_choice(std::string_view text) {
  if (text == "auto") return HugepageChoice::Auto;
  if (text == "on" || text == "yes" || text == "1") return HugepageChoice::On;
  if (text == "off" || text == "no" || text == "0") return HugepageChoice::Off;
  return HugepageChoice::Invalid;
}

}  // namespace

bool kernel_offers_transparent_hugepages() {
  std::FILE* file = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (file == nullptr) return false;
  char text[128] = {};
  const bool read = std::fgets(text, sizeof(text), file) != nullptr;
  std::fclose(file);
  const std::string_view mode(text);
  return read && (mode.find("[always]") != std::string_view::npos || mode.find("[madvise]") != std::string_view::npos);
}

std::string make_namespace(long pid, std::string_view secret) {
  return "ternrun-" + std::to_string(pid) + "-" + std::string(secret);
}

std::string make_job_id(long pid, std::uint32_t salt) {
  char text[64];
  std::snprintf(text, sizeof(text), "ternrun-%ld-%06x", pid, static_cast<unsigned>(salt & 0xffffff));
  return text;
}

std::string random_hex(std::size_t bytes) {
  std::string bytes_in(bytes, '\0');
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t n = getrandom(bytes_in.data() + got, bytes - got, 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return {};
    }
    got += static_cast<std::size_t>(n);
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (char c : bytes_in) {
    hex += kDigits[(static_cast<unsigned char>(c) >> 4) & 0xf];
    hex += kDigits[static_cast<unsigned char>(c) & 0xf];
  }
  return hex;
}

std::string sanitize_job_id(std::string_view nspace) {
  std::string id(nspace);
  for (char& c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  return id;
}

std::string rank_list(unsigned size) {
  std::string list;
  for (unsigned rank = 0; rank < size; ++rank) {
    if (rank > 0) list += ',';
    list += std::to_string(rank);
  }
  return list;
}

namespace {
// Progress polls before an oversubscribed rank stops spinning (dedicated
// cores: 20000); it then yields the core a few times and sleeps. Measured
// with osu_multi_lat -m 4:4 -i 100000, 4 ranks on 2 cores, wall time: 100
// polls 0.28-0.30 s in 5 of 5 runs; 200 and 500 polls now and then 2-3 s (a
// rank spinning through its partner's time slice); sleeping at once 1.2 s;
// Open MPI ob1 1.7 s.
constexpr const char* kOversubscribedSpinCount = "100";
}  // namespace

std::vector<std::string> rank_environment(const char* const* base, const Options& options, const Job& job,
                                          std::vector<std::string>& warnings) {
  std::vector<std::string> env;
  std::vector<std::string> inherited;
  for (const char* const* entry = base; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    if (text.find('=') == std::string_view::npos) continue;
    inherited.emplace_back(text);
    if (!from_outer_server(name_of(text))) env.emplace_back(text);
  }
  bool wait_mode_exported = false;
  for (const EnvExport& item : options.exports) {
    if (item.name == "TERN_WAIT_MODE" || item.name == "TERN_SPIN_COUNT") wait_mode_exported = true;
    if (item.value) {
      set_variable(env, item.name, *item.value);
    } else if (const std::string* own = find_variable(inherited, item.name)) {
      // Also brings back a PMIX_* variable the user asked for by name.
      set_variable(env, item.name, std::string_view(*own).substr(item.name.size() + 1));
    } else {
      warnings.push_back("-x " + item.name + ": not set in ternrun's environment, nothing to pass on");
    }
  }
  set_variable(env, "TERN_JOB_ID", job.id);
  if (job.oversubscribed && !wait_mode_exported) {
    // Ranks sharing cores spin briefly, yield, then sleep: a pair that is
    // talking keeps the cores while the others sleep, where sleeping at once
    // pays a wakeup per message.
    set_variable(env, "TERN_WAIT_MODE", "adaptive");
    set_variable(env, "TERN_SPIN_COUNT", kOversubscribedSpinCount);
  }
  // Huge pages under the ranks' large malloc blocks: a CMA call pins and
  // copies a 2 MiB page at a time instead of 512 small ones. osu_bibw 512 KiB
  // 33 -> 66 GB/s, osu_latency 1 MiB 49 -> 19.5 us on a 2-core VM.
  HugepageChoice hugepages = HugepageChoice::Auto;
  if (const std::string* setting = find_variable(env, "TERN_MALLOC_HUGEPAGES")) {
    const std::string_view value = value_of(*setting);
    hugepages = parse_hugepage_choice(value);
    if (hugepages == HugepageChoice::Invalid) {
      warnings.push_back("TERN_MALLOC_HUGEPAGES=" + std::string(value) + ": not auto, on or off; the ranks will refuse it");
    }
  }
  if (hugepages == HugepageChoice::On || (hugepages == HugepageChoice::Auto && job.transparent_hugepages)) {
    add_glibc_tunable(env, "glibc.malloc.hugetlb", "1");
    // Freed large blocks stay with malloc for the next ones instead of
    // going back to the kernel (blocks up to 32 MiB from the heap, which is
    // trimmed only beyond 128 MiB free): a huge page comes back zeroed
    // whole, and a buffer of a few MiB freed and taken again at every call
    // (an MPI library's temporary of packed data, a program's own) spent
    // more time in the kernel's zeroing than in its copy (a 1 MiB vector
    // type's round trip 262-290 against 192-206 us).
    add_glibc_tunable(env, "glibc.malloc.mmap_threshold", kKeptMallocBlock);
    add_glibc_tunable(env, "glibc.malloc.trim_threshold", kKeptMallocTop);
  }
  return env;
}

}  // namespace tern::launcher
