// The control variables' types, categories and readers. A TERN_* variable
// missing from kTyped below still becomes a control variable: text, read
// from the environment (the configuration accepted it at start), in the
// "other" category.
#include "tool/cvar_table.hpp"

#include <cstdlib>
#include <string_view>

namespace tern::mpi::tool {
namespace {

using runtime::Config;

// MPI_T_enum handles: the position in kEnumerations plus one.
enum EnumHandle : MPI_T_enum { kSwitchEnum = 1, kLogLevelEnum, kWaitModeEnum, kProgressEnum, kBootstrapEnum };

const std::vector<Enumeration>& enumerations() {
  static const std::vector<Enumeration> kEnumerations = {
      {"tern_switch",
       {{static_cast<int>(runtime::Switch::Auto), "auto"},
        {static_cast<int>(runtime::Switch::On), "on"},
        {static_cast<int>(runtime::Switch::Off), "off"}}},
      {"tern_log_level",
       {{static_cast<int>(runtime::LogLevel::Error), "error"},
        {static_cast<int>(runtime::LogLevel::Warn), "warn"},
        {static_cast<int>(runtime::LogLevel::Info), "info"},
        {static_cast<int>(runtime::LogLevel::Debug), "debug"},
        {static_cast<int>(runtime::LogLevel::Trace), "trace"}}},
      {"tern_wait_mode",
       {{static_cast<int>(runtime::WaitMode::Spin), "spin"},
        {static_cast<int>(runtime::WaitMode::Block), "block"},
        {static_cast<int>(runtime::WaitMode::Adaptive), "adaptive"}}},
      {"tern_progress_mode",
       {{static_cast<int>(runtime::ProgressMode::Caller), "caller"},
        {static_cast<int>(runtime::ProgressMode::Thread), "thread"},
        {static_cast<int>(runtime::ProgressMode::ThreadBlocking), "thread-blocking"}}},
      {"tern_bootstrap_mode",
       {{static_cast<int>(runtime::BootstrapMode::Auto), "auto"},
        {static_cast<int>(runtime::BootstrapMode::Pmix), "pmix"},
        {static_cast<int>(runtime::BootstrapMode::Pmi), "pmi"},
        {static_cast<int>(runtime::BootstrapMode::Pmi1), "pmi1"},
        {static_cast<int>(runtime::BootstrapMode::Pmi2), "pmi2"},
        {static_cast<int>(runtime::BootstrapMode::Singleton), "singleton"}}},
  };
  return kEnumerations;
}

CvarValue number(unsigned long value) { return CvarValue{value, {}}; }
template <typename Enum>
CvarValue choice(Enum value) {
  return CvarValue{static_cast<unsigned long>(static_cast<int>(value)), {}};
}
CvarValue text(std::string value) { return CvarValue{0, std::move(value)}; }

struct Typed {
  const char* name;
  CvarKind kind;
  MPI_T_enum enumeration;
  const char* category;
  int verbosity;
  CvarValue (*read)(const Config&);
};

constexpr int kUser = MPI_T_VERBOSITY_USER_BASIC;
constexpr int kTuner = MPI_T_VERBOSITY_TUNER_BASIC;
constexpr int kTunerDetail = MPI_T_VERBOSITY_TUNER_DETAIL;
constexpr int kDeveloper = MPI_T_VERBOSITY_MPIDEV_BASIC;
constexpr CvarKind kSize = CvarKind::Size;
constexpr CvarKind kChoice = CvarKind::Choice;
constexpr CvarKind kText = CvarKind::Text;

const Typed kTyped[] = {
    {"TERN_LOG_LEVEL", kChoice, kLogLevelEnum, "logging", kUser, [](const Config& c) { return choice(c.log_level); }},
    {"TERN_TLS", kText, 0, "transports", kUser,
     [](const Config& c) { return text(c.transports.empty() ? "all" : c.transports); }},
    {"TERN_RNDV_THRESH", kSize, 0, "transports", kTuner, [](const Config& c) { return number(c.rndv_threshold); }},
    {"TERN_VERBS_EMULATION", kChoice, kSwitchEnum, "transports", kDeveloper,
     [](const Config& c) { return choice(c.verbs_emulation); }},
    {"TERN_SHM_CELL_SIZE", kSize, 0, "shared memory", kTunerDetail,
     [](const Config& c) { return number(c.shm_cell_size); }},
    {"TERN_SHM_FIFO_CELLS", kSize, 0, "shared memory", kTunerDetail,
     [](const Config& c) { return number(c.shm_fifo_cells); }},
    {"TERN_CMA", kChoice, kSwitchEnum, "shared memory", kTuner, [](const Config& c) { return choice(c.cma); }},
    {"TERN_CMA_CHUNK", kSize, 0, "shared memory", kTunerDetail, [](const Config& c) { return number(c.cma_chunk); }},
    {"TERN_CMA_SPLIT", kChoice, kSwitchEnum, "shared memory", kTuner,
     [](const Config& c) { return choice(c.cma_split); }},
    {"TERN_SHM_RINGS", kChoice, kSwitchEnum, "shared memory", kTunerDetail,
     [](const Config& c) { return choice(c.shm_rings); }},
    {"TERN_SHM_ARENA_SIZE", kSize, 0, "shared memory", kTunerDetail,
     [](const Config& c) { return number(c.shm_arena_size); }},
    {"TERN_COLL_SHM", kChoice, kSwitchEnum, "collectives", kTuner, [](const Config& c) { return choice(c.coll_shm); }},
    {"TERN_WIN_SHARE", kChoice, kSwitchEnum, "one-sided", kTuner, [](const Config& c) { return choice(c.win_share); }},
    {"TERN_TM_OFFLOAD", kChoice, kSwitchEnum, "tag matching", kTuner,
     [](const Config& c) { return choice(c.tm_offload); }},
    {"TERN_TM_THRESH", kSize, 0, "tag matching", kTunerDetail, [](const Config& c) { return number(c.tm_threshold); }},
    {"TERN_TM_THRESH_MAPPED", kSize, 0, "tag matching", kTunerDetail,
     [](const Config& c) { return number(c.tm_threshold_mapped); }},
    {"TERN_TM_CAPACITY", kSize, 0, "tag matching", kTunerDetail, [](const Config& c) { return number(c.tm_capacity); }},
    {"TERN_WAIT_MODE", kChoice, kWaitModeEnum, "progress", kTuner, [](const Config& c) { return choice(c.wait_mode); }},
    {"TERN_SPIN_COUNT", kSize, 0, "progress", kTunerDetail, [](const Config& c) { return number(c.spin_count); }},
    {"TERN_PROGRESS", kChoice, kProgressEnum, "progress", kUser, [](const Config& c) { return choice(c.progress); }},
    {"TERN_PROGRESS_CPUS", kText, 0, "progress", kTuner,
     [](const Config& c) {
       return text(c.progress_cpus.empty() ? "none" : runtime::format_cpu_list(c.progress_cpus));
     }},
    {"TERN_DELAYED_SUBMISSION", kChoice, kSwitchEnum, "progress", kTunerDetail,
     [](const Config& c) { return choice(c.delayed_submission); }},
    {"TERN_CRITICAL_TAGS", kText, 0, "progress agent", kTuner,
     [](const Config& c) { return text(c.critical_tags.empty() ? "none" : c.critical_tags.to_string()); }},
    {"TERN_AGENT_MEMORY", kSize, 0, "progress agent", kTunerDetail,
     [](const Config& c) { return number(c.agent_memory); }},
    {"TERN_AGENT", kChoice, kSwitchEnum, "progress agent", kTuner, [](const Config& c) { return choice(c.agent); }},
    {"TERN_AGENT_RELAY", kChoice, kSwitchEnum, "progress agent", kTunerDetail,
     [](const Config& c) { return choice(c.agent_relay); }},
    {"TERN_TCP_IF", kText, 0, "tcp", kUser, [](const Config& c) { return text(c.tcp_interfaces); }},
    {"TERN_TCP_RNDV_THRESH", kSize, 0, "tcp", kTunerDetail,
     [](const Config& c) { return number(c.tcp_rndv_threshold); }},
    {"TERN_TCP_FRAG_SIZE", kSize, 0, "tcp", kTunerDetail, [](const Config& c) { return number(c.tcp_fragment_size); }},
    {"TERN_TCP_SNDBUF", kSize, 0, "tcp", kTunerDetail, [](const Config& c) { return number(c.tcp_sndbuf); }},
    {"TERN_TCP_RCVBUF", kSize, 0, "tcp", kTunerDetail, [](const Config& c) { return number(c.tcp_rcvbuf); }},
    {"TERN_TCP_NODELAY", kChoice, kSwitchEnum, "tcp", kTunerDetail,
     [](const Config& c) { return choice(c.tcp_nodelay); }},
    {"TERN_BOOTSTRAP", kChoice, kBootstrapEnum, "bootstrap", kUser,
     [](const Config& c) { return choice(c.bootstrap); }},
    {"TERN_BOOTSTRAP_TIMEOUT", CvarKind::Seconds, 0, "bootstrap", kTuner,
     [](const Config& c) { return number(c.bootstrap_timeout); }},
    {"TERN_MALLOC_HUGEPAGES", kChoice, kSwitchEnum, "bootstrap", kTuner,
     [](const Config& c) { return choice(c.malloc_hugepages); }},
};

std::vector<Cvar> make_cvars() {
  std::vector<Cvar> out;
  for (const runtime::ConfigVariable& variable : runtime::config_variables()) {
    Cvar cvar{&variable, CvarKind::Text, MPI_T_ENUM_NULL, "other", MPI_T_VERBOSITY_TUNER_DETAIL, {}, nullptr};
    for (const Typed& typed : kTyped) {
      if (std::string_view(typed.name) != variable.name) continue;
      cvar.kind = typed.kind;
      cvar.enumeration = typed.enumeration;
      cvar.category = typed.category;
      cvar.verbosity = typed.verbosity;
      cvar.read = typed.read;
      break;
    }
    cvar.description = std::string(variable.meaning) + " Accepted: " + variable.accepted +
                       ". Default: " + variable.default_value + ".";
    out.push_back(std::move(cvar));
  }
  return out;
}

}  // namespace

const std::vector<Cvar>& cvars() {
  static const std::vector<Cvar> kCvars = make_cvars();
  return kCvars;
}

const Enumeration* find_enumeration(MPI_T_enum handle) {
  const auto& all = enumerations();
  if (handle < 1 || static_cast<std::size_t>(handle) > all.size()) return nullptr;
  return &all[static_cast<std::size_t>(handle) - 1];
}

MPI_Datatype datatype_of(CvarKind kind) {
  switch (kind) {
    case CvarKind::Size: return MPI_UNSIGNED_LONG;
    case CvarKind::Seconds: return MPI_UNSIGNED;
    case CvarKind::Choice: return MPI_INT;
    case CvarKind::Text: break;
  }
  return MPI_CHAR;
}

CvarValue read_cvar(const Cvar& cvar) {
  if (cvar.read != nullptr) return cvar.read(runtime::global_config());
  // The environment's text, or the default: global_config() has validated
  // it (a bad value ends the process there, as at MPI_Init).
  (void)runtime::global_config();
  const char* value = std::getenv(cvar.variable->name);
  return text(value != nullptr && *value != '\0' ? value : cvar.variable->default_value);
}

}  // namespace tern::mpi::tool
