// The bootstrap as a PMIx client: every rank of a job started by a PMIx
// server (ternrun, mpirun, prterun, srun --mpi=pmix) learns the job from its
// local server and exchanges blobs through it.
#include "pmix_bootstrap.hpp"

#include <pmix.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string_view>

#include "launched_bootstrap.hpp"
#include "tern/runtime/log.hpp"

#if defined(__SANITIZE_ADDRESS__)
// libpmix 4.2 keeps a few bytes from PMIx_Init past PMIx_Finalize (a bare
// init/finalize program shows it), which would fail every sanitizer run of
// a launched job. Weak, so a program with its own suppressions keeps them.
extern "C" __attribute__((weak, visibility("default"))) const char* __lsan_default_suppressions() {
  return "leak:libpmix.so\n";
}
#endif

namespace tern::runtime {
namespace {

// Put by every rank at each collecting fence; see PmixBootstrap::fence.
constexpr const char* kCollectedMarker = "tern.bootstrap.collected";

Status status_from_pmix(pmix_status_t rc) {
  switch (rc) {
    case PMIX_SUCCESS: return Status::Ok;
    case PMIX_ERR_NOT_FOUND: return Status::NotFound;
    case PMIX_ERR_TIMEOUT: return Status::TimedOut;
    case PMIX_ERR_UNREACH: return Status::Unreachable;
    case PMIX_ERR_NOMEM:
    case PMIX_ERR_OUT_OF_RESOURCE: return Status::NoMemory;
    case PMIX_ERR_BAD_PARAM:
    case PMIX_ERR_INIT: return Status::InvalidParam;
    case PMIX_ERR_NOT_SUPPORTED: return Status::Unsupported;
    default: return Status::IoError;
  }
}

// "PMIx_Init failed: UNREACHABLE (-25)": the call, PMIx's words, the number.
std::string pmix_failure(const std::string& call, pmix_status_t rc) {
  return call + " failed: " + PMIx_Error_string(rc) + " (" + std::to_string(rc) + ")";
}

// Frees what PMIx_Get hands back (PMIX_VALUE_RELEASE, which is a macro
// around free()).
struct ValueDeleter {
  void operator()(pmix_value_t* value) const noexcept {
    PMIx_Value_destruct(value);
    std::free(value);
  }
};
using ValuePtr = std::unique_ptr<pmix_value_t, ValueDeleter>;

// An info array of one boolean directive, destructed on scope exit.
class BoolInfo {
 public:
  BoolInfo(const char* key, bool flag) {
    PMIX_INFO_CONSTRUCT(&info_);
    PMIx_Info_load(&info_, key, &flag, PMIX_BOOL);
  }
  ~BoolInfo() { PMIX_INFO_DESTRUCT(&info_); }
  BoolInfo(const BoolInfo&) = delete;
  BoolInfo& operator=(const BoolInfo&) = delete;
  pmix_info_t* get() noexcept { return &info_; }

