// File views: a displacement, an etype and a filetype tiled from the
// displacement on. The filetype's flattened blocks (datatype/derived.hpp)
// say which bytes of each tile hold data; an access walks them to turn a
// run of the view's data into (file offset, length) pieces.
#include <cstring>

#include "datatype/external.hpp"
#include "io/file.hpp"
#include "state.hpp"

namespace tern::mpi {

void view_segments(const FileView& view, MPI_Offset data_start, MPI_Offset bytes, std::vector<FileSegment>& out) {
  out.clear();
  if (bytes <= 0) return;
  const DerivedType& map = *view.filetype_map;
  // Tiles of one block as long as the extent abut: the data is one run (the
  // default view, any etype-only view), found without a walk per tile.
  if (map.blocks.size() == 1 && static_cast<MPI_Aint>(map.blocks[0].length) == map.extent) {
    out.push_back(FileSegment{view.disp + map.blocks[0].offset + data_start, 0, bytes});
    return;
  }
  const auto tile_size = static_cast<MPI_Offset>(map.size);
  MPI_Offset tile = data_start / tile_size;
  MPI_Offset skip = data_start % tile_size;  // data bytes of the first tile before the start
  MPI_Offset data = 0;
  while (data < bytes) {
    const MPI_Offset tile_base = view.disp + tile * static_cast<MPI_Offset>(map.extent);
    for (const TypeBlock& block : map.blocks) {
      auto length = static_cast<MPI_Offset>(block.length);
      MPI_Offset file = tile_base + block.offset;
      if (skip >= length) {
        skip -= length;
        continue;
      }
      file += skip;
      length = std::min(length - skip, bytes - data);
      skip = 0;
      if (!out.empty() && out.back().file + out.back().length == file) {
        out.back().length += length;
      } else {
        out.push_back(FileSegment{file, data, length});
      }
      data += length;
      if (data == bytes) return;
    }
    ++tile;
  }
}

MPI_Offset view_byte_offset(const FileView& view, MPI_Offset offset) {
  std::vector<FileSegment> first;
  view_segments(view, offset * static_cast<MPI_Offset>(view.etype_size), 1, first);
  return first.front().file;
}

}  // namespace tern::mpi

using namespace tern::mpi;

namespace {

// Why a filetype cannot tile a view (its data must ascend without overlap
// inside one extent, so that tiles never overlap), or null.
const char* filetype_problem(const DerivedType& map, std::size_t etype_size) {
  if (map.size == 0) return "holds no data";
  if (map.size % etype_size != 0) return "is not made of whole etypes";
  MPI_Aint end = map.lb;
  for (const TypeBlock& block : map.blocks) {
    if (block.offset < end) return "has displacements that decrease or overlap";
    end = block.offset + static_cast<MPI_Aint>(block.length);
  }
  if (end > map.lb + map.extent) return "has data beyond its extent";
  return nullptr;
}

// A private handle for a view's derived type: the user may free theirs.
int hold_type(MPI_Datatype type, MPI_Datatype& held) {
  if (!is_derived_handle(type)) {
    held = type;
    return MPI_SUCCESS;
  }
  return PMPI_Type_dup(type, &held);
}

}  // namespace

