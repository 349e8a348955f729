// Collective I/O by two-phase aggregation: the ranks agree on the byte range
// the whole access covers, cut it into one file domain per aggregator, and
// send each aggregator the pieces of its domain (their offsets and, for
// writes, their data). An aggregator then writes each run its pieces cover
// with one pwrite (interleaved pieces of many ranks become one large
// write), or reads the range they span with one pread and sends the pieces
// back. Domains are worked through in windows of cb_buffer_size bytes, so
// an aggregator holds at most that much at a time.
//
// Hints (MPI_File_open/set_info/set_view): cb_nodes, the number of
// aggregators (default: every rank), spread evenly over the ranks;
// cb_buffer_size, the window (default 16 MiB, at most 64 MiB);
// romio_cb_write and romio_cb_read (ROMIO's names, which programs set):
// "enable" aggregates always, "disable" never (each rank moves its own
// pieces, as independent I/O would), otherwise ("automatic") only when the
// ranks' byte ranges interleave and some rank moves at least
// kAggregateFrom bytes: below that, each rank's own pwrite and pread of its
// pieces cost less than the exchange (4 ranks on 2 cores, pieces of 4 KiB
// round-robin, a file in /tmp: 8 KiB a rank 0.7-0.8 GB/s aggregated
// against 2.7-4.2 on its own; 128 KiB 5.9-6.2 against 7-8 for writes;
// from 256 KiB aggregated writes lead, 9.7-12.8 against 6-7.3 GB/s).
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "io/file.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

inline constexpr MPI_Offset kDefaultWindow = MPI_Offset{16} << 20;
// Counts travel as ints: a window's pieces (16 bytes each, one per byte at
// worst) must stay below 2^31 bytes.
inline constexpr MPI_Offset kMaxWindow = MPI_Offset{64} << 20;
// Bytes of one rank from which "automatic" aggregates (see above).
inline constexpr MPI_Offset kAggregateFrom = MPI_Offset{256} << 10;
// What each rank tells the others first: its byte range, its error, its bytes.
enum AccessField { kLow, kHigh, kError, kBytes, kAccessFields };

const std::string* hint(const File& file, const char* key) {
  for (const auto& [name, value] : file.hints) {
    if (name == key) return &value;
  }
  return nullptr;
}

long long hint_number(const File& file, const char* key, long long fallback) {
  const std::string* value = hint(file, key);
  if (value == nullptr) return fallback;
  char* end = nullptr;
  const long long number = std::strtoll(value->c_str(), &end, 10);
  return end != value->c_str() && *end == '\0' && number > 0 ? number : fallback;
}

// A piece as it travels to an aggregator: where in the file, how long.
struct WirePiece {
  MPI_Offset file;
  MPI_Offset length;
};

// What every rank knows of the whole access after the first exchange.
struct Plan {
  MPI_Offset low = 0, high = 0;  // the byte range all ranks touch
  int aggregators = 0;
  MPI_Offset domain = 0;  // bytes per aggregator
  MPI_Offset window = 0;
  MPI_Offset rounds = 0;
  MPI_Offset end_of_file = 0;  // reads: bytes past it leave the user's buffer alone
  int size = 0;
  [[nodiscard]] int aggregator_rank(int index) const {
    return static_cast<int>(static_cast<long long>(index) * size / aggregators);
  }
  // Aggregator `index`'s bytes in round `round`: [first, last).
  void window_of(int index, MPI_Offset round, MPI_Offset& first, MPI_Offset& last) const {
    const MPI_Offset domain_first = low + index * domain;
    const MPI_Offset domain_last = std::min(high, domain_first + domain);
    first = std::min(domain_last, domain_first + round * window);
    last = std::min(domain_last, first + window);
  }
};

