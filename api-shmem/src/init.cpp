// Library setup and teardown: bootstrap the job, map the symmetric heap,
// make the program's static data shareable in place, exchange the keys of
// both with the PEs of this node (and RMA keys with all PEs), and meet at a
// barrier.
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "state.hpp"
#include "tern/runtime/log.hpp"

namespace tern::shmem {

State* g_state = nullptr;

namespace {

constexpr std::size_t kDefaultHeapSize = std::size_t{256} << 20;
constexpr const char* kHeapKey = "tern.shmem.heap";
constexpr const char* kDataKey = "tern.shmem.data";

bool g_finalized = false;

std::size_t page_size() noexcept { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

// SHMEM_SYMMETRIC_SIZE (or the older SMA_SYMMETRIC_SIZE), with K/M/G suffixes.
std::size_t heap_size_from_environment() {
  for (const char* name : {"SHMEM_SYMMETRIC_SIZE", "SMA_SYMMETRIC_SIZE"}) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') continue;
    std::size_t size = 0;
    if (!runtime::parse_size(text, size) || size == 0) {
      std::fprintf(stderr,
                   "Tern OpenSHMEM: shmem_init: %s=\"%s\" is not a size (expected a positive number of bytes, "
                   "optionally with a K, M or G suffix)\n",
                   name, text);
      std::exit(1);
    }
    return size;
  }
  return kDefaultHeapSize;
}

// The main program's writable data (.data and .bss), page aligned, without
// the RELRO part the loader makes read-only after relocation.
struct DataRange {
  uintptr_t begin = 0;
  uintptr_t end = 0;
};

int find_program_data(dl_phdr_info* info, std::size_t, void* out) {
  auto* range = static_cast<DataRange*>(out);
  uintptr_t write_begin = 0, write_end = 0, relro_end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info->dlpi_phdr[i];
    const uintptr_t begin = info->dlpi_addr + header.p_vaddr;
    if (header.p_type == PT_LOAD && (header.p_flags & PF_W) != 0) {
      write_begin = begin;
      write_end = begin + header.p_memsz;
    } else if (header.p_type == PT_GNU_RELRO) {
      relro_end = begin + header.p_memsz;
    }
  }
  const uintptr_t page = page_size();
  const uintptr_t begin = std::max(write_begin, relro_end);
  range->begin = begin & ~(page - 1);
  range->end = (write_end + page - 1) & ~(page - 1);
  if (write_end == 0 || range->end <= range->begin) range->begin = range->end = 0;
  return 1;  // the first object is the program itself
}

[[noreturn]] void init_failed(State* s, const char* what) {
  std::fprintf(stderr, "Tern OpenSHMEM: shmem_init: %s\n", what);
  if (s != nullptr && s->job != nullptr) s->job->abort(1, what);
  std::exit(1);
}

void map_regions(State& s) {
  const std::size_t page = page_size();
  // Control block first: arrival counters for every slot and PE.
  const std::size_t words = kSlots * static_cast<std::size_t>(s.n_pes) + kSlots;
  s.mailbox_offset = (words * sizeof(uint64_t) + alignof(SharedCopyMailbox) - 1) & ~(alignof(SharedCopyMailbox) - 1);
  s.control_bytes = (s.mailbox_offset + sizeof(SharedCopyMailbox) + page - 1) & ~(page - 1);
  s.user_heap_offset = s.control_bytes;
  const std::size_t user_size = (heap_size_from_environment() + page - 1) & ~(page - 1);
  engine::MemMapParams heap;
  heap.length = s.control_bytes + user_size;
  heap.flags = engine::kMemAllocate;
  // Offsets are the same on every PE; aligned bases make an aligned offset
  // an aligned address everywhere (shmem_align).
  heap.alignment = std::clamp(std::bit_ceil(heap.length), kMinHeapAlignment, kMaxHeapAlignment);
  if (engine::MemRegion::map(heap, s.heap_region) != Status::Ok) {
    init_failed(&s, "cannot map the symmetric heap (see the log line above; SHMEM_SYMMETRIC_SIZE sets its size)");
  }
  s.heap_base = reinterpret_cast<uintptr_t>(s.heap_region->base());
  s.heap_alignment = heap.alignment;
  s.heap_size = s.heap_region->length();

  DataRange data;
  dl_iterate_phdr(find_program_data, &data);
  if (data.end > data.begin) {
    engine::MemMapParams shared;
    shared.address = reinterpret_cast<void*>(data.begin);
    shared.length = data.end - data.begin;
    shared.flags = engine::kMemShareExisting;
    if (const Status status = engine::MemRegion::map(shared, s.data_region); status != Status::Ok) {
      init_failed(&s, status == Status::Unsupported
                          ? "cannot make the program's static data symmetric: it is not all private writable memory"
                          : "cannot make the program's static data symmetric (see the log line above)");
    }
    s.data_base = data.begin;
    s.data_size = data.end - data.begin;
  }
}

// Whether the PEs of this node map each other's memory: not when TERN_TLS
// leaves shm out, so that the network path can be had (and tested) on one
// host.
bool map_local_peers() {
  const std::string& transports = runtime::global_config().transports;
  return transports.empty() || transports.find("shm") != std::string::npos;
}

// Publishes this PE's keys, maps the regions of every PE on this node and
// reaches the others over the network (net.hpp).
void exchange_keys(State& s) {
  runtime::Bootstrap& boot = s.job->bootstrap();
  const std::vector<std::byte> none;
  const auto& heap_key = s.heap_region->packed_key();
  const auto& data_key = s.data_region != nullptr ? s.data_region->packed_key() : none;
  net_publish(s);
  if (boot.put(kHeapKey, heap_key) != Status::Ok || boot.put(kDataKey, data_key) != Status::Ok ||
      boot.commit() != Status::Ok || boot.fence(true) != Status::Ok) {
    const std::string why = "exchanging symmetric memory keys failed: " + boot.last_error();
    init_failed(&s, why.c_str());
  }
  s.peers.assign(static_cast<std::size_t>(s.n_pes), PeerRegions{});
  s.peers[static_cast<std::size_t>(s.my_pe)] = {static_cast<std::byte*>(s.heap_region->base()),
                                                 reinterpret_cast<std::byte*>(s.data_base)};
  std::vector<std::byte> key;
  for (unsigned pe : boot.local_peers()) {
    if (static_cast<int>(pe) == s.my_pe || !map_local_peers()) continue;
    PeerRegions& peer = s.peers[pe];
    for (const char* name : {kHeapKey, kDataKey}) {
      if (boot.get(pe, name, key) != Status::Ok) {
        const std::string why = "cannot fetch PE " + std::to_string(pe) + "'s key: " + boot.last_error();
        init_failed(&s, why.c_str());
      }
      if (key.empty()) continue;  // a program without static data
      engine::RemoteKey* remote_key = nullptr;
      if (engine::RemoteKey::unpack(key, remote_key) != Status::Ok) break;  // stays unreachable
      s.remote_keys.push_back(remote_key);
      (name == kHeapKey ? peer.heap : peer.data) = remote_key->local_base();
    }
    if (peer.heap == nullptr) peer.data = nullptr;
  }
  net_connect(s);
}

void initialize(int requested, int* provided) {
  if (g_state != nullptr) {
    if (provided != nullptr) *provided = g_state->thread_level;
    return;
  }
  if (g_finalized) {
    std::fprintf(stderr, "Tern OpenSHMEM: shmem_init: the library cannot be initialized again after shmem_finalize\n");
    std::exit(1);
  }
  auto* s = new State;
  s->wait_mode = runtime::global_config().wait_mode;
  if (runtime::global_config().spin_count != 0) {
    s->spin_count = static_cast<unsigned>(std::min<std::size_t>(runtime::global_config().spin_count, 1u << 20));
  }
  s->thread_level = std::clamp(requested, SHMEM_THREAD_SINGLE, SHMEM_THREAD_MULTIPLE);
  std::string error;
  // params.progress is TERN_PROGRESS's: with a progress thread, remote PEs'
  // RMA over TCP is served while this PE computes outside the library.
  engine::WorkerParams params;
  params.thread_safe = s->thread_level == SHMEM_THREAD_MULTIPLE;
  if (engine::Job::create(s->job, error, params) != Status::Ok) {
    const std::string why = "starting the job failed: " + error;
    init_failed(s, why.c_str());
  }
  s->my_pe = static_cast<int>(s->job->rank());
  s->n_pes = static_cast<int>(s->job->size());
  s->consumed.assign(kSlots * static_cast<std::size_t>(s->n_pes), 0);
  map_regions(*s);
  exchange_keys(*s);
  heap_setup(*s);
  g_state = s;
  s->control = control_of(s->my_pe);
  setup_predefined_teams(*s);
  if (provided != nullptr) *provided = s->thread_level;
  // Programs of the start_pes era never call shmem_finalize.
  std::atexit(shmem_finalize);
  team_barrier(g_team_world);
}

}  // namespace