 private:
  pmix_info_t info_;
};

// Servers disagree on integer widths (PMIX_LOCAL_RANK is uint16 in the
// standard, some hosts send uint32), so any integer type is taken.
bool to_unsigned(const pmix_value_t& value, uint64_t& out) {
  switch (value.type) {
    case PMIX_UINT8: out = value.data.uint8; return true;
    case PMIX_UINT16: out = value.data.uint16; return true;
    case PMIX_UINT32: out = value.data.uint32; return true;
    case PMIX_UINT64: out = value.data.uint64; return true;
    case PMIX_UINT: out = value.data.uint; return true;
    case PMIX_SIZE: out = value.data.size; return true;
    case PMIX_PROC_RANK: out = value.data.rank; return true;
    case PMIX_INT8: if (value.data.int8 < 0) return false; out = static_cast<uint64_t>(value.data.int8); return true;
    case PMIX_INT16: if (value.data.int16 < 0) return false; out = static_cast<uint64_t>(value.data.int16); return true;
    case PMIX_INT32: if (value.data.int32 < 0) return false; out = static_cast<uint64_t>(value.data.int32); return true;
    case PMIX_INT64: if (value.data.int64 < 0) return false; out = static_cast<uint64_t>(value.data.int64); return true;
    case PMIX_INT: if (value.data.integer < 0) return false; out = static_cast<uint64_t>(value.data.integer); return true;
    case PMIX_STRING: {
      if (value.data.string == nullptr) return false;
      std::string_view text(value.data.string);
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
      return ec == std::errc() && end == text.data() + text.size() && !text.empty();
    }
    default: return false;
  }
}

// Size of the scalar a value of `type` holds at the start of its data union;
// 0 for types that are not plain scalars.
std::size_t scalar_size(pmix_data_type_t type) {
  switch (type) {
    case PMIX_BOOL: return sizeof(bool);
    case PMIX_BYTE: case PMIX_INT8: case PMIX_UINT8: return 1;
    case PMIX_INT16: case PMIX_UINT16: return 2;
    case PMIX_INT32: case PMIX_UINT32: return 4;
    case PMIX_INT64: case PMIX_UINT64: return 8;
    case PMIX_INT: return sizeof(int);
    case PMIX_UINT: return sizeof(unsigned);
    case PMIX_SIZE: return sizeof(size_t);
    case PMIX_PID: return sizeof(pid_t);
    case PMIX_FLOAT: return sizeof(float);
    case PMIX_DOUBLE: return sizeof(double);
    case PMIX_PROC_RANK: return sizeof(pmix_rank_t);
    case PMIX_STATUS: return sizeof(pmix_status_t);
    default: return 0;
  }
}

// "0,1,2" (the standard's form) or with ranges, "0-3,8", which some hosts
// send. False on anything else.
bool parse_rank_list(std::string_view text, std::vector<unsigned>& out) {
  out.clear();
  if (text.empty()) return false;
  for (;;) {
    auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    auto dash = item.find('-');
    std::string_view first_text = item.substr(0, dash);
    unsigned first = 0, last = 0;
    auto parse = [](std::string_view t, unsigned& v) {
      auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      return !t.empty() && ec == std::errc() && end == t.data() + t.size();
    };
    if (!parse(first_text, first)) return false;
    last = first;
    if (dash != std::string_view::npos && (!parse(item.substr(dash + 1), last) || last < first)) return false;
    // A list can't name more ranks than a job can have; refuse before allocating.
    if (last - first > (1u << 24) || out.size() > (1u << 24)) return false;
    for (unsigned r = first; r <= last; ++r) out.push_back(r);
    if (comma == std::string_view::npos) break;
    text = text.substr(comma + 1);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return true;
}

// PMIx_Init runs on a helper thread so that a server that never answers
// costs the caller a timeout, not the process: libpmix itself waits forever
// once its connection attempts to a dead address have failed.
struct InitCall {
  std::mutex mutex;
  std::condition_variable finished_cv;
  bool finished = false;
  pmix_status_t rc = PMIX_ERROR;
  pmix_proc_t proc;
};

void* run_init(void* arg) {
  // The caller may have given up and gone; the call object is shared.
  std::shared_ptr<InitCall> call = std::move(*static_cast<std::shared_ptr<InitCall>*>(arg));
  delete static_cast<std::shared_ptr<InitCall>*>(arg);
  pmix_proc_t proc;
  PMIX_PROC_CONSTRUCT(&proc);
  pmix_status_t rc = PMIx_Init(&proc, nullptr, 0);
  {
    std::lock_guard lock(call->mutex);
    call->rc = rc;
    call->proc = proc;
    call->finished = true;
  }
  call->finished_cv.notify_one();
  return nullptr;
}

// PMIx_Init, or `timed_out` when it has not returned within `seconds` (0: no
// limit); then the helper thread is left behind.
pmix_status_t timed_init(pmix_proc_t& proc, unsigned seconds, bool& timed_out) {
  timed_out = false;
  if (seconds == 0) return PMIx_Init(&proc, nullptr, 0);
  auto call = std::make_shared<InitCall>();
  auto* arg = new (std::nothrow) std::shared_ptr<InitCall>(call);
  pthread_t thread;
  if (arg == nullptr || pthread_create(&thread, nullptr, run_init, arg) != 0) {
    delete arg;
    TERN_LOG(Debug, "bootstrap: no helper thread for PMIx_Init; calling it without a time limit");
    return PMIx_Init(&proc, nullptr, 0);
  }
  std::unique_lock lock(call->mutex);
  if (!call->finished_cv.wait_for(lock, std::chrono::seconds(seconds), [&] { return call->finished; })) {
    lock.unlock();
    pthread_detach(thread);
    timed_out = true;
    return PMIX_ERR_TIMEOUT;
  }
  lock.unlock();
  pthread_join(thread, nullptr);
  proc = call->proc;
  return call->rc;
}

// "PMIX_SERVER_URI41=ns.0;tcp4://10.0.0.1:4242, ...": where PMIx_Init looked.
std::string server_uris() {
  std::string uris;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    if (std::strncmp(*entry, "PMIX_SERVER_URI", 15) != 0) continue;
    if (!uris.empty()) uris += ", ";
    uris += *entry;
  }
  return uris.empty() ? "no PMIX_SERVER_URI* variable" : uris;
}

class PmixBootstrap final : public LaunchedBootstrap {
 public:
  PmixBootstrap() { PMIX_PROC_CONSTRUCT(&self_); }
  ~PmixBootstrap() override {
    if (initialized_ && !finalized_) (void)finalize();
  }
  PmixBootstrap(const PmixBootstrap&) = delete;
  PmixBootstrap& operator=(const PmixBootstrap&) = delete;