// The parts of `segments` (ascending in the file) inside [first, last).
template <typename Visit>
void clip(const std::vector<FileSegment>& segments, MPI_Offset first, MPI_Offset last, Visit&& visit) {
  auto it = std::upper_bound(segments.begin(), segments.end(), first, [](MPI_Offset offset, const FileSegment& s) {
    return offset < s.file + s.length;
  });
  for (; it != segments.end() && it->file < last; ++it) {
    const MPI_Offset from = std::max(first, it->file);
    const MPI_Offset to = std::min(last, it->file + it->length);
    if (from < to) visit(from, it->data + (from - it->file), to - from);
  }
}

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> displs(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) displs[i] = displs[i - 1] + counts[i - 1];
  return displs;
}

// One round: every rank's pieces in each aggregator's window go there (and
// come back filled, for reads). Returns 0 or an errno (a failed exchange: EIO).
int exchange_round(File& file, const Plan& plan, MPI_Offset round, int rank, const std::vector<FileSegment>& segments,
                   char* data, bool write) {
  const int size = plan.size;
  std::vector<int> piece_counts(size, 0), byte_counts(size, 0);
  std::vector<WirePiece> pieces;
  std::vector<MPI_Offset> piece_data;  // where each outgoing piece sits in `data`
  for (int index = 0; index < plan.aggregators; ++index) {
    MPI_Offset first = 0, last = 0;
    plan.window_of(index, round, first, last);
    const int target = plan.aggregator_rank(index);
    clip(segments, first, last, [&](MPI_Offset offset, MPI_Offset at, MPI_Offset length) {
      pieces.push_back(WirePiece{offset, length});
      piece_data.push_back(at);
      ++piece_counts[target];
      byte_counts[target] += static_cast<int>(length);
    });
  }
  std::vector<int> incoming_pieces(size), incoming_bytes(size);
  if (PMPI_Alltoall(piece_counts.data(), 1, MPI_INT, incoming_pieces.data(), 1, MPI_INT, file.comm) != MPI_SUCCESS ||
      PMPI_Alltoall(byte_counts.data(), 1, MPI_INT, incoming_bytes.data(), 1, MPI_INT, file.comm) != MPI_SUCCESS) {
    return EIO;
  }
  // Piece lists travel as bytes.
  auto scaled = [](std::vector<int> counts) {
    for (int& count : counts) count *= static_cast<int>(sizeof(WirePiece));
    return counts;
  };
  const std::vector<int> send_list = scaled(piece_counts), recv_list = scaled(incoming_pieces);
  const std::vector<int> send_list_displs = displacements(send_list), recv_list_displs = displacements(recv_list);
  std::vector<WirePiece> received(recv_list_displs.back() / sizeof(WirePiece) + incoming_pieces.back());
  if (PMPI_Alltoallv(pieces.data(), send_list.data(), send_list_displs.data(), MPI_BYTE, received.data(),
                     recv_list.data(), recv_list_displs.data(), MPI_BYTE, file.comm) != MPI_SUCCESS) {
    return EIO;
  }
  const std::vector<int> send_displs = displacements(byte_counts), recv_displs = displacements(incoming_bytes);
  // Uninitialized: a std::vector<char> zeroed each of these three buffers
  // before every byte of them was overwritten (three extra passes over up
  // to cb_buffer_size bytes per round).
  auto buffer = [](MPI_Offset bytes) { return std::unique_ptr<char[]>(new char[bytes > 0 ? bytes : 1]); };
  const std::unique_ptr<char[]> outgoing = buffer(send_displs.back() + byte_counts.back());
  const std::unique_ptr<char[]> incoming = buffer(recv_displs.back() + incoming_bytes.back());

  // This rank's window, when it aggregates: the pieces land in (or come from) `staging`.
  MPI_Offset first = 0, last = 0;
  bool aggregates = false;
  for (int index = 0; index < plan.aggregators && !aggregates; ++index) {
    if (plan.aggregator_rank(index) != rank) continue;
    plan.window_of(index, round, first, last);
    aggregates = true;
  }
  const std::unique_ptr<char[]> staging = buffer(aggregates ? last - first : 0);
  int error = 0;

  if (write) {
    std::size_t packed = 0;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      std::memcpy(outgoing.get() + packed, data + piece_data[i], static_cast<std::size_t>(pieces[i].length));
      packed += static_cast<std::size_t>(pieces[i].length);
    }
    if (PMPI_Alltoallv(outgoing.get(), byte_counts.data(), send_displs.data(), MPI_BYTE, incoming.get(),
                       incoming_bytes.data(), recv_displs.data(), MPI_BYTE, file.comm) != MPI_SUCCESS) {
      return EIO;
    }
    // Place the pieces, then write each covered run whole (holes between
    // runs are left as the file has them).
    std::vector<WirePiece> runs;
    std::size_t taken = 0;
    for (const WirePiece& piece : received) {
      std::memcpy(staging.get() + (piece.file - first), incoming.get() + taken, static_cast<std::size_t>(piece.length));
      taken += static_cast<std::size_t>(piece.length);
      runs.push_back(piece);
    }
    std::sort(runs.begin(), runs.end(), [](const WirePiece& a, const WirePiece& b) { return a.file < b.file; });
    std::vector<FileSegment> merged;
    for (const WirePiece& run : runs) {
      if (!merged.empty() && run.file <= merged.back().file + merged.back().length) {
        merged.back().length = std::max(merged.back().length, run.file + run.length - merged.back().file);
      } else {
        merged.push_back(FileSegment{run.file, run.file - first, run.length});
      }
    }
    std::size_t done = 0;
    error = transfer_segments(file, merged, staging.get(), true, done);
  } else {
    // One read over the span the pieces touch; past the end of the file reads zeros.
    MPI_Offset low = last, high = first;
    for (const WirePiece& piece : received) {
      low = std::min(low, piece.file);
      high = std::max(high, piece.file + piece.length);
    }
    if (low < high) {
      std::size_t done = 0;
      const std::vector<FileSegment> span{FileSegment{low, low - first, high - low}};
      error = transfer_segments(file, span, staging.get(), false, done);
    }
    std::size_t packed = 0;
    for (const WirePiece& piece : received) {
      std::memcpy(incoming.get() + packed, staging.get() + (piece.file - first), static_cast<std::size_t>(piece.length));
      packed += static_cast<std::size_t>(piece.length);
    }
    if (PMPI_Alltoallv(incoming.get(), incoming_bytes.data(), recv_displs.data(), MPI_BYTE, outgoing.get(),
                       byte_counts.data(), send_displs.data(), MPI_BYTE, file.comm) != MPI_SUCCESS) {
      return EIO;
    }
    std::size_t unpacked = 0;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      const MPI_Offset there = std::clamp<MPI_Offset>(plan.end_of_file - pieces[i].file, 0, pieces[i].length);
      std::memcpy(data + piece_data[i], outgoing.get() + unpacked, static_cast<std::size_t>(there));
      unpacked += static_cast<std::size_t>(pieces[i].length);
    }
  }
  return error;
}

