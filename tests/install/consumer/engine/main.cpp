// An engine program built against an installed Tern (find_package, ternc++,
// pkg-config): one worker connects to itself, sends one message and
// receives it. Prints "tern engine consumer: ok" on success.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <unistd.h>

#include "tern/engine/worker.hpp"

using namespace tern;

namespace {

int fail(const char* what, Status status) {
  std::fprintf(stderr, "tern engine consumer: %s: %s\n", what, to_string(status));
  return 1;
}

}  // namespace

int main() {
  engine::WorkerParams params;
  params.job_id = "tern-consumer-" + std::to_string(getpid());
  std::unique_ptr<engine::Worker> worker;
  if (Status s = engine::Worker::create(params, worker); s != Status::Ok) return fail("Worker::create", s);

  engine::Endpoint* self = nullptr;
  if (Status s = worker->connect(worker->address(), self); s != Status::Ok) return fail("connect", s);

  char sent[] = "hello from an installed Tern";
  char received[sizeof(sent)] = {};
  engine::Request* request = nullptr;
  engine::TagRecvInfo info;
  Status s = worker->tag_recv_nb(received, sizeof(received), /*tag=*/42, engine::kTagMaskAll, request, &info);
  if (s != Status::Ok && s != Status::InProgress) return fail("tag_recv_nb", s);
  if (Status sent_status = worker->tag_send(self, sent, sizeof(sent), /*tag=*/42); sent_status != Status::Ok)
    return fail("tag_send", sent_status);
  if (s == Status::InProgress) {
    if (s = worker->wait(request); s != Status::Ok) return fail("wait", s);
  }
  if (std::memcmp(sent, received, sizeof(sent)) != 0) {
    std::fprintf(stderr, "tern engine consumer: received \"%.*s\"\n", static_cast<int>(sizeof(received)), received);
    return 1;
  }
  std::printf("tern engine consumer: ok (transport %s)\n", worker->transport_of(self));
  return 0;
}
