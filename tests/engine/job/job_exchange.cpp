// A job-level check run by a launcher (ternrun, Open MPI's mpirun) or alone:
// every rank sends every rank (itself included) messages on both sides of
// each protocol boundary and checks what it receives. Exit 0 and one line
// per rank when all data arrived intact.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tern/engine/job.hpp"

namespace {

using tern::Status;
using tern::engine::Endpoint;
using tern::engine::Job;
using tern::engine::Request;

unsigned char pattern(unsigned from, unsigned to, std::size_t size, std::size_t i) {
  return static_cast<unsigned char>((from * 31 + to * 17 + size * 7 + i * 13) & 0xff);
}

uint64_t make_tag(unsigned from, std::size_t size_index) { return (uint64_t{from} << 32) | size_index; }

int fail(Job& job, const char* what, Status status) {
  std::fprintf(stderr, "rank %u: %s: %s\n", job.rank(), what, tern::to_string(status));
  return 1;
}

int run(Job& job) {
  const unsigned rank = job.rank();
  const unsigned size = job.size();
  const std::size_t sizes[] = {0, 8, 8000, 64 * 1024, 1 << 20};
  std::vector<std::vector<unsigned char>> outgoing;
  std::vector<Request*> sends;
  for (unsigned peer = 0; peer < size; ++peer) {
    Endpoint* ep = nullptr;
    if (Status s = job.endpoint(peer, ep); s != Status::Ok) return fail(job, "endpoint", s);
    for (std::size_t k = 0; k < std::size(sizes); ++k) {
      outgoing.emplace_back(sizes[k]);
      for (std::size_t i = 0; i < sizes[k]; ++i) outgoing.back()[i] = pattern(rank, peer, sizes[k], i);
      Request* request = nullptr;
      Status s = job.worker().tag_send_nb(ep, outgoing.back().data(), sizes[k], make_tag(rank, k), request);
      if (s == Status::InProgress) sends.push_back(request);
      else if (s != Status::Ok) return fail(job, "send", s);
    }
  }
  std::vector<unsigned char> in(1 << 20);
  for (unsigned peer = 0; peer < size; ++peer) {
    for (std::size_t k = 0; k < std::size(sizes); ++k) {
      tern::engine::TagRecvInfo info;
      Status s = job.worker().tag_recv(in.data(), in.size(), make_tag(peer, k), ~uint64_t{0}, &info);
      if (s != Status::Ok) return fail(job, "receive", s);
      if (info.length != sizes[k]) {
        std::fprintf(stderr, "rank %u: %zu bytes from rank %u, expected %zu\n", rank, info.length, peer, sizes[k]);
        return 1;
      }
      for (std::size_t i = 0; i < sizes[k]; ++i) {
        if (in[i] != pattern(peer, rank, sizes[k], i)) {
          std::fprintf(stderr, "rank %u: wrong byte %zu of %zu from rank %u\n", rank, i, sizes[k], peer);
          return 1;
        }
      }
    }
  }
  for (Request* request : sends) {
    if (Status s = job.worker().wait(request); s != Status::Ok) return fail(job, "send completion", s);
  }
  // Nobody leaves while a peer may still read from its memory.
  if (Status s = job.bootstrap().fence(false); s != Status::Ok) return fail(job, "final fence", s);
  std::string transports;
  for (const std::string& name : job.worker().transport_names()) transports += (transports.empty() ? "" : ",") + name;
  std::printf("rank %u of %u (%s): exchanged data with all %u ranks (transports %s)\n", rank, size,
              job.bootstrap().name(), size, transports.c_str());
  return 0;
}

}  // namespace

int main() {
  std::unique_ptr<Job> job;
  std::string error;
  if (Status s = Job::create(job, error); s != Status::Ok) {
    std::fprintf(stderr, "tern_job_exchange: %s (%s)\n", error.c_str(), tern::to_string(s));
    return 1;
  }
  return run(*job);
}