  Status init(std::string& error, unsigned timeout_seconds);

  const char* name() const noexcept override { return "pmix"; }

  Status put(const char* key, std::span<const std::byte> value) override;
  Status commit() override;
  Status fence(bool collect) override;
  Status get(unsigned rank, const char* key, std::vector<std::byte>& value) override;
  [[noreturn]] void abort(int exit_code, const char* message) override;
  Status finalize() override;

 private:
  Status fail(const std::string& call, pmix_status_t rc) {
    last_error_ = pmix_failure(call, rc);
    return status_from_pmix(rc);
  }
  // PMIx_Get of a job fact; `optional` looks only at what the server handed
  // over at PMIx_Init, so a host that lacks the key cannot stall start-up.
  pmix_status_t get_unsigned(pmix_rank_t rank, const char* key, bool optional, uint64_t& out);
  pmix_status_t get_string(pmix_rank_t rank, const char* key, bool optional, std::string& out);
  ValuePtr get_value(pmix_rank_t rank, const char* key, bool optional, pmix_status_t& rc);

  pmix_proc_t self_;
  // Whether the latest fence collected data: then every peer's committed
  // keys are already here, and a get that misses must not wait on the
  // server for data that will never come.
  bool collected_ = false;
  // Whether that data is in this client's own store, not only the server's.
  bool collected_here_ = true;
  // Where it is not: the ranks whose data has been fetched from the server.
  std::vector<bool> fetched_;
};

ValuePtr PmixBootstrap::get_value(pmix_rank_t rank, const char* key, bool optional, pmix_status_t& rc) {
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, self_.nspace, rank);
  pmix_value_t* raw = nullptr;
  BoolInfo info(PMIX_OPTIONAL, true);
  rc = PMIx_Get(&proc, key, optional ? info.get() : nullptr, optional ? 1 : 0, &raw);
  ValuePtr value(raw);
  if (rc == PMIX_SUCCESS && !value) rc = PMIX_ERR_NOT_FOUND;
  return value;
}

pmix_status_t PmixBootstrap::get_unsigned(pmix_rank_t rank, const char* key, bool optional, uint64_t& out) {
  pmix_status_t rc = PMIX_SUCCESS;
  ValuePtr value = get_value(rank, key, optional, rc);
  if (rc != PMIX_SUCCESS) return rc;
  return to_unsigned(*value, out) ? PMIX_SUCCESS : PMIX_ERR_TYPE_MISMATCH;
}

pmix_status_t PmixBootstrap::get_string(pmix_rank_t rank, const char* key, bool optional, std::string& out) {
  pmix_status_t rc = PMIX_SUCCESS;
  ValuePtr value = get_value(rank, key, optional, rc);
  if (rc != PMIX_SUCCESS) return rc;
  if (value->type != PMIX_STRING || value->data.string == nullptr) return PMIX_ERR_TYPE_MISMATCH;
  out = value->data.string;
  return PMIX_SUCCESS;
}

// The launcher's PMIx server went away (mpirun or the node daemon killed):
// nothing can end this rank any more, and no peer will reach it through the
// job, so it ends itself instead of waiting forever in a call.
void on_lost_launcher(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t*, size_t, pmix_info_t*, size_t,
                      pmix_event_notification_cbfunc_fn_t, void*) {
  static constexpr char kMessage[] = "tern: the launcher's PMIx server is gone (connection lost): this rank ends\n";
  (void)!write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  std::_Exit(1);
}

Status PmixBootstrap::init(std::string& error, unsigned timeout_seconds) {
  bool timed_out = false;
  pmix_status_t rc = timed_init(self_, timeout_seconds, timed_out);
  if (timed_out) {
    error = "PMIx_Init did not return within " + std::to_string(timeout_seconds) +
            " s (TERN_BOOTSTRAP_TIMEOUT): no answer from the PMIx server at " + server_uris();
    return Status::TimedOut;
  }
  if (rc != PMIX_SUCCESS) {
    // The environment said a launcher started us; say where PMIx looked.
    error = pmix_failure("PMIx_Init", rc) + ": no PMIx server answers at " + server_uris() +
            "; start the program with ternrun (or another PMIx launcher), or on its own without PMIX_* variables "
            "to run it as a singleton";
    return status_from_pmix(rc);
  }
  initialized_ = true;
  rank_ = self_.rank;
  pmix_status_t lost = PMIX_ERR_LOST_CONNECTION;
  if (pmix_status_t reg = PMIx_Register_event_handler(&lost, 1, nullptr, 0, on_lost_launcher, nullptr, nullptr);
      reg < 0) {
    TERN_LOG(Debug, "bootstrap: %s: a lost launcher will not end this rank",
             pmix_failure("PMIx_Register_event_handler", reg).c_str());
  }

  uint64_t value = 0;
  if (rc = get_unsigned(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, false, value); rc != PMIX_SUCCESS) {
    error = pmix_failure(std::string("PMIx_Get(") + PMIX_JOB_SIZE + ")", rc);
    return status_from_pmix(rc);
  }
  if (value == 0 || value > UINT32_MAX || rank_ >= value) {
    error = "PMIx: job size " + std::to_string(value) + " does not hold rank " + std::to_string(rank_);
    return Status::InvalidParam;
  }
  size_ = static_cast<unsigned>(value);

  // The facts below are optional in the standard; each has a safe default.
  std::string peers_text;
  rc = get_string(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, true, peers_text);
  bool have_peers = rc == PMIX_SUCCESS && parse_rank_list(peers_text, local_peers_) &&
                    std::all_of(local_peers_.begin(), local_peers_.end(), [&](unsigned r) { return r < size_; }) &&
                    std::binary_search(local_peers_.begin(), local_peers_.end(), rank_);
  if (!have_peers) {
    // Without the list, only a job that lives wholly on this node can be
    // described; otherwise claim no local peers, which is slower (no shared
    // memory) but never wrong.
    uint64_t local_size = 0;
    bool whole_job_here = get_unsigned(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, true, local_size) == PMIX_SUCCESS &&
                          local_size == size_;
    local_peers_.clear();
    if (whole_job_here) {
      for (unsigned r = 0; r < size_; ++r) local_peers_.push_back(r);
    } else {
      local_peers_.push_back(rank_);
    }
    TERN_LOG(Debug, "bootstrap: no usable %s from the PMIx server ('%s'); assuming %zu local peers",
             PMIX_LOCAL_PEERS, peers_text.c_str(), local_peers_.size());
  }
  // Our index in the sorted list is what PMIX_LOCAL_RANK means for every
  // launcher that numbers ranks on a node in order; the server's word wins
  // when it gives one that fits.
  local_rank_ = static_cast<unsigned>(std::lower_bound(local_peers_.begin(), local_peers_.end(), rank_) -
                                      local_peers_.begin());
  if (get_unsigned(self_.rank, PMIX_LOCAL_RANK, true, value) == PMIX_SUCCESS && value < local_peers_.size()) {
    local_rank_ = static_cast<unsigned>(value);
  }
  if (get_unsigned(self_.rank, PMIX_NODEID, true, value) == PMIX_SUCCESS && value <= UINT32_MAX) {
    node_id_ = static_cast<unsigned>(value);
  }

  const char* from_env = std::getenv("TERN_JOB_ID");
  job_id_ = sanitize_job_id((from_env != nullptr && *from_env != '\0') ? std::string_view(from_env)
                                                                       : std::string_view(self_.nspace));
  TERN_LOG(Debug, "bootstrap: pmix namespace %s rank %u of %u, local rank %u of %zu, node %u, job id %s",
           self_.nspace, rank_, size_, local_rank_, local_peers_.size(), node_id_, job_id_.c_str());
  return Status::Ok;
}

Status PmixBootstrap::put(const char* key, std::span<const std::byte> value) {
  if (Status s = check_usable("put"); s != Status::Ok) return s;
  if (!is_valid_bootstrap_key(key)) {
    last_error_ = "put: invalid key (empty, longer than 511 characters or starting with 'pmix')";
    return Status::InvalidParam;
  }
  // PMIx_Put copies the value, so pointing at the caller's bytes is safe.
  pmix_value_t pv;
  std::memset(&pv, 0, sizeof(pv));
  pv.type = PMIX_BYTE_OBJECT;
  pv.data.bo.bytes = const_cast<char*>(reinterpret_cast<const char*>(value.data()));
  pv.data.bo.size = value.size();
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &pv);
  if (rc != PMIX_SUCCESS) return fail(std::string("PMIx_Put(") + key + ")", rc);
  return Status::Ok;
}

