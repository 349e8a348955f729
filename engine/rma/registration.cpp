// Registrations and the keys peers unpack from them.
#include <cstring>
#include <new>

#include "rma/access.hpp"
#include "rma/rma_key.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine::rma {

transport::Iface* rma_iface(WorkerImpl& worker) noexcept {
  for (const auto& iface : worker.ifaces_) {
    if ((iface->attr().flags & transport::kCapRma) != 0) return iface.get();
  }
  return nullptr;
}

Status Registration::create(Worker& worker, const void* base, std::size_t length, Registration*& out) {
  out = nullptr;
  if (base == nullptr || length == 0 || reinterpret_cast<uintptr_t>(base) > UINTPTR_MAX - length) {
    return Status::InvalidParam;
  }
  WorkerImpl& impl = Access::impl(worker);
  WorkerImpl::Guard guard(impl);
  Registration* made = new (std::nothrow) Registration;
  if (made == nullptr) return Status::NoMemory;
  uint64_t key = 0;
  if (transport::Iface* iface = rma_iface(impl)) {
    key = iface->mem_register(base, length);
    if (key == 0) {
      delete made;
      return Status::NoMemory;
    }
  }
  made->worker_ = &worker;
  made->base_ = base;
  made->length_ = length;
  made->transport_key_ = key;
  const PackedRmaKey packed{kRmaKeyMagic, kRmaKeyVersion, 0, impl.uuid_, reinterpret_cast<uint64_t>(base),
                            static_cast<uint64_t>(length), key};
  made->packed_.resize(sizeof(packed));
  std::memcpy(made->packed_.data(), &packed, sizeof(packed));
  out = made;
  return Status::Ok;
}

void Registration::destroy(Registration* registration) noexcept {
  if (registration == nullptr) return;
  if (registration->transport_key_ != 0) {
    WorkerImpl& impl = Access::impl(*registration->worker_);
    WorkerImpl::Guard guard(impl);
    if (transport::Iface* iface = rma_iface(impl)) iface->mem_deregister(registration->transport_key_);
  }
  delete registration;
}

Status RemoteRegion::unpack(std::span<const std::byte> packed, RemoteRegion*& out) {
  out = nullptr;
  PackedRmaKey fields;
  if (packed.size() != sizeof(fields)) return Status::InvalidParam;
  std::memcpy(&fields, packed.data(), sizeof(fields));
  if (fields.magic != kRmaKeyMagic || fields.version != kRmaKeyVersion || fields.length == 0 ||
      fields.base == 0 || fields.base > UINT64_MAX - fields.length || fields.length > SIZE_MAX) {
    TERN_LOG(Debug, "rma: refused a malformed key");
    return Status::InvalidParam;
  }
  RemoteRegion* made = new (std::nothrow) RemoteRegion;
  if (made == nullptr) return Status::NoMemory;
  made->owner_uuid_ = fields.owner_uuid;
  made->base_ = fields.base;
  made->length_ = static_cast<std::size_t>(fields.length);
  made->transport_key_ = fields.transport_key;
  out = made;
  return Status::Ok;
}

void RemoteRegion::destroy(RemoteRegion* region) noexcept { delete region; }

}  // namespace tern::engine::rma
