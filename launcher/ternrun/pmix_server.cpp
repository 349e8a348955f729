#include "ternrun/pmix_server.hpp"

#include <pmix.h>
#include <pmix_server.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>

namespace tern::launcher {
namespace {

// A PMIx call that completes through a callback, waited for on the main
// thread. Allocated on the heap: if PMIx never answers, the wait gives up and
// the object is left to the late callback instead of being freed under it.
struct Completion {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  pmix_status_t status = PMIX_SUCCESS;

  static void callback(pmix_status_t status, void* self) {
    auto* completion = static_cast<Completion*>(self);
    std::lock_guard lock(completion->mutex);
    completion->status = status;
    completion->done = true;
    completion->done_cv.notify_all();
  }
};

// Waits for `completion` after a call that returned `rc`, and frees it unless
// the wait timed out.
pmix_status_t finish(Completion* completion, pmix_status_t rc) {
  if (rc == PMIX_OPERATION_SUCCEEDED) rc = PMIX_SUCCESS;  // done at once, no callback
  else if (rc == PMIX_SUCCESS) {
    std::unique_lock lock(completion->mutex);
    if (!completion->done_cv.wait_for(lock, std::chrono::seconds(60), [&] { return completion->done; })) {
      return PMIX_ERR_TIMEOUT;
    }
    rc = completion->status;
  }
  delete completion;
  return rc;
}

std::string describe(const char* what, pmix_status_t status) {
  return std::string(what) + " failed: " + PMIx_Error_string(status);
}

// ---- Upcalls, on the PMIx progress thread ----

// A client blocks in PMIx_Init and PMIx_Finalize until the host lets it go;
// ternrun has nothing to set up or tear down per client, so it does so at once.
// (How a rank ends is learned from its exit, which covers ranks that never
// use PMIx too.)
pmix_status_t on_client_connected(const pmix_proc_t*, void*, pmix_op_cbfunc_t done, void* done_data) {
  if (done != nullptr) done(PMIX_SUCCESS, done_data);
  return PMIX_SUCCESS;
}

pmix_status_t on_client_finalized(const pmix_proc_t*, void*, pmix_op_cbfunc_t done, void* done_data) {
  if (done != nullptr) done(PMIX_SUCCESS, done_data);
  return PMIX_SUCCESS;
}

pmix_status_t on_abort(const pmix_proc_t* proc, void* object, int status, const char message[], pmix_proc_t[],
                       size_t, pmix_op_cbfunc_t done, void* done_data) {
  // Whichever ranks the caller named, the whole job ends: that is what
  // MPI_Abort and shmem_global_exit users get from every launcher.
  if (object != nullptr) {
    auto* client = static_cast<PmixServer::Client*>(object);
    client->server->record_abort(proc != nullptr ? proc->rank : client->rank, status, message);
  }
  // Releasing the caller lets it exit with its own status; the main thread,
  // which has the abort queued before the caller can exit, kills the rest.
  if (done != nullptr) done(PMIX_SUCCESS, done_data);
  return PMIX_SUCCESS;
}

void release_blob(void* blob) { std::free(blob); }

pmix_status_t on_fence(const pmix_proc_t[], size_t, const pmix_info_t[], size_t, char* data, size_t size,
                       pmix_modex_cbfunc_t done, void* done_data) {
  // The library calls this once every local participant has arrived, with
  // their data already gathered (for PMIX_COLLECT_DATA). All of the job is on
  // this server, so that blob is the whole exchange: it goes straight back.
  // It is copied because the library does not promise `data` outlives this
  // call, while it reads the answer later, on its own thread.
  if (done == nullptr) return PMIX_SUCCESS;
  char* copy = nullptr;
  if (data != nullptr && size > 0) {
    copy = static_cast<char*>(std::malloc(size));
    if (copy == nullptr) return PMIX_ERR_NOMEM;
    std::memcpy(copy, data, size);
  }
  done(PMIX_SUCCESS, copy, copy != nullptr ? size : 0, done_data, copy != nullptr ? release_blob : nullptr, copy);
  return PMIX_SUCCESS;
}

pmix_status_t on_direct_modex(const pmix_proc_t*, const pmix_info_t[], size_t, pmix_modex_cbfunc_t, void*) {
  // Only asked for ranks on other servers; a ternrun job has none.
  return PMIX_ERR_NOT_SUPPORTED;
}

pmix_server_module_t make_module() {
  pmix_server_module_t module;
  std::memset(&module, 0, sizeof(module));
  module.client_connected = on_client_connected;
  module.client_finalized = on_client_finalized;
  module.abort = on_abort;
  module.fence_nb = on_fence;
  module.direct_modex = on_direct_modex;
  return module;
}

// Builds a pmix_info_t array with PMIx's own list helpers, which copy values
// in and free them as one.
class InfoList {
 public:
  InfoList() : list_(PMIx_Info_list_start()) {}
  ~InfoList() { PMIx_Info_list_release(list_); }
  InfoList(const InfoList&) = delete;
  InfoList& operator=(const InfoList&) = delete;

