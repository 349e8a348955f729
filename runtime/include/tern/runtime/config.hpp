// Every TERN_* environment variable is declared and parsed here, in one place,
// so that validation, defaults and documentation (tern_info) cannot drift apart.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tern/runtime/log.hpp"
#include "tern/runtime/number_ranges.hpp"
#include "tern/runtime/status.hpp"

namespace tern::runtime {

enum class Switch : int { Auto, On, Off };

// How a thread waits for communication: spin forever, sleep on the wakeup fd
// at once, or spin a while and then sleep (the default).
enum class WaitMode : int { Spin, Block, Adaptive };

// Who progresses a worker: only the threads that call into it (the default),
// or also a progress thread of the worker's own that polls, or one that
// sleeps on the wakeup fd between events (TERN_PROGRESS).
enum class ProgressMode : int { Caller, Thread, ThreadBlocking };

// Where a process learns its rank and peers: auto (PMIx when a PMIx server
// started the process, else PMI-2 or PMI-1 when a PMI server did, else a
// singleton when no launcher is in sight), PMIx only, PMI only (either wire
// version, or the one named), or a singleton even under a launcher
// (debugging one rank by hand).
enum class BootstrapMode : int { Auto, Pmix, Pmi, Pmi1, Pmi2, Singleton };

// PMIx_Init talks only to the server on this node, so a minute without an
// answer means the server named in the environment is gone or unreachable.
inline constexpr unsigned kDefaultBootstrapTimeout = 60;

struct Config {
  LogLevel log_level = LogLevel::Warn;
  std::size_t rndv_threshold = 0;      // 0 (auto): the transport's measured default
  std::size_t shm_cell_size = 20480;   // bytes per FIFO cell, header included; a multiple of 64
  std::size_t shm_fifo_cells = 0;      // cells per receive FIFO (power of two); 0 (auto): by ranks on the node
  Switch cma = Switch::Auto;           // zero copy through process_vm_readv/writev
  std::size_t cma_chunk = 4u << 20;    // bytes one CMA call moves before yielding to progress
  Switch cma_split = Switch::Auto;     // the sender of a large message copies part of it too
  Switch shm_rings = Switch::Auto;     // small messages through a ring per sender
  Switch coll_shm = Switch::Auto;      // MPI collectives of one-host communicators through a shared segment
  Switch win_share = Switch::Auto;     // MPI_Win_create memory shared in place on one host (direct windows)
  Switch tm_offload = Switch::Auto;    // posted receives to a tag-matching device (shm: local senders match)
  std::size_t tm_threshold = 512u << 10;  // receives (and sends) from this size use the device
  std::size_t tm_threshold_mapped = 4u << 10;  // the same for receive buffers local peers map
  std::size_t tm_capacity = 64;        // receives a device holds at once (shm: at most 64)
  std::size_t shm_arena_size = std::size_t{16} << 30;  // address space of the shared arena; 0: none
  WaitMode wait_mode = WaitMode::Adaptive;
  std::size_t spin_count = 20000;      // polls before an adaptive wait sleeps
  ProgressMode progress = ProgressMode::Caller;  // TERN_PROGRESS
  std::vector<unsigned> progress_cpus;  // TERN_PROGRESS_CPUS: where a progress thread runs; empty: with its process
  Switch delayed_submission = Switch::Auto;  // TERN_DELAYED_SUBMISSION: tag calls queued for the progress thread
  std::string transports;              // comma list restricting transports; empty: all
  BootstrapMode bootstrap = BootstrapMode::Auto;
  unsigned bootstrap_timeout = kDefaultBootstrapTimeout;  // seconds PMIx_Init (a PMI reply) may take; 0: no limit
  Switch malloc_hugepages = Switch::Auto;  // ternrun: ranks' malloc on transparent huge pages
  std::string tcp_interfaces = "auto";   // TERN_TCP_IF: names and CIDR blocks, auto or none
  std::size_t tcp_rndv_threshold = 64u << 10;  // TCP messages from this size go by rendezvous
  std::size_t tcp_fragment_size = 64u << 10;   // largest TCP active message (eager fragment)
  std::size_t tcp_sndbuf = 0;            // SO_SNDBUF; 0: the kernel's (auto-tuned)
  std::size_t tcp_rcvbuf = 0;            // SO_RCVBUF; 0: the kernel's (auto-tuned)
  Switch tcp_nodelay = Switch::On;       // TCP_NODELAY on every connection
  Switch verbs_emulation = Switch::Off;  // tests: the verbs transport on an in-process emulated device
  TagSet critical_tags;                 // TERN_CRITICAL_TAGS: MPI tags whose sends are held (smart progression)
  std::size_t agent_memory = std::size_t{256} << 20;  // TERN_AGENT_MEMORY: bytes of held sends at once
  Switch agent = Switch::Auto;          // TERN_AGENT: a progress agent per host in jobs over several hosts
  Switch agent_relay = Switch::Off;     // TERN_AGENT_RELAY: agents pass held messages on to the receiver's agent
};

// The largest tag Tern's MPI carries (its MPI_TAG_UB), which tag sets name.
inline constexpr unsigned kMaxMpiTag = (1u << 23) - 1;

struct ConfigVariable {
  const char* name;
  const char* default_value;
  const char* accepted;  // human readable set of accepted values
  const char* meaning;
};

// The table of variables, for tern_info and --help texts.
[[nodiscard]] std::span<const ConfigVariable> config_variables() noexcept;

using EnvLookup = std::function<const char*(const char* name)>;

// Reads every variable through `lookup` (getenv by default). On a bad value
// returns InvalidParam and sets `error` to a message naming the variable, the
// value and what is accepted. Unset variables keep their defaults.
[[nodiscard]] Status load_config(Config& out, std::string& error, const EnvLookup& lookup = {});

// The process-wide configuration, loaded on first use. A bad value is fatal:
// the message is printed and the process exits with status 1.
[[nodiscard]] const Config& global_config();

// "caller", "thread", "thread-blocking"; false for anything else.
[[nodiscard]] bool parse_progress_mode(std::string_view text, ProgressMode& out) noexcept;
[[nodiscard]] const char* to_string(ProgressMode mode) noexcept;

// Parses "4096", "64K", "8M", "1G" (binary multiples). False on junk or overflow.
[[nodiscard]] bool parse_size(const char* text, std::size_t& out) noexcept;

// Parses a CPU list: numbers and ranges joined by commas ("3", "2-3,6"),
// each below kMaxCpuNumber, into ascending distinct numbers. False on junk,
// an empty list, a reversed range or a number out of range.
inline constexpr unsigned kMaxCpuNumber = 1024;
[[nodiscard]] bool parse_cpu_list(std::string_view text, std::vector<unsigned>& out);
// The same list as text, ranges folded ("2-3,6").
[[nodiscard]] std::string format_cpu_list(const std::vector<unsigned>& cpus);

}  // namespace tern::runtime
