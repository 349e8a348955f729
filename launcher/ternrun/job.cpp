#include "ternrun/job.hpp"

#include <cctype>
#include <cstdio>

namespace tern::launcher {
namespace {

std::string_view name_of(std::string_view entry) { return entry.substr(0, entry.find('=')); }

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

}  // namespace

std::string make_namespace(long pid, std::uint32_t salt) {
  char text[64];
  std::snprintf(text, sizeof(text), "ternrun-%ld-%06x", pid, static_cast<unsigned>(salt & 0xffffff));
  return text;
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
  return env;
}

}  // namespace tern::launcher