  void add(const char* key, const void* value, pmix_data_type_t type) {
    if (status_ == PMIX_SUCCESS) status_ = PMIx_Info_list_add(list_, key, value, type);
  }
  void add_string(const char* key, const std::string& value) { add(key, value.c_str(), PMIX_STRING); }
  void add_u32(const char* key, std::uint32_t value) { add(key, &value, PMIX_UINT32); }
  void add_u16(const char* key, std::uint16_t value) { add(key, &value, PMIX_UINT16); }
  void add_rank(const char* key, pmix_rank_t value) { add(key, &value, PMIX_PROC_RANK); }

  // The list as a data array the caller destructs (PMIx_Data_array_destruct).
  pmix_status_t convert(pmix_data_array_t& out) {
    PMIX_DATA_ARRAY_CONSTRUCT(&out, 0, PMIX_INFO);
    if (status_ != PMIX_SUCCESS) return status_;
    return PMIx_Info_list_convert(list_, &out);
  }

 private:
  void* list_;
  pmix_status_t status_ = PMIX_SUCCESS;
};

}  // namespace

PmixServer::~PmixServer() { (void)stop(); }

bool PmixServer::start(const std::string& tmpdir, const Topology& topology, std::string& error) {
  notify_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (notify_fd_ < 0) {
    error = std::string("eventfd failed: ") + std::strerror(errno);
    return false;
  }
  // The same directory for the server's and the "system" rendezvous files:
  // nothing of this job lands in a shared /tmp, and removing one directory
  // removes it all.
  pmix_info_t info[3];
  PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, tmpdir.c_str(), PMIX_STRING);
  PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, tmpdir.c_str(), PMIX_STRING);
  // Handed over as is (loading the value would copy the whole topology), so
  // PMIx does not discover the machine a second time. `topology` outlives the
  // server.
  pmix_topology_t shared_topology{const_cast<char*>("hwloc"), topology.handle()};
  PMIX_INFO_CONSTRUCT(&info[2]);
  PMIX_LOAD_KEY(info[2].key, PMIX_TOPOLOGY2);
  info[2].value.type = PMIX_TOPO;
  info[2].value.data.topo = &shared_topology;

  static pmix_server_module_t module = make_module();
  pmix_status_t rc = PMIx_server_init(&module, info, 3);
  PMIX_INFO_DESTRUCT(&info[0]);
  PMIX_INFO_DESTRUCT(&info[1]);
  if (rc != PMIX_SUCCESS) {
    error = describe("PMIx_server_init", rc);
    return false;
  }
  started_ = true;
  return true;
}