// Bytes of a read's data that lie before the end of the file (a read past
// the end delivers what is there, as an independent read does).
// Whether the ranks' byte ranges (AccessField records; low -1: none)
// overlap: only then does aggregation turn small writes into large ones.
bool ranges_interleave(const std::vector<MPI_Offset>& all, int size) {
  std::vector<std::pair<MPI_Offset, MPI_Offset>> ranges;
  for (int r = 0; r < size; ++r) {
    const MPI_Offset* record = &all[static_cast<std::size_t>(kAccessFields * r)];
    if (record[kLow] >= 0) ranges.emplace_back(record[kLow], record[kHigh]);
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first < ranges[i - 1].second) return true;
  }
  return false;
}

std::size_t bytes_before_end(const std::vector<FileSegment>& segments, MPI_Offset file_size) {
  std::size_t bytes = 0;
  for (const FileSegment& segment : segments) {
    if (segment.file >= file_size) break;
    const MPI_Offset length = std::min(segment.length, file_size - segment.file);
    bytes += static_cast<std::size_t>(length);
    if (length < segment.length) break;
  }
  return bytes;
}

}  // namespace

int collective_access(const char* function, MPI_File fh, Where where, void* buf, MPI_Count count, MPI_Datatype datatype,
                      bool write, MPI_Status* status) {
  File* file = nullptr;
  if (const int error = find_file_checked(function, fh, file); error != MPI_SUCCESS) return error;
  // Argument errors are local, but every rank must learn of them before the
  // exchange starts: they travel with the first allgather.
  int local_error = where.shared ? MPI_SUCCESS : check_not_sequential(function, *file);
  std::shared_ptr<const DerivedType> type;
  if (local_error == MPI_SUCCESS && where.offset < 0) {
    local_error = raise_file(file, MPI_ERR_ARG, function, "negative offset %lld", where.offset);
  }
  if (local_error == MPI_SUCCESS) local_error = check_access(function, *file, buf, count, datatype, write, type);
  PackedBuffer packed;
  if (local_error == MPI_SUCCESS) {
    local_error = packed.prepare(function, *file, type, datatype, buf, static_cast<std::size_t>(count), write);
  }
  const MPI_Offset start = where.at_pointer ? file->position : where.offset;
  const auto etype_size = static_cast<MPI_Offset>(file->view.etype_size);
  std::vector<FileSegment> segments;
  if (local_error == MPI_SUCCESS) {
    view_segments(file->view, start * etype_size, static_cast<MPI_Offset>(packed.bytes()), segments);
  }
  MPI_Offset end_of_file = 0;
  if (local_error == MPI_SUCCESS && !write) local_error = PMPI_File_get_size(fh, &end_of_file);
  MPI_Offset mine[kAccessFields] = {segments.empty() ? -1 : segments.front().file,
                                    segments.empty() ? -1 : segments.back().file + segments.back().length,
                                    local_error, static_cast<MPI_Offset>(packed.bytes())};
  int size = 0, rank = 0;
  PMPI_Comm_size(file->comm, &size);
  PMPI_Comm_rank(file->comm, &rank);
  std::vector<MPI_Offset> all(static_cast<std::size_t>(kAccessFields * size));
  if (PMPI_Allgather(mine, kAccessFields, MPI_OFFSET, all.data(), kAccessFields, MPI_OFFSET, file->comm) !=
      MPI_SUCCESS) {
    return raise_file(file, MPI_ERR_OTHER, function, "exchange of access ranges failed");
  }
  Plan plan;
  plan.size = size;
  plan.low = -1;
  MPI_Offset most_bytes = 0;  // of one rank
  for (int r = 0; r < size; ++r) {
    const MPI_Offset* record = &all[static_cast<std::size_t>(kAccessFields * r)];
    if (record[kError] != MPI_SUCCESS) {
      if (local_error != MPI_SUCCESS) return local_error;
      return raise_file(file, MPI_ERR_OTHER, function, "rank %d's arguments were refused", r);
    }
    if (record[kLow] < 0) continue;
    plan.low = plan.low < 0 ? record[kLow] : std::min(plan.low, record[kLow]);
    plan.high = std::max(plan.high, record[kHigh]);
    most_bytes = std::max(most_bytes, record[kBytes]);
  }
  int error = 0;
  plan.end_of_file = end_of_file;
  const std::string* aggregation = hint(*file, write ? "romio_cb_write" : "romio_cb_read");
  const bool automatic = most_bytes >= kAggregateFrom && ranges_interleave(all, size);
  const bool aggregate = aggregation != nullptr && *aggregation == "enable"    ? true
                         : aggregation != nullptr && *aggregation == "disable" ? false
                                                                               : automatic;
  if (plan.low >= 0 && !aggregate) {
    std::size_t done = 0;
    error = transfer_segments(*file, segments, packed.data(), write, done);
  } else if (plan.low >= 0) {
    plan.aggregators = static_cast<int>(std::min<long long>(size, hint_number(*file, "cb_nodes", size)));
    plan.domain = (plan.high - plan.low + plan.aggregators - 1) / plan.aggregators;
    plan.window = std::min(hint_number(*file, "cb_buffer_size", kDefaultWindow), kMaxWindow);
    plan.rounds = (plan.domain + plan.window - 1) / plan.window;
    for (MPI_Offset round = 0; round < plan.rounds && error == 0; ++round) {
      error = exchange_round(*file, plan, round, rank, segments, packed.data(), write);
    }
  }
  // Every rank learns whether any aggregator failed.
  int worst = error;
  if (PMPI_Allreduce(&error, &worst, 1, MPI_INT, MPI_MAX, file->comm) != MPI_SUCCESS) worst = EIO;
  std::size_t moved = packed.bytes();
  int conversion_error = MPI_SUCCESS;
  if (!write && worst == 0) {
    moved = bytes_before_end(segments, plan.end_of_file);
    conversion_error = packed.finish(moved);
  }
  if (worst != 0) moved = 0;
  if (where.at_pointer) file->position = start + static_cast<MPI_Offset>(moved) / etype_size;
  file_status(status, packed.native_bytes(moved));
  if (worst != 0) {
    return raise_file(file, error_class_of_errno(worst), function, "collective %s of %s failed: %s",
                      write ? "write" : "read", file->path.c_str(), std::strerror(worst));
  }
  if (conversion_error != MPI_SUCCESS) {
    return raise_file(file, conversion_error, function, "the read conversion of data representation \"%s\" failed",
                      file->view.user_datarep->name.c_str());
  }
  return MPI_SUCCESS;
}

}  // namespace tern::mpi

