// Receives that a sender filled through the tag device (tag/offload.hpp):
// what the device reports came from another process and is checked before
// the receive completes with it.
#include "core/worker_impl.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine {

void WorkerImpl::on_tag_completion(void* arg, const transport::TagDeviceCompletion& completion) {
  auto& worker = *static_cast<WorkerImpl*>(arg);
  // Unmatched by the device: software matches it as any eager message.
  if (completion.unexpected != nullptr) {
    (void)proto::on_eager(arg, completion.unexpected, sizeof(uint64_t) + completion.length);
    return;
  }
  tag::ExpectedEntry* entry = worker.offload_.completed(completion.slot);
  if (TERN_UNLIKELY(entry == nullptr)) {
    TERN_LOG(Error, "tag device: a completion names slot %u, which holds no receive of ours", completion.slot);
    return;
  }
  (void)worker.matcher_.remove_expected(entry);
  RequestImpl* r = RequestImpl::from_expected(entry);
  constexpr const char* kWhat = "offloaded receive";
  Endpoint* sender = worker.find_endpoint(completion.sender_uuid);
  if (TERN_UNLIKELY(sender == nullptr)) {
    (void)worker.reject_unknown(completion.sender_uuid, kWhat, completion.length);
    worker.complete(r, Status::IoError);
    return;
  }
  if (TERN_UNLIKELY(((completion.tag ^ entry->tag) & entry->mask) != 0 || completion.length > kMaxMessageLength)) {
    (void)worker.reject(sender, "offloaded receive filled with a message it does not match", completion.length);
    worker.complete(r, Status::IoError);
    return;
  }
  r->mutable_info() = {completion.tag, static_cast<std::size_t>(completion.length)};
  Status status = completion.status;
  if (status == Status::Ok && completion.length > r->length) status = Status::Truncated;
  worker.complete(r, status);
}

}  // namespace tern::engine