extern "C" {

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char* datarep, MPI_Info info) {
  static constexpr const char* kFunction = "MPI_File_set_view";
  File* file = nullptr;
  if (const int error = find_file_checked(kFunction, fh, file); error != MPI_SUCCESS) return error;
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    if ((file->amode & MPI_MODE_SEQUENTIAL) == 0) {
      return raise_file(file, MPI_ERR_ARG, kFunction, "MPI_DISPLACEMENT_CURRENT without MPI_MODE_SEQUENTIAL");
    }
    if (const int error = shared_pointer_bytes(kFunction, *file, disp); error != MPI_SUCCESS) return error;
  }
  if (disp < 0) return raise_file(file, MPI_ERR_ARG, kFunction, "invalid displacement %lld", disp);
  auto etype_map = describe_type(etype);
  auto filetype_map = describe_type(filetype);
  if (etype_map == nullptr || !etype_map->committed || etype_map->size == 0) {
    return raise_file(file, MPI_ERR_TYPE, kFunction, "etype %d is not a committed datatype with data", etype);
  }
  if (filetype_map == nullptr || !filetype_map->committed) {
    return raise_file(file, MPI_ERR_TYPE, kFunction, "filetype %d is not a committed datatype", filetype);
  }
  if (const char* problem = filetype_problem(*filetype_map, etype_map->size)) {
    return raise_file(file, MPI_ERR_TYPE, kFunction, "filetype %d %s", filetype, problem);
  }
  if (datarep == nullptr) return raise_file(file, MPI_ERR_ARG, kFunction, "null datarep");
  const bool external32 = std::strcmp(datarep, "external32") == 0;
  std::shared_ptr<const UserDatarep> user_datarep;
  if (!external32 && std::strcmp(datarep, "native") != 0 && std::strcmp(datarep, "internal") != 0) {
    user_datarep = find_datarep(datarep);
    if (user_datarep == nullptr) {
      return raise_file(file, MPI_ERR_UNSUPPORTED_DATAREP, kFunction,
                        "data representation \"%s\" (Tern has \"native\", \"internal\" (the same), \"external32\" "
                        "and those registered with MPI_Register_datarep)",
                        datarep);
    }
    int error = MPI_SUCCESS;
    MPI_Datatype offending = MPI_DATATYPE_NULL;
    if (!datarep_same_layout(*user_datarep, *etype_map, &error, &offending) ||
        !datarep_same_layout(*user_datarep, *filetype_map, &error, &offending)) {
      return raise_file(file, error, kFunction,
                        "a view in data representation \"%s\" of datatype %d, whose file extent there differs from "
                        "its size here (or whose extent callback failed), is not supported",
                        datarep, offending);
    }
  }
  MPI_Datatype offending = MPI_DATATYPE_NULL;
  if (external32 && (!external32_same_layout(*etype_map, &offending) ||
                     !external32_same_layout(*filetype_map, &offending))) {
    return raise_file(file, MPI_ERR_UNSUPPORTED_DATAREP, kFunction,
                      "an \"external32\" view of datatype %d, whose size there differs from its size here, is not "
                      "supported (its etype and filetype would need a layout of their own)",
                      offending);
  }
  if (info != MPI_INFO_NULL && PMPI_File_set_info(fh, info) != MPI_SUCCESS) {
    return raise_file(file, MPI_ERR_INFO, kFunction, "invalid info object %d", info);
  }
  FileView view;
  if (hold_type(etype, view.etype) != MPI_SUCCESS) {
    return raise_file(file, MPI_ERR_TYPE, kFunction, "cannot keep etype %d", etype);
  }
  if (hold_type(filetype, view.filetype) != MPI_SUCCESS) {
    if (is_derived_handle(view.etype)) PMPI_Type_free(&view.etype);
    return raise_file(file, MPI_ERR_TYPE, kFunction, "cannot keep filetype %d", filetype);
  }
  view.disp = disp;
  view.external32 = external32;
  view.user_datarep = std::move(user_datarep);
  view.etype_size = etype_map->size;
  view.filetype_map = std::move(filetype_map);
  for (MPI_Datatype* type : {&file->view.etype, &file->view.filetype}) {
    if (is_derived_handle(*type)) PMPI_Type_free(type);
  }
  file->view = std::move(view);
  file->position = 0;
  // Collective: every rank is done with the old view before rank 0 resets
  // the shared pointer, and none goes on before it has (the broadcast).
  int rank = 0;
  PMPI_Comm_rank(file->comm, &rank);
  int error = PMPI_Barrier(file->comm) == MPI_SUCCESS ? 0 : EIO;
  if (error == 0) error = reset_shared_pointer(*file, rank);
  if (PMPI_Bcast(&error, 1, MPI_INT, 0, file->comm) != MPI_SUCCESS) error = EIO;
  if (error != 0) {
    return raise_file(file, error_class_of_errno(error), kFunction, "cannot reset the shared file pointer: %s",
                      std::strerror(error));
  }
  return MPI_SUCCESS;
}

int PMPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype,
                       char* datarep) {
  static constexpr const char* kFunction = "MPI_File_get_view";
  File* file = nullptr;
  if (const int error = find_file_checked(kFunction, fh, file); error != MPI_SUCCESS) return error;
  if (disp == nullptr || etype == nullptr || filetype == nullptr || datarep == nullptr) {
    return raise_file(file, MPI_ERR_ARG, kFunction, "null output argument");
  }
  // Derived types come back as new handles the caller frees, as the standard says.
  if (hold_type(file->view.etype, *etype) != MPI_SUCCESS ||
      hold_type(file->view.filetype, *filetype) != MPI_SUCCESS) {
    return raise_file(file, MPI_ERR_NO_MEM, kFunction, "no datatype handle left");
  }
  *disp = file->view.disp;
  std::snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s",
                file->view.user_datarep != nullptr ? file->view.user_datarep->name.c_str()
                : file->view.external32            ? "external32"
                                                   : "native");
  return MPI_SUCCESS;
}

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  static constexpr const char* kFunction = "MPI_File_get_byte_offset";
  File* file = nullptr;
  if (const int error = find_file_checked(kFunction, fh, file); error != MPI_SUCCESS) return error;
  if (const int error = check_not_sequential(kFunction, *file); error != MPI_SUCCESS) return error;
  if (offset < 0) return raise_file(file, MPI_ERR_ARG, kFunction, "negative offset %lld", offset);
  if (disp == nullptr) return raise_file(file, MPI_ERR_ARG, kFunction, "null disp argument");
  *disp = view_byte_offset(file->view, offset);
  return MPI_SUCCESS;
}

}  // extern "C"

namespace {

int type_extent(const char* kFunction, MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  File* file = nullptr;
  if (const int error = find_file_checked(kFunction, fh, file); error != MPI_SUCCESS) return error;
  auto map = describe_type(datatype);
  if (map == nullptr) return raise_file(file, MPI_ERR_TYPE, kFunction, "invalid datatype %d", datatype);
  if (extent == nullptr) return raise_file(file, MPI_ERR_ARG, kFunction, "null extent argument");
  if (!file->view.external32) {
    *extent = map->extent;  // "native": the file holds the memory layout
    return MPI_SUCCESS;
  }
  MPI_Datatype offending = MPI_DATATYPE_NULL;
  bool convertible = false;
  const std::size_t external = external32_size(*map, &convertible);
  if (external32_same_layout(*map, &offending)) {
    *extent = map->extent;
  } else if (convertible && !is_derived_handle(datatype)) {
    *extent = static_cast<MPI_Aint>(external);  // a predefined type: its external32 size
  } else {
    return raise_file(file, MPI_ERR_UNSUPPORTED_DATAREP, kFunction,
                      "the external32 extent of datatype %d, which holds type %d of another size there", datatype,
                      offending);
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  return type_extent("MPI_File_get_type_extent", fh, datatype, extent);
}

int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count* extent) {
  MPI_Aint found = 0;
  const int error = type_extent("MPI_File_get_type_extent_c", fh, datatype, extent != nullptr ? &found : nullptr);
  if (error == MPI_SUCCESS) *extent = found;
  return error;
}

#pragma weak MPI_File_set_view = PMPI_File_set_view
#pragma weak MPI_File_get_view = PMPI_File_get_view
#pragma weak MPI_File_get_byte_offset = PMPI_File_get_byte_offset
#pragma weak MPI_File_get_type_extent = PMPI_File_get_type_extent
#pragma weak MPI_File_get_type_extent_c = PMPI_File_get_type_extent_c

}  // extern "C"