bool PmixServer::register_job(const Job& job, const std::vector<Location>& locations, BindTo bind_to,
                              const Topology& topology, const std::string& tmpdir, std::string& error) {
  const std::string peers = rank_list(job.size);
  char* node_map = nullptr;
  char* proc_map = nullptr;
  pmix_status_t rc = PMIx_generate_regex(job.hostname.c_str(), &node_map);
  if (rc == PMIX_SUCCESS) rc = PMIx_generate_ppn(peers.c_str(), &proc_map);
  if (rc != PMIX_SUCCESS) {
    std::free(node_map);
    error = describe("PMIx_generate_regex", rc);
    return false;
  }

  InfoList job_info;
  job_info.add_u32(PMIX_UNIV_SIZE, job.size);
  job_info.add_u32(PMIX_JOB_SIZE, job.size);
  job_info.add_u32(PMIX_MAX_PROCS, job.size);
  job_info.add_u32(PMIX_APP_SIZE, job.size);
  job_info.add_u32(PMIX_LOCAL_SIZE, job.size);
  job_info.add_u32(PMIX_NODE_SIZE, job.size);
  job_info.add_u32(PMIX_NUM_NODES, 1);
  job_info.add_u32(PMIX_JOB_NUM_APPS, 1);
  job_info.add_string(PMIX_LOCAL_PEERS, peers);
  job_info.add_rank(PMIX_LOCALLDR, 0);
  // The regex helpers may answer in a binary form; PMIX_REGEX tells PMIx to
  // copy it as such rather than as a C string.
  job_info.add(PMIX_NODE_MAP, node_map, PMIX_REGEX);
  job_info.add(PMIX_PROC_MAP, proc_map, PMIX_REGEX);
  job_info.add_string(PMIX_JOBID, job.nspace);
  job_info.add_u32(PMIX_NODEID, 0);
  job_info.add_string(PMIX_HOSTNAME, job.hostname);
  job_info.add_u32(PMIX_APPNUM, 0);
  job_info.add_string(PMIX_TMPDIR, tmpdir);
  std::free(node_map);
  std::free(proc_map);

  for (unsigned rank = 0; rank < job.size; ++rank) {
    InfoList rank_info;
    rank_info.add_rank(PMIX_RANK, rank);
    rank_info.add_rank(PMIX_GLOBAL_RANK, rank);
    rank_info.add_rank(PMIX_APP_RANK, rank);
    rank_info.add_u16(PMIX_LOCAL_RANK, static_cast<std::uint16_t>(rank));
    rank_info.add_u16(PMIX_NODE_RANK, static_cast<std::uint16_t>(rank));
    rank_info.add_string(PMIX_HOSTNAME, job.hostname);
    rank_info.add_u32(PMIX_NODEID, 0);
    rank_info.add_u32(PMIX_APPNUM, 0);
    // Where the rank is bound, so PMIx_Get_relative_locality can tell which
    // peers share a core or a NUMA node with it (PMIX_LOCALITY_STRING), and
    // tools can show the binding (PMIX_CPUSET). An unbound rank has neither.
    if (hwloc_const_cpuset_t cpus = topology.binding(locations[rank], bind_to)) {
      pmix_cpuset_t cpuset{const_cast<char*>("hwloc"), const_cast<hwloc_bitmap_s*>(cpus)};
      char* text = nullptr;
      if (PMIx_server_generate_locality_string(&cpuset, &text) == PMIX_SUCCESS && text != nullptr) {
        rank_info.add_string(PMIX_LOCALITY_STRING, text);
      }
      std::free(text);
      text = nullptr;
      if (PMIx_server_generate_cpuset_string(&cpuset, &text) == PMIX_SUCCESS && text != nullptr) {
        rank_info.add_string(PMIX_CPUSET, text);
      }
      std::free(text);
    }
    pmix_data_array_t array;
    rc = rank_info.convert(array);
    if (rc == PMIX_SUCCESS) job_info.add(PMIX_PROC_INFO_ARRAY, &array, PMIX_DATA_ARRAY);  // a.k.a. PMIX_PROC_DATA
    PMIx_Data_array_destruct(&array);
    if (rc != PMIX_SUCCESS) {
      error = describe("building the rank information", rc);
      return false;
    }
  }

  pmix_data_array_t all;
  rc = job_info.convert(all);
  if (rc != PMIX_SUCCESS) {
    PMIx_Data_array_destruct(&all);
    error = describe("building the job information", rc);
    return false;
  }
  auto* completion = new Completion;
  rc = finish(completion, PMIx_server_register_nspace(job.nspace.c_str(), static_cast<int>(job.size),
                                                      static_cast<pmix_info_t*>(all.array), all.size,
                                                      Completion::callback, completion));
  if (rc == PMIX_ERR_TIMEOUT) {
    error = describe("PMIx_server_register_nspace", rc);
    return false;  // `all` is left to PMIx, which may still read it
  }
  PMIx_Data_array_destruct(&all);
  if (rc != PMIX_SUCCESS) {
    error = describe("PMIx_server_register_nspace", rc);
    return false;
  }

  // Prepares this node for the job's ranks (the library's network and
  // security plugins), before any of them starts.
  completion = new Completion;
  rc = finish(completion, PMIx_server_setup_local_support(job.nspace.c_str(), nullptr, 0, Completion::callback,
                                                         completion));
  if (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_SUPPORTED) {
    error = describe("PMIx_server_setup_local_support", rc);
    return false;
  }

  clients_ = std::make_unique<Client[]>(job.size);
  for (unsigned rank = 0; rank < job.size; ++rank) {
    clients_[rank].server = this;
    clients_[rank].rank = rank;
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, job.nspace.c_str(), rank);
    // A client must be registered before it starts, or its connection can
    // race the registration and be refused.
    completion = new Completion;
    rc = finish(completion, PMIx_server_register_client(&proc, geteuid(), getegid(), &clients_[rank],
                                                        Completion::callback, completion));
    if (rc != PMIX_SUCCESS) {
      error = describe("PMIx_server_register_client", rc);
      return false;
    }
  }
  return true;
}

