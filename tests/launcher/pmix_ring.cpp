// A raw PMIx client, to check what ternrun serves without the rest of Tern:
// the job information, then an exchange of data through put/commit/fence/get
// with every peer. Prints "rank R of N ok"; exits non-zero on any mismatch.
#include <pmix.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

pmix_proc_t g_self;
int g_errors = 0;

void complain(const std::string& what) {
  std::fprintf(stderr, "pmix_ring: rank %u: %s\n", g_self.rank, what.c_str());
  ++g_errors;
}

// PMIx_Get with a time limit, so a server that never answers fails the test
// instead of hanging it.
pmix_value_t* get(const pmix_proc_t& proc, const char* key) {
  pmix_info_t info;
  int seconds = 20;
  PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &seconds, PMIX_INT);
  pmix_value_t* value = nullptr;
  pmix_status_t rc = PMIx_Get(&proc, key, &info, 1, &value);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS) {
    complain(std::string("PMIx_Get(") + key + ", rank " + std::to_string(proc.rank) + "): " + PMIx_Error_string(rc));
    return nullptr;
  }
  return value;
}

// The value of `key` as an unsigned number, whichever integer type PMIx gives.
bool get_number(const pmix_proc_t& proc, const char* key, std::uint64_t& out) {
  pmix_value_t* value = get(proc, key);
  if (value == nullptr) return false;
  bool ok = true;
  switch (value->type) {
    case PMIX_UINT32: out = value->data.uint32; break;
    case PMIX_UINT16: out = value->data.uint16; break;
    case PMIX_PROC_RANK: out = value->data.rank; break;
    case PMIX_INT: out = static_cast<std::uint64_t>(value->data.integer); break;
    default:
      complain(std::string(key) + " has unexpected type " + std::to_string(value->type));
      ok = false;
  }
  PMIX_VALUE_RELEASE(value);
  return ok;
}

bool get_string(const pmix_proc_t& proc, const char* key, std::string& out) {
  pmix_value_t* value = get(proc, key);
  if (value == nullptr) return false;
  bool ok = value->type == PMIX_STRING && value->data.string != nullptr;
  if (ok) out = value->data.string;
  else complain(std::string(key) + " is not a string");
  PMIX_VALUE_RELEASE(value);
  return ok;
}

void expect_number(const pmix_proc_t& proc, const char* key, std::uint64_t expected) {
  std::uint64_t got = 0;
  if (get_number(proc, key, got) && got != expected) {
    complain(std::string(key) + " is " + std::to_string(got) + ", expected " + std::to_string(expected));
  }
}

// What rank `rank` contributes in `round`: long enough to not fit in any
// inline field, different for every rank and round.
std::vector<unsigned char> payload(unsigned rank, unsigned round) {
  std::vector<unsigned char> bytes(200 + rank);
  for (std::size_t index = 0; index < bytes.size(); ++index) {
    bytes[index] = static_cast<unsigned char>(rank * 31 + round * 7 + index);
  }
  return bytes;
}

void put(const char* key, unsigned round) {
  std::vector<unsigned char> bytes = payload(g_self.rank, round);
  pmix_value_t value;
  PMIX_VALUE_CONSTRUCT(&value);
  value.type = PMIX_BYTE_OBJECT;
  value.data.bo.bytes = reinterpret_cast<char*>(bytes.data());
  value.data.bo.size = bytes.size();
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &value);
  if (rc != PMIX_SUCCESS) complain(std::string("PMIx_Put: ") + PMIx_Error_string(rc));
}

void fence(bool collect) {
  pmix_info_t info;
  bool flag = collect;
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
  pmix_status_t rc = PMIx_Fence(nullptr, 0, &info, 1);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS) complain(std::string("PMIx_Fence: ") + PMIx_Error_string(rc));
}

void check_peer(unsigned peer, const char* key, unsigned round) {
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, g_self.nspace, peer);
  pmix_value_t* value = get(proc, key);
  if (value == nullptr) return;
  std::vector<unsigned char> expected = payload(peer, round);
  if (value->type != PMIX_BYTE_OBJECT || value->data.bo.size != expected.size() ||
      std::memcmp(value->data.bo.bytes, expected.data(), expected.size()) != 0) {
    complain(std::string(key) + " of rank " + std::to_string(peer) + " is wrong");
  }
  PMIX_VALUE_RELEASE(value);
}

}  // namespace

// LeakSanitizer (ASan builds) reads this: libpmix keeps allocations past
// PMIx_Finalize, which are not this program's leaks.
extern "C" const char* __lsan_default_suppressions() { return "leak:libpmix.so\n"; }
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }

int main() {
  pmix_status_t rc = PMIx_Init(&g_self, nullptr, 0);
  if (rc != PMIX_SUCCESS) {
    std::fprintf(stderr, "pmix_ring: PMIx_Init: %s\n", PMIx_Error_string(rc));
    return 1;
  }
  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, g_self.nspace, PMIX_RANK_WILDCARD);

  std::uint64_t size = 0;
  if (!get_number(job, PMIX_JOB_SIZE, size) || size == 0) {
    PMIx_Finalize(nullptr, 0);
    return 1;
  }
  const auto ranks = static_cast<unsigned>(size);
  expect_number(job, PMIX_UNIV_SIZE, size);
  expect_number(job, PMIX_LOCAL_SIZE, size);
  expect_number(g_self, PMIX_LOCAL_RANK, g_self.rank);
  expect_number(g_self, PMIX_NODE_RANK, g_self.rank);
  expect_number(g_self, PMIX_NODEID, 0);

  std::string peers, expected_peers;
  for (unsigned rank = 0; rank < ranks; ++rank) expected_peers += (rank ? "," : "") + std::to_string(rank);
  if (get_string(job, PMIX_LOCAL_PEERS, peers) && peers != expected_peers) {
    complain("local peers are '" + peers + "', expected '" + expected_peers + "'");
  }
  std::string host, jobid;
  char own_host[256] = {};
  gethostname(own_host, sizeof(own_host) - 1);
  if (get_string(g_self, PMIX_HOSTNAME, host) && host != own_host) complain("host name is '" + host + "'");
  if (get_string(job, PMIX_JOBID, jobid) && jobid != g_self.nspace) complain("job id is '" + jobid + "'");

  // Round 1: the modex as MPI libraries do it, data collected by the fence.
  put("tern.ring.1", 1);
  rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) complain(std::string("PMIx_Commit: ") + PMIx_Error_string(rc));
  fence(true);
  for (unsigned peer = 0; peer < ranks; ++peer) check_peer(peer, "tern.ring.1", 1);

  // Round 2: a barrier without data, then gets the server answers from what
  // its clients committed.
  put("tern.ring.2", 2);
  rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) complain(std::string("PMIx_Commit: ") + PMIx_Error_string(rc));
  fence(false);
  for (unsigned offset = 1; offset <= ranks; ++offset) check_peer((g_self.rank + offset) % ranks, "tern.ring.2", 2);

  // Nobody leaves before everyone has read what it needs.
  fence(false);
  if (g_errors == 0) std::printf("rank %u of %u ok\n", g_self.rank, ranks);
  std::fflush(stdout);
  PMIx_Finalize(nullptr, 0);
  return g_errors == 0 ? 0 : 1;
}