Status PmixBootstrap::commit() {
  if (Status s = check_usable("commit"); s != Status::Ok) return s;
  pmix_status_t rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) return fail("PMIx_Commit", rc);
  return Status::Ok;
}

Status PmixBootstrap::fence(bool collect) {
  if (Status s = check_usable("fence"); s != Status::Ok) return s;
  // Where collected data lands differs between servers: Open MPI's, and
  // ternrun's under PMIx 4, hand every client all of it, so a key missing
  // from the client's own store is missing everywhere (and asking the
  // server for it would wait out its timeout); ternrun's under PMIx 5 keeps
  // it in the server, to be fetched on a peer's first get. A marker every
  // rank puts tells the two apart after the fence.
  if (collect && size_ > 1) {
    pmix_value_t marker;
    std::memset(&marker, 0, sizeof(marker));
    marker.type = PMIX_UINT8;
    marker.data.uint8 = 1;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, kCollectedMarker, &marker);
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) return fail(std::string("PMIx_Put(") + kCollectedMarker + ")", rc);
  }
  BoolInfo info(PMIX_COLLECT_DATA, collect);
  pmix_status_t rc = PMIx_Fence(nullptr, 0, info.get(), 1);
  if (rc != PMIX_SUCCESS) return fail(collect ? "PMIx_Fence(collect)" : "PMIx_Fence", rc);
  collected_ = collect;
  collected_here_ = true;
  if (collect && size_ > 1) {
    pmix_status_t marker_rc = PMIX_SUCCESS;
    (void)get_value((rank_ + 1) % size_, kCollectedMarker, true, marker_rc);
    collected_here_ = marker_rc == PMIX_SUCCESS;
    fetched_.assign(collected_here_ ? 0 : size_, false);
  }
  return Status::Ok;
}