using namespace tern::mpi;

extern "C" {

int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                          MPI_Status* status) {
  return collective_access("MPI_File_read_at_all", fh, at(offset), buf, count, datatype, false, status);
}

int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                           MPI_Status* status) {
  return collective_access("MPI_File_write_at_all", fh, at(offset), const_cast<void*>(buf), count, datatype,
                           true, status);
}

int PMPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return collective_access("MPI_File_read_all", fh, kAtPointer, buf, count, datatype, false, status);
}

int PMPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return collective_access("MPI_File_write_all", fh, kAtPointer, const_cast<void*>(buf), count, datatype, true,
                           status);
}

// The large-count (_c) forms: the same accesses with MPI_Count counts.
int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Status* status) {
  return collective_access("MPI_File_read_at_all_c", fh, at(offset), buf, count, datatype, false, status);
}

int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Status* status) {
  return collective_access("MPI_File_write_at_all_c", fh, at(offset), const_cast<void*>(buf), count, datatype,
                           true, status);
}

int PMPI_File_read_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return collective_access("MPI_File_read_all_c", fh, kAtPointer, buf, count, datatype, false, status);
}

int PMPI_File_write_all_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return collective_access("MPI_File_write_all_c", fh, kAtPointer, const_cast<void*>(buf), count, datatype, true,
                           status);
}

#pragma weak MPI_File_read_at_all = PMPI_File_read_at_all
#pragma weak MPI_File_write_at_all = PMPI_File_write_at_all
#pragma weak MPI_File_read_all = PMPI_File_read_all
#pragma weak MPI_File_write_all = PMPI_File_write_all
#pragma weak MPI_File_read_at_all_c = PMPI_File_read_at_all_c
#pragma weak MPI_File_write_at_all_c = PMPI_File_write_at_all_c
#pragma weak MPI_File_read_all_c = PMPI_File_read_all_c
#pragma weak MPI_File_write_all_c = PMPI_File_write_all_c

}  // extern "C"