[[noreturn]] void fail(const char* function, const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  char line[700];
  const int pe = g_state != nullptr ? g_state->my_pe : -1;
  std::snprintf(line, sizeof(line), "Tern OpenSHMEM: PE %d: %s: %s", pe, function, message);
  // The job's abort prints the line (the launcher, or the singleton itself).
  if (g_state != nullptr && g_state->job != nullptr) g_state->job->abort(1, line);
  std::fprintf(stderr, "%s\n", line);
  std::exit(1);
}

[[noreturn]] void not_initialized(const char* function) {
  fail(function, "called %s shmem_init", g_finalized ? "after shmem_finalize, not between it and" : "before");
}

[[noreturn]] void bad_pe(const char* function, int pe) {
  fail(function, "PE %d is out of range (the job has PEs 0..%d)", pe, g_state != nullptr ? g_state->n_pes - 1 : 0);
}

[[noreturn]] void not_symmetric(const char* function, const void* address, std::size_t bytes) {
  // A range that starts inside a symmetric region is symmetric but too long.
  if (const State* s = g_state; s != nullptr) {
    const auto where = reinterpret_cast<uintptr_t>(address);
    if (where - s->heap_base < s->heap_size) {
      fail(function,
           "address %p (%zu bytes) is out of bounds: it starts in the symmetric heap, which ends %zu bytes after it "
           "(SHMEM_SYMMETRIC_SIZE sets the heap's size)",
           address, bytes, static_cast<std::size_t>(s->heap_base + s->heap_size - where));
    }
    if (where - s->data_base < s->data_size) {
      fail(function,
           "address %p (%zu bytes) is out of bounds: it starts in the program's global or static data, which ends "
           "%zu bytes after it",
           address, bytes, static_cast<std::size_t>(s->data_base + s->data_size - where));
    }
  }
  fail(function,
       "address %p (%zu bytes) is not symmetric: it is neither in the symmetric heap (shmem_malloc) nor in the "
       "program's global or static data",
       address, bytes);
}

