// MPI_Register_datarep(_c): a table of the program's data representations,
// by name, for MPI_File_set_view. Accesses through such a view pack the
// data (datatype/derived.hpp) into the layout the view already has and let
// the program's callbacks convert the values on their way to and from the
// file (io/independent.cpp's PackedBuffer).
#include "io/datarep.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

#include "io/file.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

std::mutex g_datareps_mutex;
std::map<std::string, std::shared_ptr<const UserDatarep>, std::less<>> g_datareps;

int register_datarep(const char* function, const char* name, UserDatarep rep) {
  if (name == nullptr) return raise_file(nullptr, MPI_ERR_ARG, function, "null datarep argument");
  const std::size_t length = std::strlen(name);
  if (length == 0 || length >= MPI_MAX_DATAREP_STRING) {
    return raise_file(nullptr, MPI_ERR_ARG, function, "datarep \"%s\" is empty or longer than MPI_MAX_DATAREP_STRING",
                      name);
  }
  if (rep.extent == nullptr) return raise_file(nullptr, MPI_ERR_ARG, function, "null dtype_file_extent_fn argument");
  if (std::strcmp(name, "native") == 0 || std::strcmp(name, "internal") == 0 || std::strcmp(name, "external32") == 0) {
    return raise_file(nullptr, MPI_ERR_DUP_DATAREP, function, "\"%s\" is a predefined data representation", name);
  }
  rep.name = name;
  std::lock_guard lock(g_datareps_mutex);
  if (g_datareps.count(rep.name) != 0) {
    return raise_file(nullptr, MPI_ERR_DUP_DATAREP, function, "data representation \"%s\" is already registered",
                      name);
  }
  std::string key = rep.name;
  g_datareps.emplace(std::move(key), std::make_shared<const UserDatarep>(std::move(rep)));
  return MPI_SUCCESS;
}

}  // namespace

std::shared_ptr<const UserDatarep> find_datarep(const char* name) {
  std::lock_guard lock(g_datareps_mutex);
  auto it = g_datareps.find(std::string_view(name));
  return it == g_datareps.end() ? nullptr : it->second;
}

bool datarep_same_layout(const UserDatarep& rep, const DerivedType& type, int* error, MPI_Datatype* offending) {
  for (const TypeRun& run : type.runs) {
    const auto basic = describe_type(run.type);
    MPI_Aint file_extent = -1;
    const int rc = rep.extent(run.type, &file_extent, rep.extra_state);
    if (rc != MPI_SUCCESS || basic == nullptr || file_extent != static_cast<MPI_Aint>(basic->size)) {
      *error = rc != MPI_SUCCESS ? rc : MPI_ERR_UNSUPPORTED_DATAREP;
      *offending = run.type;
      return false;
    }
  }
  return true;
}

int datarep_convert(const UserDatarep& rep, bool write, void* user, MPI_Datatype datatype, std::size_t count,
                    void* file) {
  if (count == 0) return MPI_SUCCESS;
  MPI_Datarep_conversion_function* int_form = write ? rep.write : rep.read;
  MPI_Datarep_conversion_function_c* count_form = write ? rep.write_c : rep.read_c;
  if (count_form != nullptr) {
    return count_form(user, datatype, static_cast<MPI_Count>(count), file, 0, rep.extra_state);
  }
  // The int form in pieces of at most INT_MAX items, `position` telling
  // where each starts.
  constexpr std::size_t kMostItems = 0x7FFFFFFF;
  for (std::size_t done = 0; done < count;) {
    const std::size_t items = std::min(count - done, kMostItems);
    const std::shared_ptr<const DerivedType> type = describe_type(datatype);
    const std::size_t file_offset = type == nullptr ? 0 : done * type->size;
    const int rc = int_form(user, datatype, static_cast<int>(items), static_cast<char*>(file) + file_offset,
                            static_cast<MPI_Offset>(done), rep.extra_state);
    if (rc != MPI_SUCCESS) return rc;
    done += items;
  }
  return MPI_SUCCESS;
}

}  // namespace tern::mpi

using namespace tern::mpi;

extern "C" {

int PMPI_Register_datarep(const char* datarep, MPI_Datarep_conversion_function* read_conversion_fn,
                          MPI_Datarep_conversion_function* write_conversion_fn,
                          MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  constexpr const char* kFunction = "MPI_Register_datarep";
  if (g_state == nullptr) return not_initialized(kFunction);
  UserDatarep rep;
  rep.read = read_conversion_fn;
  rep.write = write_conversion_fn;
  rep.extent = dtype_file_extent_fn;
  rep.extra_state = extra_state;
  return register_datarep(kFunction, datarep, std::move(rep));
}

int PMPI_Register_datarep_c(const char* datarep, MPI_Datarep_conversion_function_c* read_conversion_fn,
                            MPI_Datarep_conversion_function_c* write_conversion_fn,
                            MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  constexpr const char* kFunction = "MPI_Register_datarep_c";
  if (g_state == nullptr) return not_initialized(kFunction);
  UserDatarep rep;
  rep.read_c = read_conversion_fn;
  rep.write_c = write_conversion_fn;
  rep.extent = dtype_file_extent_fn;
  rep.extra_state = extra_state;
  return register_datarep(kFunction, datarep, std::move(rep));
}

#pragma weak MPI_Register_datarep = PMPI_Register_datarep
#pragma weak MPI_Register_datarep_c = PMPI_Register_datarep_c

}  // extern "C"
