// Put, get, atomics, flush and fence on an endpoint's lane. Each operation
// that does not finish at once takes a pooled request whose embedded
// Completion the transport finishes; the request then completes like a tag
// request (Worker::wait / test / release).
#include "rma/access.hpp"

namespace tern::engine::rma {
namespace {

void on_done(transport::Completion* comp) {
  RequestImpl* request = RequestImpl::from_completion(comp);
  request->worker->complete(request, comp->status);
}

bool lane_has_rma(const Endpoint* endpoint) noexcept {
  return (endpoint->iface->attr().flags & transport::kCapRma) != 0;
}

// Checks what every operation on `region` needs.
Status check(WorkerImpl& worker, const Endpoint* endpoint, const RemoteRegion& region, uint64_t address,
             std::size_t length) noexcept {
  if (!worker.owns(endpoint)) return Status::InvalidParam;
  if (!lane_has_rma(endpoint)) return Status::Unsupported;
  if (Access::owner(region) != endpoint->peer_uuid) return Status::InvalidParam;
  if (!region.contains(address, length)) return Status::InvalidParam;
  if (Access::transport_key(region) == 0) return Status::Unsupported;  // the owner has no RMA transport
  return Status::Ok;
}

RequestImpl* start(WorkerImpl& worker, Endpoint* endpoint) noexcept {
  RequestImpl* request = worker.new_request(RequestKind::Rma);
  if (request == nullptr) return nullptr;
  request->endpoint = endpoint;
  request->completion.callback = on_done;
  request->completion.count = 1;
  request->completion.status = Status::Ok;
  return request;
}

// What the transport said: InProgress hands the request to the caller;
// anything else (done at once, or refused) gives it back.
Status issued(WorkerImpl& worker, RequestImpl* request, Status status, Request*& out) noexcept {
  if (status == Status::InProgress) {
    out = request;
    return status;
  }
  request->released = true;
  worker.complete(request, status);
  return status;
}

// Progresses until `request` is done, then gives it back.
Status finish(Worker& worker, Status status, Request* request) {
  if (status != Status::InProgress) return status;
  return worker.wait(request);
}

}  // namespace

bool supported(Worker& worker, const Endpoint* endpoint) noexcept {
  WorkerImpl& impl = Access::impl(worker);
  return impl.owns(endpoint) && lane_has_rma(endpoint);
}

namespace {

// A put or a get: the checks and the request are the same, the lane call is
// `issue`.
template <typename Issue>
Status transfer_nb(Worker& worker, Endpoint* endpoint, const void* local, std::size_t length,
                   const RemoteRegion& region, uint64_t remote_address, Request*& request, Issue&& issue) {
  request = nullptr;
  WorkerImpl& impl = Access::impl(worker);
  WorkerImpl::Guard guard(impl);
  if (Status s = check(impl, endpoint, region, remote_address, length); s != Status::Ok) return s;
  if (length == 0) return Status::Ok;
  if (local == nullptr) return Status::InvalidParam;
  RequestImpl* r = start(impl, endpoint);
  if (r == nullptr) return Status::NoMemory;
  const Status status = issue(*endpoint->lane, {remote_address, Access::transport_key(region)}, &r->completion);
  return issued(impl, r, status, request);
}

}  // namespace

Status put_nb(Worker& worker, Endpoint* endpoint, const void* local, std::size_t length, const RemoteRegion& region,
              uint64_t remote_address, Request*& request) {
  return transfer_nb(worker, endpoint, local, length, region, remote_address, request,
                     [&](transport::Ep& lane, transport::RemoteMemory remote, transport::Completion* comp) {
                       return lane.put_zcopy(local, length, remote, comp);
                     });
}

Status get_nb(Worker& worker, Endpoint* endpoint, void* local, std::size_t length, const RemoteRegion& region,
              uint64_t remote_address, Request*& request) {
  return transfer_nb(worker, endpoint, local, length, region, remote_address, request,
                     [&](transport::Ep& lane, transport::RemoteMemory remote, transport::Completion* comp) {
                       return lane.get_zcopy(local, length, remote, comp);
                     });
}

Status atomic_nb(Worker& worker, Endpoint* endpoint, AtomicOp op, unsigned size, uint64_t operand, uint64_t compare,
                 const RemoteRegion& region, uint64_t remote_address, uint64_t* result, Request*& request) {
  request = nullptr;
  const auto code = static_cast<uint8_t>(op);
  if ((size != 4 && size != 8) || code == 0 || code > transport::kLastAtomicOp || remote_address % size != 0) {
    return Status::InvalidParam;
  }
  WorkerImpl& impl = Access::impl(worker);
  WorkerImpl::Guard guard(impl);
  if (Status s = check(impl, endpoint, region, remote_address, size); s != Status::Ok) return s;
  RequestImpl* r = start(impl, endpoint);
  if (r == nullptr) return Status::NoMemory;
  transport::AtomicArgs args;
  args.op = static_cast<transport::AtomicOp>(code);
  args.size = static_cast<uint8_t>(size);
  args.operand = operand;
  args.compare = compare;
  args.result = result;
  const Status status = endpoint->lane->atomic(args, {remote_address, Access::transport_key(region)}, &r->completion);
  return issued(impl, r, status, request);
}

Status flush_nb(Worker& worker, Endpoint* endpoint, Request*& request) {
  request = nullptr;
  WorkerImpl& impl = Access::impl(worker);
  WorkerImpl::Guard guard(impl);
  if (!impl.owns(endpoint)) return Status::InvalidParam;
  if (!lane_has_rma(endpoint)) return Status::Unsupported;
  RequestImpl* r = start(impl, endpoint);
  if (r == nullptr) return Status::NoMemory;
  return issued(impl, r, endpoint->lane->flush(&r->completion), request);
}

Status fence(Worker& worker, Endpoint* endpoint) {
  WorkerImpl& impl = Access::impl(worker);
  WorkerImpl::Guard guard(impl);
  if (!impl.owns(endpoint)) return Status::InvalidParam;
  if (!lane_has_rma(endpoint)) return Status::Unsupported;
  return endpoint->lane->fence();
}

Status put(Worker& worker, Endpoint* endpoint, const void* local, std::size_t length, const RemoteRegion& region,
           uint64_t remote_address) {
  Request* request = nullptr;
  const Status status = put_nb(worker, endpoint, local, length, region, remote_address, request);
  return finish(worker, status, request);
}

Status get(Worker& worker, Endpoint* endpoint, void* local, std::size_t length, const RemoteRegion& region,
           uint64_t remote_address) {
  Request* request = nullptr;
  const Status status = get_nb(worker, endpoint, local, length, region, remote_address, request);
  return finish(worker, status, request);
}

Status atomic(Worker& worker, Endpoint* endpoint, AtomicOp op, unsigned size, uint64_t operand, uint64_t compare,
              const RemoteRegion& region, uint64_t remote_address, uint64_t* result) {
  Request* request = nullptr;
  const Status status = atomic_nb(worker, endpoint, op, size, operand, compare, region, remote_address, result,
                                  request);
  return finish(worker, status, request);
}

Status flush(Worker& worker, Endpoint* endpoint) {
  Request* request = nullptr;
  const Status status = flush_nb(worker, endpoint, request);
  return finish(worker, status, request);
}

}  // namespace tern::engine::rma
