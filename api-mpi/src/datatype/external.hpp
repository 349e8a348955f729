// The "external32" representation (MPI 4.x section 13.5.2) for the other
// chapters: MPI-IO views in that representation convert through these.
#pragma once

#include <cstddef>

#include "datatype/derived.hpp"

namespace tern::mpi {

// The external32 bytes of one instance of `type`; 0 with *ok false when a
// basic type of it has no external32 form here.
[[nodiscard]] std::size_t external32_size(const DerivedType& type, bool* ok);
// Whether every basic element of `type` has the same size in external32 as
// here, so that its layout is the same in both; false with the first type
// that differs (MPI_LONG: 4 bytes there, 8 here).
[[nodiscard]] bool external32_same_layout(const DerivedType& type, MPI_Datatype* offending);
// `count` instances at `from` (native layout) into external32 bytes at `to`;
// false with *bad the type of a value too wide for its external32 size.
[[nodiscard]] bool external32_pack(const DerivedType& type, std::size_t count, const void* from, void* to,
                                   MPI_Datatype* bad);
// The reverse: external32 bytes at `from` into `count` native instances.
void external32_unpack(const DerivedType& type, std::size_t count, const void* from, void* to);

}  // namespace tern::mpi
