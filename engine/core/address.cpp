#include "core/address.hpp"

#include <cstring>

namespace tern::engine {
namespace {

constexpr uint32_t kMagic = 0x4e524554;  // "TERN"
constexpr uint16_t kVersion = 2;
constexpr std::size_t kMaxHostLength = 255;

struct __attribute__((packed)) Header {
  uint32_t magic;
  uint16_t version;
  uint16_t count;
  uint64_t uuid;
  uint8_t host_length;
};

void append(std::vector<std::byte>& out, const void* data, std::size_t length) {
  const auto* bytes = static_cast<const std::byte*>(data);
  out.insert(out.end(), bytes, bytes + length);
}

}  // namespace

std::vector<std::byte> pack_worker_address(uint64_t uuid, std::string_view host,
                                           std::span<const TransportAddress> transports) {
  std::vector<std::byte> out;
  host = host.substr(0, kMaxHostLength);
  Header header{kMagic, kVersion, static_cast<uint16_t>(transports.size()), uuid,
                static_cast<uint8_t>(host.size())};
  append(out, &header, sizeof(header));
  append(out, host.data(), host.size());
  for (const TransportAddress& tl : transports) {
    auto name_length = static_cast<uint8_t>(tl.name.size());
    auto address_length = static_cast<uint16_t>(tl.address.size());
    append(out, &name_length, 1);
    append(out, tl.name.data(), name_length);
    append(out, &address_length, 2);
    append(out, tl.address.data(), address_length);
  }
  return out;
}

Status unpack_worker_address(std::span<const std::byte> packed, WorkerAddress& out) {
  Header header;
  if (packed.size() < sizeof(header)) return Status::InvalidParam;
  std::memcpy(&header, packed.data(), sizeof(header));
  if (header.magic != kMagic || header.version != kVersion) return Status::InvalidParam;
  out.uuid = header.uuid;
  out.transports.clear();
  std::size_t at = sizeof(header);
  if (at + header.host_length > packed.size()) return Status::InvalidParam;
  out.host = std::string_view(reinterpret_cast<const char*>(packed.data() + at), header.host_length);
  at += header.host_length;
  for (unsigned i = 0; i < header.count; ++i) {
    if (at + 1 > packed.size()) return Status::InvalidParam;
    std::size_t name_length = static_cast<uint8_t>(packed[at]);
    at += 1;
    if (at + name_length + 2 > packed.size()) return Status::InvalidParam;
    std::string_view name(reinterpret_cast<const char*>(packed.data() + at), name_length);
    at += name_length;
    uint16_t address_length;
    std::memcpy(&address_length, packed.data() + at, 2);
    at += 2;
    if (at + address_length > packed.size()) return Status::InvalidParam;
    out.transports.push_back({name, packed.subspan(at, address_length)});
    at += address_length;
  }
  return at == packed.size() ? Status::Ok : Status::InvalidParam;
}

}  // namespace tern::engine
