// One-sided transfers over a connection: memory a peer may reach (offers
// for the rendezvous, registrations for RMA) in a table of regions, gets
// served straight from that memory and read straight into the requester's
// buffer, puts written straight into it, and flushes.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tcp_iface.hpp"
#include "tern/runtime/compiler.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine::transport::tcp {
namespace {

// One GetReply frame carries at most this much (its length field is 32 bits).
constexpr std::size_t kMaxReplyData = std::size_t{1} << 30;

}  // namespace

std::byte* TcpIface::region_pointer(uint64_t key, uint64_t address, uint64_t length) noexcept {
  const Region* region = regions_.find(key);
  if (region == nullptr || address < region->base || address - region->base > region->length ||
      length > region->length - (address - region->base)) {
    return nullptr;
  }
  return reinterpret_cast<std::byte*>(address);
}

uint64_t TcpIface::register_region(const void* base, std::size_t length) {
  return regions_.add({reinterpret_cast<uintptr_t>(base), length});
}

void TcpIface::serve_get(TcpConnection& connection, const GetRequestBody& request) {
  const std::byte* source = region_pointer(request.key, request.address, request.length);
  FrameHeader header{0, static_cast<uint8_t>(FrameType::GetReply), 0, 0};
  if (source == nullptr) {
    TERN_LOG(Error, "tcp: peer %s asked for %llu bytes at %#llx, which it was not offered",
             connection.peer_name.c_str(), static_cast<unsigned long long>(request.length),
             static_cast<unsigned long long>(request.address));
    GetReplyBody reply{request.get_id, 0, static_cast<int64_t>(Status::InvalidParam)};
    header.length = sizeof(reply);
    (void)connection.send_zcopy(header, &reply, sizeof(reply), nullptr, 0, nullptr);
    return;
  }
  for (uint64_t offset = 0; offset < request.length || offset == 0;) {
    const std::size_t chunk = static_cast<std::size_t>(std::min<uint64_t>(request.length - offset, kMaxReplyData));
    GetReplyBody reply{request.get_id, offset, static_cast<int64_t>(Status::Ok)};
    header.length = static_cast<uint32_t>(sizeof(reply) + chunk);
    if (connection.send_zcopy(header, &reply, sizeof(reply), source + offset, chunk, nullptr) == Status::IoError) {
      return;
    }
    offset += chunk;
    if (chunk == 0) break;
  }
}

Status TcpIface::start_get(TcpConnection& connection, void* local, std::size_t length, RemoteMemory remote,
                           Completion* comp) {
  if (length == 0) return Status::Ok;
  if (local == nullptr || remote.address == 0 || remote.key == 0) return Status::InvalidParam;
  if (connection.state() == TcpConnection::State::Failed) return Status::IoError;
  const uint64_t get_id = gets_.add({static_cast<std::byte*>(local), length, 0, comp, &connection});
  GetRequestBody request{remote.address, remote.key, length, get_id};
  FrameHeader header{sizeof(request), static_cast<uint8_t>(FrameType::GetRequest), 0, 0};
  // A request is small and must not be refused for a full queue: the engine
  // does not retry gets.
  const Status status = connection.send_zcopy(header, &request, sizeof(request), nullptr, 0, nullptr);
  if (status == Status::IoError) {
    gets_.remove(get_id);
    return status;
  }
  return Status::InProgress;
}

Status TcpIface::start_flush(TcpConnection& connection, Completion* comp) {
  if (connection.state() == TcpConnection::State::Failed) return Status::IoError;
  bool outstanding = !connection.tx_idle();
  gets_.for_each([&](uint64_t, GetInFlight& get) { outstanding = outstanding || get.connection == &connection; });
  if (!outstanding && !connection.puts_unflushed) return Status::Ok;
  const uint64_t flush_id = flushes_.add({comp, &connection});
  FlushBody body{flush_id};
  FrameHeader header{sizeof(body), static_cast<uint8_t>(FrameType::Flush), 0, 0};
  if (connection.send_zcopy(header, &body, sizeof(body), nullptr, 0, nullptr) == Status::IoError) {
    flushes_.remove(flush_id);
    return Status::IoError;
  }
  connection.puts_unflushed = false;
  return Status::InProgress;
}

std::byte* TcpIface::bulk_destination(TcpConnection& connection, const FrameHeader& header, const std::byte* body,
                                      std::size_t data_length) {
  if (connection.state() != TcpConnection::State::Open) {
    protocol_error(connection, "data before the handshake");
    return nullptr;
  }
  if (static_cast<FrameType>(header.type) == FrameType::Put) {
    PutBody put{};
    std::memcpy(&put, body, sizeof(put));
    std::byte* destination = region_pointer(put.key, put.address, data_length);
    if (destination == nullptr) {
      TERN_LOG(Error, "tcp: peer %s put %zu bytes at %#llx, which is not registered memory",
               connection.peer_name.c_str(), data_length, static_cast<unsigned long long>(put.address));
    }
    return destination;
  }
  GetReplyBody reply{};
  std::memcpy(&reply, body, sizeof(reply));
  GetInFlight* get = gets_.find(reply.get_id);
  if (get == nullptr || get->connection != &connection) {
    protocol_error(connection, "reply to a get that is not in flight");
    return nullptr;
  }
  if (reply.status != 0) {
    if (data_length != 0 || reply.status > 0 || reply.status < INT8_MIN) {
      protocol_error(connection, "a failed get's reply carries data or no known error");
    }
    return nullptr;
  }
  // Replies come in order, one after the other, each within the get.
  if (reply.offset != get->received || data_length > get->length - reply.offset) {
    protocol_error(connection, "get reply out of order or beyond the get's buffer");
    return nullptr;
  }
  return get->destination + reply.offset;
}

void TcpIface::bulk_done(TcpConnection& connection, const FrameHeader& header, const std::byte* body,
                         std::size_t data_length) {
  if (static_cast<FrameType>(header.type) == FrameType::Put) return;
  GetReplyBody reply{};
  std::memcpy(&reply, body, sizeof(reply));
  GetInFlight* get = gets_.find(reply.get_id);
  if (get == nullptr || get->connection != &connection) return;  // checked in bulk_destination
  Completion* comp = get->comp;
  if (reply.status != 0) {
    TERN_LOG(Error, "tcp: peer %s refused a get of %zu bytes: %s", connection.peer_name.c_str(), get->length,
             to_string(static_cast<Status>(reply.status)));
    gets_.remove(reply.get_id);
    if (comp != nullptr) comp->finish_one(static_cast<Status>(reply.status));
    return;
  }
  get->received += data_length;
  if (get->received < get->length) return;
  gets_.remove(reply.get_id);
  if (comp != nullptr) comp->finish_one(Status::Ok);
}

}  // namespace tern::engine::transport::tcp
