// Datatype decoding: MPI_Type_get_envelope and MPI_Type_get_contents read
// the constructor record each derived type keeps (TypeContents).
#include "datatype/derived.hpp"
#include "state.hpp"

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses, int* num_datatypes,
                           int* combiner) {
  constexpr const char* kFunction = "MPI_Type_get_envelope";
  if (g_state == nullptr) return not_initialized(kFunction);
  const std::shared_ptr<const DerivedType> type = describe_type(datatype);
  if (type == nullptr) return raise(nullptr, MPI_ERR_TYPE, kFunction, "invalid datatype %d", datatype);
  if (num_integers == nullptr || num_addresses == nullptr || num_datatypes == nullptr || combiner == nullptr) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null argument");
  }
  const TypeContents& contents = type->contents;
  *num_integers = static_cast<int>(contents.ints.size());
  *num_addresses = static_cast<int>(contents.aints.size());
  *num_datatypes = static_cast<int>(contents.types.size());
  *combiner = contents.combiner;
  return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int array_of_integers[], MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[]) {
  constexpr const char* kFunction = "MPI_Type_get_contents";
  if (g_state == nullptr) return not_initialized(kFunction);
  const std::shared_ptr<const DerivedType> type = describe_type(datatype);
  if (type == nullptr) return raise(nullptr, MPI_ERR_TYPE, kFunction, "invalid datatype %d", datatype);
  const TypeContents& contents = type->contents;
  if (contents.combiner == MPI_COMBINER_NAMED) {
    return raise(nullptr, MPI_ERR_TYPE, kFunction, "datatype %d is predefined: it has no contents", datatype);
  }
  const std::size_t ints = contents.ints.size(), aints = contents.aints.size(), types = contents.types.size();
  if (max_integers < 0 || max_addresses < 0 || max_datatypes < 0 || static_cast<std::size_t>(max_integers) < ints ||
      static_cast<std::size_t>(max_addresses) < aints || static_cast<std::size_t>(max_datatypes) < types) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "arrays of %d, %d, %d entries for %zu integers, %zu addresses, %zu datatypes",
                 max_integers, max_addresses, max_datatypes, ints, aints, types);
  }
  if ((ints > 0 && array_of_integers == nullptr) || (aints > 0 && array_of_addresses == nullptr) ||
      (types > 0 && array_of_datatypes == nullptr)) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null array argument");
  }
  for (std::size_t i = 0; i < ints; ++i) array_of_integers[i] = contents.ints[i];
  for (std::size_t i = 0; i < aints; ++i) array_of_addresses[i] = contents.aints[i];
  // Derived old types come back as new handles (the originals may be freed
  // already); predefined ones as themselves.
  for (std::size_t i = 0; i < types; ++i) {
    const DerivedType& old = *contents.types[i];
    array_of_datatypes[i] = old.predefined ? old.basic : publish_copy(old);
    if (array_of_datatypes[i] == MPI_DATATYPE_NULL) {
      for (std::size_t j = 0; j < i; ++j) {
        if (!contents.types[j]->predefined) (void)PMPI_Type_free(&array_of_datatypes[j]);
      }
      return raise(nullptr, MPI_ERR_NO_MEM, kFunction, "too many datatypes");
    }
  }
  return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents

}  // extern "C"