bool PmixServer::setup_fork(const Job& job, unsigned rank, std::vector<std::string>& env, std::string& error) {
  // PMIx edits a malloc'ed, null-terminated array (it reallocs it to add).
  auto** array = static_cast<char**>(std::calloc(env.size() + 1, sizeof(char*)));
  if (array == nullptr) {
    error = "out of memory";
    return false;
  }
  for (std::size_t index = 0; index < env.size(); ++index) array[index] = strdup(env[index].c_str());
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, job.nspace.c_str(), rank);
  pmix_status_t rc = PMIx_server_setup_fork(&proc, &array);
  env.clear();
  for (char** entry = array; entry != nullptr && *entry != nullptr; ++entry) {
    env.emplace_back(*entry);
    std::free(*entry);
  }
  std::free(array);
  if (rc != PMIX_SUCCESS) {
    error = describe("PMIx_server_setup_fork", rc);
    return false;
  }
  return true;
}

void PmixServer::record_abort(unsigned rank, int status, const char* message) {
  {
    std::lock_guard lock(mutex_);
    aborts_.push_back({rank, status, message != nullptr ? message : ""});
  }
  std::uint64_t one = 1;
  [[maybe_unused]] ssize_t ignored = write(notify_fd_, &one, sizeof(one));
}

std::vector<AbortRequest> PmixServer::take_aborts() {
  std::uint64_t count = 0;
  [[maybe_unused]] ssize_t ignored = read(notify_fd_, &count, sizeof(count));
  std::lock_guard lock(mutex_);
  return std::exchange(aborts_, {});
}

bool PmixServer::stop(int limit_ms, int interrupt_fd) {
  if (started_) {
    started_ = false;
    // Left open if the finalize never returns: its thread still writes to it.
    const int done_fd = eventfd(0, EFD_CLOEXEC);
    if (done_fd < 0) {
      PMIx_server_finalize();
    } else {
      std::thread finalizer([done_fd] {
        PMIx_server_finalize();
        const uint64_t one = 1;
        (void)!write(done_fd, &one, sizeof(one));
      });
      pollfd watched[2] = {{done_fd, POLLIN, 0}, {interrupt_fd, POLLIN, 0}};
      int ready;
      do {
        ready = poll(watched, interrupt_fd >= 0 ? 2 : 1, limit_ms);
      } while (ready < 0 && errno == EINTR);
      if (ready <= 0 || (watched[0].revents & POLLIN) == 0) {
        finalizer.detach();
        return false;
      }
      finalizer.join();
      close(done_fd);
    }
  }
  if (notify_fd_ >= 0) {
    close(notify_fd_);
    notify_fd_ = -1;
  }
  return true;
}

}  // namespace tern::launcher
