#include "tern/runtime/config.hpp"

#include "tern/runtime/compiler.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>

namespace tern::runtime {
namespace {

constexpr ConfigVariable kVariables[] = {
    {"TERN_LOG_LEVEL", "warn", "error|warn|info|debug|trace", "How much Tern writes to stderr."},
    {"TERN_RNDV_THRESH", "auto", "size (e.g. 16384, 32K) or auto",
     "Messages at least this long use the rendezvous protocol (zero copy) where the transport can. auto: the "
     "transport's defaults (shm: 128K, up to 512K by measured cost while the peer's FIFO is all but empty)."},
    {"TERN_SHM_CELL_SIZE", "20K", "size, a multiple of 64, 256..64K",
     "Bytes per shared-memory FIFO cell; a message up to this size (less headers) goes in one cell. "
     "20K: a 16 KiB message with its headers, and every cell starts at the same place in a page."},
    {"TERN_SHM_FIFO_CELLS", "auto", "power of two, 8..65536, or auto",
     "Cells in each process's receive FIFO. auto: 64, or 128 with 8 or more ranks on the node."},
    {"TERN_CMA", "auto", "auto|on|off",
     "Cross-memory attach (process_vm_readv) for zero copy on a node. auto: use it where the kernel allows; "
     "on: a refusal is an error; off: copy through the FIFO."},
    {"TERN_CMA_CHUNK", "4M", "size, at least 4K", "Bytes one CMA call moves before the engine returns to progress."},
    {"TERN_CMA_SPLIT", "auto", "auto|on|off",
     "Large messages on a node: the sender copies part of the data itself (process_vm_writev) while the "
     "receiver copies the rest, two cores at once. off: the receiver copies it all."},
    {"TERN_COLL_SHM", "auto", "auto|on|off",
     "MPI collectives (barrier, broadcast, reduce, allreduce, allgather, alltoall) of a communicator whose ranks share "
     "one host go through a segment they all map, by flags and copies. auto: where measured to pay (not "
     "a 2-rank allreduce of 4 KiB to 512 KiB); on: wherever they can; off: by messages."},
    {"TERN_WIN_SHARE", "auto", "auto|on|off",
     "MPI_Win_create windows of whole pages (base and size page aligned) whose ranks share one host: each "
     "rank's memory is made shareable in place (same addresses and contents) so that origins reach it directly, "
     "as MPI_Win_allocate's (memory from MPI_Alloc_mem, which peers map already, at any alignment). auto: under "
     "MPI_THREAD_SINGLE without a progress thread; on: under any thread level (no other thread may write the "
     "window while MPI_Win_create and MPI_Win_free run); off: the targets serve MPI_Win_create windows."},
    {"TERN_SHM_RINGS", "auto", "auto|on|off",
     "Messages of up to 16 bytes on a node go through a ring per sender, two to a cache line, instead of one "
     "FIFO cell each. off: every message through the FIFO."},
    {"TERN_TM_OFFLOAD", "auto", "auto|on|off",
     "Tag-matching offload: posted receives go to a device that matches arriving messages against them and "
     "delivers straight into the receive buffer. On a node the device is shared memory: a local sender finds "
     "the receive itself and writes the data into it (CMA), so the data lands while the receiver computes. "
     "auto: where the device exists (shm with CMA); on: also the HCA's tag matching of the verbs transport "
     "(sends of one fragment); off: matching in software only."},
    {"TERN_TM_THRESH", "512K", "size", "Receives of at least this many bytes go to the tag-matching device, and "
     "sends of at least this many bytes look for one there."},
    {"TERN_TM_THRESH_MAPPED", "4K", "size",
     "The same threshold for receive buffers that local peers map (MPI_Alloc_mem, Worker::mem_alloc): a local "
     "sender fills those with a plain copy, no system call, so smaller messages pay."},
    {"TERN_TM_CAPACITY", "64", "0..64", "Receives the tag-matching device holds at once (0: none)."},
    {"TERN_SHM_ARENA_SIZE", "16G", "size; 0 turns the arena off",
     "Address space reserved for memory from Worker::mem_alloc, which local peers map and copy from "
     "directly (pages are used only when touched)."},
    {"TERN_WAIT_MODE", "adaptive", "spin|block|adaptive",
     "How blocking calls wait: spin on progress, sleep on the wakeup fd, or spin then sleep."},
    {"TERN_SPIN_COUNT", "20000", "integer", "Progress polls before an adaptive wait goes to sleep."},
    {"TERN_PROGRESS", "caller", "caller|thread|thread-blocking",
     "Who progresses communication. caller: only the program's own Tern calls; thread: also a progress thread "
     "per worker that polls (a core's worth of CPU); thread-blocking: a progress thread that sleeps on the "
     "worker's wakeup fd between events (no CPU while idle). With a thread, messages move while the program "
     "computes. MPI also takes MPICH's MPIR_CVAR_ASYNC_PROGRESS=1 as thread-blocking."},
    {"TERN_PROGRESS_CPUS", "none", "CPU list such as 3 or 2-3,6, or none",
     "CPUs a progress thread (TERN_PROGRESS) is bound to. none: it runs where its process may. ternrun sets it, "
     "per rank, to a core no rank is bound to when there is one (--report-bindings shows it)."},
    {"TERN_DELAYED_SUBMISSION", "auto", "auto|on|off",
     "With a progress thread, the program's threads queue their sends and receives for it instead of taking the "
     "worker's lock, and their waits leave progress to it. auto: with a polling thread (TERN_PROGRESS=thread) "
     "in a thread-safe worker (MPI_THREAD_MULTIPLE) that has a core of its own (TERN_PROGRESS_CPUS, or two CPUs "
     "per local rank); on: with any progress thread; off: never."},
    {"TERN_TLS", "all", "comma list of self,shm,verbs,tcp", "Restricts which transports the engine may use."},
    {"TERN_TCP_IF", "auto", "comma list of interface names and IPv4 CIDR blocks, auto or none",
     "Interfaces the TCP transport listens and connects on (like Open MPI's btl_tcp_if_include). auto: every "
     "interface that is up, except loopback, which is used only when there is no other; none: no TCP."},
    {"TERN_TCP_RNDV_THRESH", "64K", "size", "TCP messages at least this long go by rendezvous: the receiver "
     "asks for the data once matched, and it moves from the sender's buffer to the receiver's with no copy in "
     "between. TERN_RNDV_THRESH, when set, wins."},
    {"TERN_TCP_FRAG_SIZE", "64K", "size, 4K..16M", "Largest TCP active message: an eager message longer than this "
     "goes in fragments."},
    {"TERN_TCP_SNDBUF", "0", "size; 0: the kernel's default", "SO_SNDBUF of TCP connections (setting it turns "
     "the kernel's auto-tuning off)."},
    {"TERN_TCP_RCVBUF", "0", "size; 0: the kernel's default", "SO_RCVBUF of TCP connections (setting it turns "
     "the kernel's auto-tuning off)."},
    {"TERN_TCP_NODELAY", "on", "on|off", "TCP_NODELAY on TCP connections: small messages leave at once."},
    {"TERN_CRITICAL_TAGS", "none", "tag list such as 5,7-9 (tags up to 8388607), or none",
     "Critical tags (smart progression): an MPI send of one of these tags to a rank on this host, large enough "
     "to go by rendezvous, is held: its data is copied into memory the receiver maps, the send completes at "
     "once, and the receiver copies the data out when its receive matches. Per communicator: the "
     "tern_critical_tags hint of MPI_Comm_set_info."},
    {"TERN_AGENT_MEMORY", "256M", "size", "Bytes of held sends (TERN_CRITICAL_TAGS) a process keeps at once; "
     "beyond it, critical sends go the ordinary way."},
    {"TERN_AGENT", "auto", "auto|on|off",
     "The progress agent: in a job over several hosts, a process per host (started by its first rank) that "
     "carries critical sends (TERN_CRITICAL_TAGS, the tern_critical_tags hint) to ranks on other hosts while "
     "both sides compute. auto: when TERN_CRITICAL_TAGS names tags; on: in every job over several hosts; off: "
     "never (critical sends to other hosts go the ordinary way)."},
    {"TERN_AGENT_RELAY", "off", "on|off (auto: off)",
     "With progress agents: the sender's agent passes a held message on to the agent of the receiver's host, "
     "which keeps it in memory the receiver maps until the receive comes (one memcpy then, where otherwise the "
     "receiver fetches it across the network). For hosts whose agents have cores of their own: where agents "
     "share the ranks' cores it costs the receiver more than it saves (docs/perf/progress.md)."},
    {"TERN_VERBS_EMULATION", "off", "on|off", "A test facility: the verbs transport runs on an emulated RDMA "
     "device inside the process (only ifaces of the same process reach each other) instead of libibverbs."},
    {"TERN_BOOTSTRAP", "auto", "auto|pmix|pmi|pmi1|pmi2|singleton",
     "How a process finds its job. auto: PMIx when a PMIx launcher started it, PMI-2 (or PMI-1) when a PMI "
     "launcher did (MPICH's mpirun, srun --mpi=pmi2), a job of one when no launcher is in sight, and an error "
     "naming the launcher seen when it speaks neither; pmix: fail unless a PMIx launcher started it; pmi: fail "
     "unless a PMI launcher did (pmi1, pmi2: with that wire version only); singleton: a job of one even under a "
     "launcher."},
    {"TERN_BOOTSTRAP_TIMEOUT", "60", "seconds, 0..86400 (0: no limit)",
     "How long PMIx_Init (or a PMI server's answer at start-up) may take before start-up fails with an error "
     "naming the unreachable server."},
    {"TERN_MALLOC_HUGEPAGES", "auto", "auto|on|off",
     "ternrun: the ranks' malloc backs its large blocks with transparent huge pages "
     "(GLIBC_TUNABLES=glibc.malloc.hugetlb=1), so that zero-copy transfers pin and copy 2 MiB pages instead of "
     "4 KiB ones. auto: where the kernel offers them to programs that ask (transparent_hugepage/enabled "
     "is always or madvise); a GLIBC_TUNABLES that already sets glibc.malloc.hugetlb wins."},
};

const char* default_lookup(const char* name) { return std::getenv(name); }

bool parse_switch(std::string_view text, Switch& out) {
  if (text == "auto") out = Switch::Auto;
  else if (text == "on" || text == "yes" || text == "1") out = Switch::On;
  else if (text == "off" || text == "no" || text == "0") out = Switch::Off;
  else return false;
  return true;
}

bool parse_log_level(std::string_view text, LogLevel& out) {
  static constexpr std::pair<std::string_view, LogLevel> kNames[] = {
      {"error", LogLevel::Error}, {"warn", LogLevel::Warn}, {"info", LogLevel::Info},
      {"debug", LogLevel::Debug}, {"trace", LogLevel::Trace}};
  for (const auto& [name, level] : kNames) {
    if (text == name) {
      out = level;
      return true;
    }
  }
  return false;
}

bool parse_wait_mode(std::string_view text, WaitMode& out) {
  if (text == "spin") out = WaitMode::Spin;
  else if (text == "block") out = WaitMode::Block;
  else if (text == "adaptive") out = WaitMode::Adaptive;
  else return false;
  return true;
}

}  // namespace

bool parse_cpu_list(std::string_view text, std::vector<unsigned>& out) {
  NumberRanges ranges;
  if (!parse_number_ranges(text, kMaxCpuNumber - 1, ranges)) return false;
  out.clear();
  for (const auto& [first, last] : ranges) {
    for (unsigned cpu = first; cpu <= last; ++cpu) out.push_back(cpu);
  }
  return true;
}

std::string format_cpu_list(const std::vector<unsigned>& cpus) {
  NumberRanges ranges;
  for (unsigned cpu : cpus) {
    if (!ranges.empty() && ranges.back().second + 1 == cpu) {
      ranges.back().second = cpu;
    } else {
      ranges.emplace_back(cpu, cpu);
    }
  }
  return format_number_ranges(ranges);
}

bool parse_progress_mode(std::string_view text, ProgressMode& out) noexcept {
  if (text == "caller") out = ProgressMode::Caller;
  else if (text == "thread") out = ProgressMode::Thread;
  else if (text == "thread-blocking") out = ProgressMode::ThreadBlocking;
  else return false;
  return true;
}

const char* to_string(ProgressMode mode) noexcept {
  switch (mode) {
    case ProgressMode::Thread: return "thread";
    case ProgressMode::ThreadBlocking: return "thread-blocking";
    case ProgressMode::Caller: break;
  }
  return "caller";
}

namespace {

bool parse_bootstrap(std::string_view text, BootstrapMode& out) {
  if (text == "auto") out = BootstrapMode::Auto;
  else if (text == "pmix") out = BootstrapMode::Pmix;
  else if (text == "pmi") out = BootstrapMode::Pmi;
  else if (text == "pmi1") out = BootstrapMode::Pmi1;
  else if (text == "pmi2") out = BootstrapMode::Pmi2;
  else if (text == "singleton") out = BootstrapMode::Singleton;
  else return false;
  return true;
}

// Plain decimal seconds: "1m" or "1K" would be read as something else.
bool parse_seconds(std::string_view text, unsigned& out) {
  if (text.empty() || text.size() > 5) return false;
  unsigned value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value > 86400) return false;
  out = value;
  return true;
}

const ConfigVariable& variable(std::string_view name) {
  for (const auto& var : kVariables) {
    if (name == var.name) return var;
  }
  std::abort();  // a name missing from kVariables is a programming error
}

}  // namespace

