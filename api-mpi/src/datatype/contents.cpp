// Datatype decoding: MPI_Type_get_envelope and MPI_Type_get_contents, int
// and large-count forms, read the constructor record each derived type
// keeps (TypeContents).
#include <algorithm>

#include "datatype/derived.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

// `large`: the _c forms, which also return the large counts; the int forms
// refuse a type that has any (made by a large-count constructor), whose
// contents their int arguments cannot return (MPI_ERR_VALUE_TOO_LARGE).
int too_large_for_int(const char* function, MPI_Datatype datatype, const char* what) {
  return raise(nullptr, MPI_ERR_VALUE_TOO_LARGE, function,
               "datatype %d was made by a large-count constructor: its %s needs the call's _c form", datatype, what);
}

int get_envelope(const char* function, MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
                 MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner, bool large) {
  if (g_state == nullptr) return not_initialized(function);
  const std::shared_ptr<const DerivedType> type = describe_type(datatype);
  if (type == nullptr) return raise(nullptr, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
  if (num_integers == nullptr || num_addresses == nullptr || (large && num_large_counts == nullptr) ||
      num_datatypes == nullptr || combiner == nullptr) {
    return raise(nullptr, MPI_ERR_ARG, function, "null argument");
  }
  const TypeContents& contents = type->contents;
  if (!large && !contents.large_counts.empty()) {
    return too_large_for_int(function, datatype, "envelope");
  }
  *num_integers = static_cast<MPI_Count>(contents.ints.size());
  *num_addresses = static_cast<MPI_Count>(contents.aints.size());
  if (large) *num_large_counts = static_cast<MPI_Count>(contents.large_counts.size());
  *num_datatypes = static_cast<MPI_Count>(contents.types.size());
  *combiner = contents.combiner;
  return MPI_SUCCESS;
}

int get_contents(const char* function, MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                 MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                 MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                 MPI_Datatype array_of_datatypes[], bool large) {
  if (g_state == nullptr) return not_initialized(function);
  const std::shared_ptr<const DerivedType> type = describe_type(datatype);
  if (type == nullptr) return raise(nullptr, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
  const TypeContents& contents = type->contents;
  if (contents.combiner == MPI_COMBINER_NAMED) {
    return raise(nullptr, MPI_ERR_TYPE, function, "datatype %d is predefined: it has no contents", datatype);
  }
  if (!large && !contents.large_counts.empty()) return too_large_for_int(function, datatype, "contents");
  const auto ints = static_cast<MPI_Count>(contents.ints.size()), aints = static_cast<MPI_Count>(contents.aints.size()),
             larges = static_cast<MPI_Count>(contents.large_counts.size()),
             types = static_cast<MPI_Count>(contents.types.size());
  if (max_integers < ints || max_addresses < aints || max_large_counts < larges || max_datatypes < types) {
    return raise(nullptr, MPI_ERR_ARG, function,
                 "arrays of %lld, %lld, %lld, %lld entries for %lld integers, %lld addresses, %lld large counts, "
                 "%lld datatypes",
                 max_integers, max_addresses, max_large_counts, max_datatypes, ints, aints, larges, types);
  }
  if ((ints > 0 && array_of_integers == nullptr) || (aints > 0 && array_of_addresses == nullptr) ||
      (larges > 0 && array_of_large_counts == nullptr) || (types > 0 && array_of_datatypes == nullptr)) {
    return raise(nullptr, MPI_ERR_ARG, function, "null array argument");
  }
  std::copy(contents.ints.begin(), contents.ints.end(), array_of_integers);
  std::copy(contents.aints.begin(), contents.aints.end(), array_of_addresses);
  std::copy(contents.large_counts.begin(), contents.large_counts.end(), array_of_large_counts);
  // Derived old types come back as new handles (the originals may be freed
  // already); predefined ones as themselves.
  for (std::size_t i = 0; i < contents.types.size(); ++i) {
    const DerivedType& old = *contents.types[i];
    array_of_datatypes[i] = old.predefined ? old.basic : publish_copy(old);
    if (array_of_datatypes[i] == MPI_DATATYPE_NULL) {
      for (std::size_t j = 0; j < i; ++j) {
        if (!contents.types[j]->predefined) (void)PMPI_Type_free(&array_of_datatypes[j]);
      }
      return raise(nullptr, MPI_ERR_NO_MEM, function, "too many datatypes");
    }
  }
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses, int* num_datatypes,
                           int* combiner) {
  MPI_Count ints = 0, aints = 0, types = 0;
  const int err = get_envelope("MPI_Type_get_envelope", datatype, num_integers != nullptr ? &ints : nullptr,
                               num_addresses != nullptr ? &aints : nullptr, nullptr,
                               num_datatypes != nullptr ? &types : nullptr, combiner, false);
  if (err != MPI_SUCCESS) return err;
  // Contents lengths follow the constructors' int counts: they fit.
  *num_integers = static_cast<int>(ints);
  *num_addresses = static_cast<int>(aints);
  *num_datatypes = static_cast<int>(types);
  return MPI_SUCCESS;
}

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
                             MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner) {
  return get_envelope("MPI_Type_get_envelope_c", datatype, num_integers, num_addresses, num_large_counts,
                      num_datatypes, combiner, true);
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int array_of_integers[], MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[]) {
  return get_contents("MPI_Type_get_contents", datatype, max_integers, max_addresses, 0, max_datatypes,
                      array_of_integers, array_of_addresses, nullptr, array_of_datatypes, false);
}

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[]) {
  return get_contents("MPI_Type_get_contents_c", datatype, max_integers, max_addresses, max_large_counts,
                      max_datatypes, array_of_integers, array_of_addresses, array_of_large_counts,
                      array_of_datatypes, true);
}

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
#pragma weak MPI_Type_get_envelope_c = PMPI_Type_get_envelope_c
#pragma weak MPI_Type_get_contents_c = PMPI_Type_get_contents_c

}  // extern "C"