[[noreturn]] void unreachable_pe(const char* function, int pe) {
  fail(function,
       "PE %d cannot be reached: its memory is not mapped here and no transport with RMA (tcp) reaches it "
       "(see the log for why)",
       pe);
}

std::byte* try_remote(const void* address, std::size_t bytes, int pe) noexcept {
  State* s = g_state;
  if (s == nullptr || static_cast<unsigned>(pe) >= static_cast<unsigned>(s->n_pes)) return nullptr;
  const SymmetricPlace place = locate(*s, address, bytes);
  if (place.region == Region::None) return nullptr;
  std::byte* base = region_base(s->peers[static_cast<std::size_t>(pe)], place.region);
  return base == nullptr ? nullptr : base + place.offset;
}

bool is_symmetric(const void* address, std::size_t bytes) noexcept {
  return g_state != nullptr && locate(*g_state, address, bytes).region != Region::None;
}

}  // namespace tern::shmem

using namespace tern::shmem;

extern "C" {

void shmem_init(void) { initialize(SHMEM_THREAD_SINGLE, nullptr); }

int shmem_init_thread(int requested, int* provided) {
  if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
    fail("shmem_init_thread", "requested thread level %d is not one of SHMEM_THREAD_SINGLE (%d) .. "
         "SHMEM_THREAD_MULTIPLE (%d)", requested, SHMEM_THREAD_SINGLE, SHMEM_THREAD_MULTIPLE);
  }
  initialize(requested, provided);
  return 0;
}