Status PmixBootstrap::get(unsigned rank, const char* key, std::vector<std::byte>& out) {
  if (Status s = check_usable("get"); s != Status::Ok) return s;
  if (!is_valid_bootstrap_key(key)) {
    last_error_ = "get: invalid key (empty, longer than 511 characters or starting with 'pmix')";
    return Status::InvalidParam;
  }
  if (rank >= size_) {
    last_error_ = "get: rank " + std::to_string(rank) + " out of range for a job of size " + std::to_string(size_);
    return Status::InvalidParam;
  }
  auto call = [&] { return "PMIx_Get(rank " + std::to_string(rank) + ", " + key + ")"; };
  pmix_status_t rc = PMIX_SUCCESS;
  // Our own keys are always here; a peer's are after a collecting fence.
  ValuePtr value = get_value(rank, key, collected_ || rank == rank_, rc);
  if (rc == PMIX_ERR_NOT_FOUND && collected_ && !collected_here_ && rank != rank_ && !fetched_[rank]) {
    // The fence left the peers' data with our server (see fence). Asking it
    // for the marker, which the rank surely put, brings all the rank's data
    // into our store; asking for `key` itself, were it missing, would wait
    // out the server's timeout instead.
    pmix_status_t marker_rc = PMIX_SUCCESS;
    (void)get_value(rank, kCollectedMarker, false, marker_rc);
    if (marker_rc != PMIX_SUCCESS) return fail(call() + ", fetching the rank's data", marker_rc);
    fetched_[rank] = true;
    value = get_value(rank, key, true, rc);
  }
  if (rc != PMIX_SUCCESS) {
    Status s = fail(call(), rc);
    // Not finding a key is an answer, not a failure worth keeping.
    if (s == Status::NotFound) last_error_.clear();
    return s;
  }
  const auto* begin = static_cast<const std::byte*>(nullptr);
  std::size_t length = 0;
  if (value->type == PMIX_BYTE_OBJECT) {
    begin = reinterpret_cast<const std::byte*>(value->data.bo.bytes);
    length = value->data.bo.bytes != nullptr ? value->data.bo.size : 0;
  } else if (value->type == PMIX_STRING) {
    begin = reinterpret_cast<const std::byte*>(value->data.string);
    length = value->data.string != nullptr ? std::strlen(value->data.string) : 0;
  } else if (std::size_t scalar = scalar_size(value->type); scalar != 0) {
    // Every member of the data union starts at its beginning.
    begin = reinterpret_cast<const std::byte*>(&value->data);
    length = scalar;
  } else {
    last_error_ = call() + " returned a " + PMIx_Data_type_string(value->type) + " value, not bytes";
    return Status::Unsupported;
  }
  out.assign(begin, begin + length);
  return Status::Ok;
}

