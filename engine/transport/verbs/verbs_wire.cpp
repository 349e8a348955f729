#include "verbs_wire.hpp"

#include <cstring>

namespace tern::engine::transport::verbs {
namespace {

constexpr uint32_t kAddressMagic = 0x54565241;  // "TVRA"
constexpr uint32_t kWireupMagic = 0x54565257;   // "TVRW"
constexpr uint8_t kVersion = 1;
constexpr uint8_t kFlagTagMatching = 1;
constexpr std::size_t kAddressBytes = 4 + 1 + 8 + 1 + 2 + 16 + 1 + 4 + 4 + 4 + 16;

// Appends and reads fields in a fixed little-endian-as-stored layout; both
// ends are the same build of Tern.
class Writer {
 public:
  explicit Writer(std::byte* to) : at_(to) {}
  template <typename T>
  void put(const T& value) {
    std::memcpy(at_, &value, sizeof(value));
    at_ += sizeof(value);
  }

 private:
  std::byte* at_;
};

class Reader {
 public:
  explicit Reader(std::span<const std::byte> from) : from_(from) {}
  template <typename T>
  T get() {
    T value{};
    if (offset_ + sizeof(value) <= from_.size()) std::memcpy(&value, from_.data() + offset_, sizeof(value));
    offset_ += sizeof(value);
    return value;
  }

 private:
  std::span<const std::byte> from_;
  std::size_t offset_ = 0;
};

void put_port(Writer& out, const PortAddress& port) {
  out.put(static_cast<uint8_t>(port.link_layer));
  out.put(port.lid);
  out.put(port.gid);
}

bool get_port(Reader& in, PortAddress& port) {
  const auto link = in.get<uint8_t>();
  port.lid = in.get<uint16_t>();
  port.gid = in.get<Gid>();
  if (link != static_cast<uint8_t>(LinkLayer::InfiniBand) && link != static_cast<uint8_t>(LinkLayer::Ethernet)) {
    return false;
  }
  port.link_layer = static_cast<LinkLayer>(link);
  return true;
}

bool valid_qpn(uint32_t qpn) { return qpn != 0 && qpn < (1u << 24); }

}  // namespace

std::vector<std::byte> pack_address(const VerbsAddress& address) {
  std::vector<std::byte> bytes(kAddressBytes);
  Writer out(bytes.data());
  out.put(kAddressMagic);
  out.put(kVersion);
  out.put(address.worker_uuid);
  put_port(out, address.port);
  out.put(static_cast<uint8_t>(address.tag_matching ? kFlagTagMatching : 0));
  out.put(address.ud_qpn);
  out.put(address.mtu);
  out.put(address.emulated_pid);
  out.put(address.secret);
  return bytes;
}

bool unpack_address(std::span<const std::byte> bytes, VerbsAddress& out) {
  if (bytes.size() != kAddressBytes) return false;
  Reader in(bytes);
  if (in.get<uint32_t>() != kAddressMagic || in.get<uint8_t>() != kVersion) return false;
  VerbsAddress address;
  address.worker_uuid = in.get<uint64_t>();
  if (!get_port(in, address.port)) return false;
  const auto flags = in.get<uint8_t>();
  if ((flags & ~kFlagTagMatching) != 0) return false;
  address.tag_matching = flags != 0;
  address.ud_qpn = in.get<uint32_t>();
  address.mtu = in.get<uint32_t>();
  address.emulated_pid = in.get<uint32_t>();
  address.secret = in.get<Secret>();
  if (address.worker_uuid == 0 || !valid_qpn(address.ud_qpn) || address.mtu < 256) return false;
  out = address;
  return true;
}

void pack_wireup(const WireupMessage& message, std::byte (&bytes)[kWireupBytes]) {
  Writer out(bytes);
  out.put(kWireupMagic);
  out.put(kVersion);
  out.put(static_cast<uint8_t>(message.type));
  out.put(message.sender_uuid);
  out.put(message.target_uuid);
  out.put(message.secret);
  out.put(message.nonce);
  out.put(message.rc_qpn);
  out.put(message.psn);
  out.put(message.peer_qpn);
  out.put(message.ud_qpn);
  out.put(message.mtu);
  put_port(out, message.port);
  out.put(static_cast<uint8_t>(message.tag_matching ? kFlagTagMatching : 0));
  out.put(message.handled_address);
  out.put(message.handled_rkey);
}

bool unpack_wireup(std::span<const std::byte> bytes, WireupMessage& out) {
  if (bytes.size() != kWireupBytes) return false;
  Reader in(bytes);
  if (in.get<uint32_t>() != kWireupMagic || in.get<uint8_t>() != kVersion) return false;
  WireupMessage message;
  const auto type = in.get<uint8_t>();
  if (type != static_cast<uint8_t>(WireupType::Request) && type != static_cast<uint8_t>(WireupType::Reply)) {
    return false;
  }
  message.type = static_cast<WireupType>(type);
  message.sender_uuid = in.get<uint64_t>();
  message.target_uuid = in.get<uint64_t>();
  message.secret = in.get<Secret>();
  message.nonce = in.get<Secret>();
  message.rc_qpn = in.get<uint32_t>();
  message.psn = in.get<uint32_t>() & 0xffffffu;
  message.peer_qpn = in.get<uint32_t>();
  message.ud_qpn = in.get<uint32_t>();
  message.mtu = in.get<uint32_t>();
  if (!get_port(in, message.port)) return false;
  const auto flags = in.get<uint8_t>();
  if ((flags & ~kFlagTagMatching) != 0) return false;
  message.tag_matching = flags != 0;
  message.handled_address = in.get<uint64_t>();
  message.handled_rkey = in.get<uint32_t>();
  if (message.sender_uuid == 0 || !valid_qpn(message.rc_qpn) || !valid_qpn(message.ud_qpn) || message.mtu < 256) {
    return false;
  }
  if (message.type == WireupType::Reply && !valid_qpn(message.peer_qpn)) return false;
  out = message;
  return true;
}

bool port_reaches(const PortAddress& mine, const PortAddress& theirs) noexcept {
  if (mine.link_layer != theirs.link_layer) return false;
  if (theirs.link_layer == LinkLayer::InfiniBand) return theirs.lid != 0;
  return theirs.gid != Gid{};
}

}  // namespace tern::engine::transport::verbs