std::span<const ConfigVariable> config_variables() noexcept { return kVariables; }

bool parse_size(const char* text, std::size_t& out) noexcept {
  // strtoull would skip leading blanks and accept a sign (" -1" wraps to a huge
  // value), so the text must start with a digit.
  if (text == nullptr || *text < '0' || *text > '9') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text) return false;
  unsigned shift = 0;
  switch (*end) {
    case '\0': case 'b': case 'B': break;  // "512B" as well as "2KB"
    case 'k': case 'K': shift = 10; ++end; break;
    case 'm': case 'M': shift = 20; ++end; break;
    case 'g': case 'G': shift = 30; ++end; break;
    default: return false;
  }
  if (*end == 'B' || *end == 'b') ++end;
  if (*end != '\0') return false;
  if (shift != 0 && value > (~0ULL >> shift)) return false;
  out = static_cast<std::size_t>(value << shift);
  return true;
}

Status load_config(Config& out, std::string& error, const EnvLookup& lookup_fn) {
  auto lookup = [&](const char* name) -> const char* {
    const char* value = lookup_fn ? lookup_fn(name) : default_lookup(name);
    return (value != nullptr && *value != '\0') ? value : nullptr;
  };
  auto reject = [&](const char* name, const char* value) {
    const ConfigVariable& var = variable(name);
    error = std::string("invalid value '") + value + "' for " + name + ": accepted values are " + var.accepted;
    return Status::InvalidParam;
  };
  Config config;

  if (const char* v = lookup("TERN_LOG_LEVEL"); v && !parse_log_level(v, config.log_level))
    return reject("TERN_LOG_LEVEL", v);
  if (const char* v = lookup("TERN_RNDV_THRESH"); v && std::strcmp(v, "auto") != 0 &&
                                                  !parse_size(v, config.rndv_threshold))
    return reject("TERN_RNDV_THRESH", v);
  if (const char* v = lookup("TERN_SHM_CELL_SIZE")) {
    if (!parse_size(v, config.shm_cell_size) || config.shm_cell_size % 64 != 0 ||
        config.shm_cell_size < 256 || config.shm_cell_size > 65536)
      return reject("TERN_SHM_CELL_SIZE", v);
  }
  if (const char* v = lookup("TERN_SHM_FIFO_CELLS"); v && std::strcmp(v, "auto") != 0) {
    if (!parse_size(v, config.shm_fifo_cells) || !tern::is_pow2(config.shm_fifo_cells) ||
        config.shm_fifo_cells < 8 || config.shm_fifo_cells > 65536)
      return reject("TERN_SHM_FIFO_CELLS", v);
  }
  if (const char* v = lookup("TERN_CMA"); v && !parse_switch(v, config.cma)) return reject("TERN_CMA", v);
  if (const char* v = lookup("TERN_CMA_CHUNK")) {
    if (!parse_size(v, config.cma_chunk) || config.cma_chunk < 4096) return reject("TERN_CMA_CHUNK", v);
  }
  if (const char* v = lookup("TERN_CMA_SPLIT"); v && !parse_switch(v, config.cma_split))
    return reject("TERN_CMA_SPLIT", v);
  if (const char* v = lookup("TERN_COLL_SHM"); v && !parse_switch(v, config.coll_shm))
    return reject("TERN_COLL_SHM", v);
  if (const char* v = lookup("TERN_WIN_SHARE"); v && !parse_switch(v, config.win_share))
    return reject("TERN_WIN_SHARE", v);
  if (const char* v = lookup("TERN_SHM_RINGS"); v && !parse_switch(v, config.shm_rings))
    return reject("TERN_SHM_RINGS", v);
  if (const char* v = lookup("TERN_TM_OFFLOAD"); v && !parse_switch(v, config.tm_offload))
    return reject("TERN_TM_OFFLOAD", v);
  if (const char* v = lookup("TERN_TM_THRESH"); v && !parse_size(v, config.tm_threshold))
    return reject("TERN_TM_THRESH", v);
  if (const char* v = lookup("TERN_TM_THRESH_MAPPED"); v && !parse_size(v, config.tm_threshold_mapped))
    return reject("TERN_TM_THRESH_MAPPED", v);
  if (const char* v = lookup("TERN_TM_CAPACITY")) {
    if (!parse_size(v, config.tm_capacity) || config.tm_capacity > 64) return reject("TERN_TM_CAPACITY", v);
  }
  if (const char* v = lookup("TERN_SHM_ARENA_SIZE"); v && !parse_size(v, config.shm_arena_size))
    return reject("TERN_SHM_ARENA_SIZE", v);
  if (const char* v = lookup("TERN_WAIT_MODE"); v && !parse_wait_mode(v, config.wait_mode))
    return reject("TERN_WAIT_MODE", v);
  if (const char* v = lookup("TERN_SPIN_COUNT"); v && !parse_size(v, config.spin_count))
    return reject("TERN_SPIN_COUNT", v);
  if (const char* v = lookup("TERN_PROGRESS"); v && !parse_progress_mode(v, config.progress))
    return reject("TERN_PROGRESS", v);
  if (const char* v = lookup("TERN_DELAYED_SUBMISSION"); v && !parse_switch(v, config.delayed_submission))
    return reject("TERN_DELAYED_SUBMISSION", v);
  if (const char* v = lookup("TERN_PROGRESS_CPUS")) {
    if (std::string_view(v) == "none" || *v == '\0') {
      config.progress_cpus.clear();
    } else if (!parse_cpu_list(v, config.progress_cpus)) {
      return reject("TERN_PROGRESS_CPUS", v);
    }
  }
  if (const char* v = lookup("TERN_CRITICAL_TAGS"); v && !parse_tag_set(v, kMaxMpiTag, config.critical_tags))
    return reject("TERN_CRITICAL_TAGS", v);
  if (const char* v = lookup("TERN_AGENT_MEMORY"); v && !parse_size(v, config.agent_memory))
    return reject("TERN_AGENT_MEMORY", v);
  if (const char* v = lookup("TERN_AGENT"); v && !parse_switch(v, config.agent)) return reject("TERN_AGENT", v);
  if (const char* v = lookup("TERN_AGENT_RELAY"); v && !parse_switch(v, config.agent_relay))
    return reject("TERN_AGENT_RELAY", v);
  if (const char* v = lookup("TERN_TLS")) {
    // Every item must name a transport: "shm," or "self,,shm" are typos, not lists.
    std::string_view list(v);
    bool all = false;
    for (;;) {
      auto comma = list.find(',');
      auto item = list.substr(0, comma);
      if (item == "all") all = true;
      else if (item != "self" && item != "shm" && item != "verbs" && item != "tcp") return reject("TERN_TLS", v);
      if (comma == std::string_view::npos) break;
      list = list.substr(comma + 1);
    }
    // "all" anywhere means no restriction, which Config spells as empty.
    if (!all) config.transports = v;
  }
  if (const char* v = lookup("TERN_BOOTSTRAP"); v && !parse_bootstrap(v, config.bootstrap))
    return reject("TERN_BOOTSTRAP", v);
  if (const char* v = lookup("TERN_BOOTSTRAP_TIMEOUT"); v && !parse_seconds(v, config.bootstrap_timeout))
    return reject("TERN_BOOTSTRAP_TIMEOUT", v);
  if (const char* v = lookup("TERN_MALLOC_HUGEPAGES"); v && !parse_switch(v, config.malloc_hugepages))
    return reject("TERN_MALLOC_HUGEPAGES", v);
  if (const char* v = lookup("TERN_TCP_IF")) config.tcp_interfaces = v;
  if (const char* v = lookup("TERN_TCP_RNDV_THRESH"); v && !parse_size(v, config.tcp_rndv_threshold))
    return reject("TERN_TCP_RNDV_THRESH", v);
  if (const char* v = lookup("TERN_TCP_FRAG_SIZE")) {
    if (!parse_size(v, config.tcp_fragment_size) || config.tcp_fragment_size < 4096 ||
        config.tcp_fragment_size > (16u << 20))
      return reject("TERN_TCP_FRAG_SIZE", v);
  }
  if (const char* v = lookup("TERN_TCP_SNDBUF"); v && !parse_size(v, config.tcp_sndbuf))
    return reject("TERN_TCP_SNDBUF", v);
  if (const char* v = lookup("TERN_TCP_RCVBUF"); v && !parse_size(v, config.tcp_rcvbuf))
    return reject("TERN_TCP_RCVBUF", v);
  if (const char* v = lookup("TERN_TCP_NODELAY"); v && !parse_switch(v, config.tcp_nodelay))
    return reject("TERN_TCP_NODELAY", v);
  if (const char* v = lookup("TERN_VERBS_EMULATION"); v && !parse_switch(v, config.verbs_emulation))
    return reject("TERN_VERBS_EMULATION", v);
  out = std::move(config);
  return Status::Ok;
}

const Config& global_config() {
  static Config config;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string error;
    if (load_config(config, error) != Status::Ok) {
      std::fprintf(stderr, "tern: %s\n", error.c_str());
      std::exit(1);
    }
    set_log_level(config.log_level);
  });
  return config;
}

}  // namespace tern::runtime