void PmixBootstrap::abort(int exit_code, const char* message) {
  // The rank's last words, printed before the abort, must not die in a buffer.
  std::fflush(nullptr);
  if (initialized_ && !finalized_) {
    pmix_status_t rc = PMIx_Abort(exit_code, message != nullptr ? message : "", nullptr, 0);
    if (rc != PMIX_SUCCESS) {
      std::fprintf(stderr, "tern: %s; exiting with %d: %s\n", pmix_failure("PMIx_Abort", rc).c_str(), exit_code,
                   message != nullptr ? message : "");
    }
  } else {
    std::fprintf(stderr, "tern: abort (exit code %d): %s\n", exit_code, message != nullptr ? message : "");
  }
  // PMIx_Abort may return (the server decides when to kill us); we do not wait.
  _exit(exit_code);
}

Status PmixBootstrap::finalize() {
  if (finalized_ || !initialized_) return Status::Ok;
  finalized_ = true;
  pmix_status_t rc = PMIx_Finalize(nullptr, 0);
  if (rc != PMIX_SUCCESS) return fail("PMIx_Finalize", rc);
  return Status::Ok;
}

}  // namespace

Status create_pmix_bootstrap(std::unique_ptr<Bootstrap>& out, std::string& error, unsigned init_timeout_seconds) {
  std::unique_ptr<PmixBootstrap> bootstrap(new (std::nothrow) PmixBootstrap());
  if (!bootstrap) return Status::NoMemory;
  // On failure the destructor finalizes what PMIx_Init set up.
  if (Status s = bootstrap->init(error, init_timeout_seconds); s != Status::Ok) return s;
  out = std::move(bootstrap);
  return Status::Ok;
}

}  // namespace tern::runtime