void shmem_query_thread(int* provided) {
  State& s = state("shmem_query_thread");
  if (provided == nullptr) fail("shmem_query_thread", "provided is a null pointer");
  *provided = s.thread_level;
}

void shmem_finalize(void) {
  State* s = g_state;
  if (s == nullptr) return;  // finalizing twice (or never started) is harmless
  team_barrier(g_team_world);
  release_teams();
  net_release(*s);
  g_state = nullptr;
  g_finalized = true;
  for (tern::engine::RemoteKey* key : s->remote_keys) tern::engine::RemoteKey::destroy(key);
  tern::engine::MemRegion::unmap(s->data_region);  // static data stays where it is, only shared no more
  tern::engine::MemRegion::unmap(s->heap_region);
  s->job.reset();
  delete s;
}

void shmem_global_exit(int status) {
  State* s = g_state;
  std::fflush(stdout);
  if (s != nullptr && s->job != nullptr) {
    char message[96];
    std::snprintf(message, sizeof(message), "PE %d called shmem_global_exit(%d)", s->my_pe, status);
    s->job->abort(status, message);
  }
  std::exit(status);
}

int shmem_my_pe(void) { return state("shmem_my_pe").my_pe; }
int shmem_n_pes(void) { return state("shmem_n_pes").n_pes; }

int shmem_pe_accessible(int pe) {
  State& s = state("shmem_pe_accessible");
  if (pe < 0 || pe >= s.n_pes) return 0;
  const auto index = static_cast<std::size_t>(pe);
  return s.peers[index].heap != nullptr || (s.has_net && s.net[index].endpoint != nullptr) ? 1 : 0;
}

int shmem_addr_accessible(const void* addr, int pe) {
  State& s = state("shmem_addr_accessible");
  if (try_remote(addr, 1, pe) != nullptr) return 1;
  if (!s.has_net || pe < 0 || pe >= s.n_pes || s.net[static_cast<std::size_t>(pe)].endpoint == nullptr) return 0;
  const SymmetricPlace place = locate(s, addr, 1);
  const NetPeer& peer = s.net[static_cast<std::size_t>(pe)];
  return (place.region == Region::Heap && peer.heap != nullptr) ||
                 (place.region == Region::Data && peer.data != nullptr)
             ? 1
             : 0;
}

void* shmem_ptr(const void* dest, int pe) {
  (void)state("shmem_ptr");
  return try_remote(dest, 1, pe);
}

void shmem_info_get_version(int* major, int* minor) {
  if (major == nullptr || minor == nullptr) fail("shmem_info_get_version", "null argument");
  *major = SHMEM_MAJOR_VERSION;
  *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char* name) {
  if (name == nullptr) fail("shmem_info_get_name", "name is a null pointer");
  std::snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

void start_pes(int) { initialize(SHMEM_THREAD_SINGLE, nullptr); }
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }
int shmem_num_pes(void) { return shmem_n_pes(); }
void globalexit(int status) { shmem_global_exit(status); }

}  // extern "C"
