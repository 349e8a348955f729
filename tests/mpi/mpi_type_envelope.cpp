// Datatype decoding: MPI_Type_get_envelope and MPI_Type_get_contents for
// every constructor. Each type's contents must give back the arguments it
// was made with, and a type rebuilt from them, recursively down to the
// predefined types, must have the same type map (compared by packing a
// patterned buffer) and bounds.
#include <mpi.h>

#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

using tern::mpi_test::conclude;

struct Contents {
  int combiner = 0;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<MPI_Datatype> types;
};

Contents contents_of(MPI_Datatype type) {
  Contents c;
  int ni = 0, na = 0, nt = 0;
  CHECK(MPI_Type_get_envelope(type, &ni, &na, &nt, &c.combiner) == MPI_SUCCESS);
  if (c.combiner == MPI_COMBINER_NAMED) {
    CHECK(ni == 0 && na == 0 && nt == 0);
    return c;
  }
  c.ints.resize(static_cast<std::size_t>(ni));
  c.aints.resize(static_cast<std::size_t>(na));
  c.types.resize(static_cast<std::size_t>(nt));
  CHECK(MPI_Type_get_contents(type, ni, na, nt, c.ints.data(), c.aints.data(), c.types.data()) == MPI_SUCCESS);
  return c;
}

bool is_named(MPI_Datatype type) {
  int ni = 0, na = 0, nt = 0, combiner = 0;
  MPI_Type_get_envelope(type, &ni, &na, &nt, &combiner);
  return combiner == MPI_COMBINER_NAMED;
}

// A type made again from `type`'s contents, its old types rebuilt the same
// way; the handles get_contents returned are freed (predefined ones are not
// freeable).
MPI_Datatype rebuild(MPI_Datatype type) {
  Contents c = contents_of(type);
  if (c.combiner == MPI_COMBINER_NAMED) return type;
  std::vector<MPI_Datatype> olds;
  for (MPI_Datatype t : c.types) olds.push_back(rebuild(t));
  const int* i = c.ints.data();
  const MPI_Aint* a = c.aints.data();
  MPI_Datatype out = MPI_DATATYPE_NULL;
  switch (c.combiner) {
    case MPI_COMBINER_DUP: MPI_Type_dup(olds[0], &out); break;
    case MPI_COMBINER_CONTIGUOUS: MPI_Type_contiguous(i[0], olds[0], &out); break;
    case MPI_COMBINER_VECTOR: MPI_Type_vector(i[0], i[1], i[2], olds[0], &out); break;
    case MPI_COMBINER_HVECTOR: MPI_Type_create_hvector(i[0], i[1], a[0], olds[0], &out); break;
    case MPI_COMBINER_INDEXED: MPI_Type_indexed(i[0], i + 1, i + 1 + i[0], olds[0], &out); break;
    case MPI_COMBINER_HINDEXED: MPI_Type_create_hindexed(i[0], i + 1, a, olds[0], &out); break;
    case MPI_COMBINER_INDEXED_BLOCK: MPI_Type_create_indexed_block(i[0], i[1], i + 2, olds[0], &out); break;
    case MPI_COMBINER_HINDEXED_BLOCK: MPI_Type_create_hindexed_block(i[0], i[1], a, olds[0], &out); break;
    case MPI_COMBINER_STRUCT: MPI_Type_create_struct(i[0], i + 1, a, olds.data(), &out); break;
    case MPI_COMBINER_SUBARRAY: {
      const int n = i[0];
      MPI_Type_create_subarray(n, i + 1, i + 1 + n, i + 1 + 2 * n, i[1 + 3 * n], olds[0], &out);
      break;
    }
    case MPI_COMBINER_DARRAY: {
      const int n = i[2];
      MPI_Type_create_darray(i[0], i[1], n, i + 3, i + 3 + n, i + 3 + 2 * n, i + 3 + 3 * n, i[3 + 4 * n], olds[0],
                             &out);
      break;
    }
    case MPI_COMBINER_RESIZED: MPI_Type_create_resized(olds[0], a[0], a[1], &out); break;
    default: CHECK(!"unexpected combiner");
  }
  for (std::size_t k = 0; k < c.types.size(); ++k) {
    if (!is_named(olds[k])) MPI_Type_free(&olds[k]);
    if (!is_named(c.types[k])) MPI_Type_free(&c.types[k]);
  }
  return out;
}

// The bytes `count` instances of `type` pack from a patterned buffer whose
// origin sits in its middle (room for negative displacements).
std::vector<char> packed(MPI_Datatype type, int count) {
  static std::vector<char> source = [] {
    std::vector<char> bytes(1 << 16);
    for (std::size_t k = 0; k < bytes.size(); ++k) bytes[k] = static_cast<char>(k * 7 + 3);
    return bytes;
  }();
  int size = 0;
  MPI_Pack_size(count, type, MPI_COMM_SELF, &size);
  std::vector<char> out(static_cast<std::size_t>(size));
  int position = 0;
  CHECK(MPI_Pack(source.data() + source.size() / 2, count, type, out.data(), size, &position, MPI_COMM_SELF) ==
        MPI_SUCCESS);
  CHECK(position == size);
  return out;
}

// `type` has `combiner` with these arguments, and its rebuilt form the same map.
void check_type(MPI_Datatype type, int combiner, const std::vector<int>& ints, const std::vector<MPI_Aint>& aints,
                const std::vector<MPI_Datatype>& olds, int line) {
  Contents c = contents_of(type);
  tern::mpi_test::check(c.combiner == combiner, "combiner", line);
  tern::mpi_test::check(c.ints == ints, "integers", line);
  tern::mpi_test::check(c.aints == aints, "addresses", line);
  tern::mpi_test::check(c.types.size() == olds.size(), "datatype count", line);
  for (std::size_t k = 0; k < c.types.size() && k < olds.size(); ++k) {
    // Predefined old types come back as themselves; derived ones as handles
    // with the same envelope.
    if (is_named(olds[k])) {
      tern::mpi_test::check(c.types[k] == olds[k], "predefined old type", line);
    } else {
      Contents mine = contents_of(olds[k]);
      Contents theirs = contents_of(c.types[k]);
      tern::mpi_test::check(mine.combiner == theirs.combiner && mine.ints == theirs.ints &&
                                mine.aints == theirs.aints,
                            "derived old type", line);
      for (MPI_Datatype t : mine.types) {
        if (!is_named(t)) MPI_Type_free(&t);
      }
      for (MPI_Datatype t : theirs.types) {
        if (!is_named(t)) MPI_Type_free(&t);
      }
      MPI_Type_free(&c.types[k]);
    }
  }
  MPI_Datatype again = rebuild(type);
  MPI_Type_commit(&again);
  MPI_Type_commit(&type);
  MPI_Aint lb = 0, extent = 0, lb2 = 0, extent2 = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  MPI_Type_get_extent(again, &lb2, &extent2);
  tern::mpi_test::check(lb == lb2 && extent == extent2, "bounds of the rebuilt type", line);
  tern::mpi_test::check(packed(type, 3) == packed(again, 3), "type map of the rebuilt type", line);
  MPI_Type_free(&again);
}

#define CHECK_TYPE(type, combiner, ints, aints, olds) check_type(type, combiner, ints, aints, olds, __LINE__)

using Ints = std::vector<int>;
using Aints = std::vector<MPI_Aint>;
using Types = std::vector<MPI_Datatype>;

void predefined() {
  int ni = -1, na = -1, nt = -1, combiner = -1;
  CHECK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nt, &combiner) == MPI_SUCCESS);
  CHECK(combiner == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nt == 0);
  CHECK(MPI_Type_get_envelope(MPI_DOUBLE_INT, &ni, &na, &nt, &combiner) == MPI_SUCCESS);
  CHECK(combiner == MPI_COMBINER_NAMED);
  int ints[1];
  MPI_Aint aints[1];
  MPI_Datatype types[1];
  const int rc = MPI_Type_get_contents(MPI_INT, 0, 0, 0, ints, aints, types);
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_TYPE);
}

void constructors() {
  MPI_Datatype contig = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(3, MPI_INT, &contig);
  CHECK_TYPE(contig, MPI_COMBINER_CONTIGUOUS, Ints{3}, Aints{}, Types{MPI_INT});

  MPI_Datatype dup = MPI_DATATYPE_NULL;
  MPI_Type_dup(MPI_DOUBLE, &dup);
  CHECK_TYPE(dup, MPI_COMBINER_DUP, Ints{}, Aints{}, Types{MPI_DOUBLE});
  MPI_Datatype dup_derived = MPI_DATATYPE_NULL;
  MPI_Type_dup(contig, &dup_derived);
  CHECK_TYPE(dup_derived, MPI_COMBINER_DUP, Ints{}, Aints{}, Types{contig});

  MPI_Datatype vector = MPI_DATATYPE_NULL;
  MPI_Type_vector(4, 2, 3, contig, &vector);
  CHECK_TYPE(vector, MPI_COMBINER_VECTOR, (Ints{4, 2, 3}), Aints{}, Types{contig});
  MPI_Datatype negative = MPI_DATATYPE_NULL;
  MPI_Type_vector(3, 1, -2, MPI_SHORT, &negative);
  CHECK_TYPE(negative, MPI_COMBINER_VECTOR, (Ints{3, 1, -2}), Aints{}, Types{MPI_SHORT});

  MPI_Datatype hvector = MPI_DATATYPE_NULL;
  MPI_Type_create_hvector(3, 2, 40, MPI_FLOAT, &hvector);
  CHECK_TYPE(hvector, MPI_COMBINER_HVECTOR, (Ints{3, 2}), Aints{40}, Types{MPI_FLOAT});

  const int lengths[] = {2, 0, 3};
  const int displs[] = {5, 1, -4};
  MPI_Datatype indexed = MPI_DATATYPE_NULL;
  MPI_Type_indexed(3, lengths, displs, MPI_INT, &indexed);
  CHECK_TYPE(indexed, MPI_COMBINER_INDEXED, (Ints{3, 2, 0, 3, 5, 1, -4}), Aints{}, Types{MPI_INT});

  const MPI_Aint hdispls[] = {64, 0, -24};
  MPI_Datatype hindexed = MPI_DATATYPE_NULL;
  MPI_Type_create_hindexed(3, lengths, hdispls, vector, &hindexed);
  CHECK_TYPE(hindexed, MPI_COMBINER_HINDEXED, (Ints{3, 2, 0, 3}), (Aints{64, 0, -24}), Types{vector});

  MPI_Datatype block = MPI_DATATYPE_NULL;
  MPI_Type_create_indexed_block(3, 2, displs, MPI_CHAR, &block);
  CHECK_TYPE(block, MPI_COMBINER_INDEXED_BLOCK, (Ints{3, 2, 5, 1, -4}), Aints{}, Types{MPI_CHAR});

  MPI_Datatype hblock = MPI_DATATYPE_NULL;
  MPI_Type_create_hindexed_block(3, 2, hdispls, MPI_DOUBLE, &hblock);
  CHECK_TYPE(hblock, MPI_COMBINER_HINDEXED_BLOCK, (Ints{3, 2}), (Aints{64, 0, -24}), Types{MPI_DOUBLE});

  const int struct_lengths[] = {1, 2, 3};
  const MPI_Aint struct_displs[] = {0, 8, 40};
  MPI_Datatype members[] = {MPI_DOUBLE, contig, MPI_CHAR};
  MPI_Datatype record = MPI_DATATYPE_NULL;
  MPI_Type_create_struct(3, struct_lengths, struct_displs, members, &record);
  CHECK_TYPE(record, MPI_COMBINER_STRUCT, (Ints{3, 1, 2, 3}), (Aints{0, 8, 40}), (Types{MPI_DOUBLE, contig, MPI_CHAR}));

  MPI_Datatype resized = MPI_DATATYPE_NULL;
  MPI_Type_create_resized(record, -8, 96, &resized);
  CHECK_TYPE(resized, MPI_COMBINER_RESIZED, Ints{}, (Aints{-8, 96}), Types{record});

  const int sizes[] = {6, 5, 4}, subsizes[] = {2, 3, 2}, starts[] = {1, 2, 0};
  for (int order : {MPI_ORDER_C, MPI_ORDER_FORTRAN}) {
    MPI_Datatype sub = MPI_DATATYPE_NULL;
    MPI_Type_create_subarray(3, sizes, subsizes, starts, order, MPI_INT, &sub);
    CHECK_TYPE(sub, MPI_COMBINER_SUBARRAY, (Ints{3, 6, 5, 4, 2, 3, 2, 1, 2, 0, order}), Aints{}, Types{MPI_INT});
    MPI_Type_free(&sub);
  }

  // Rank 3 of a 2 x 2 grid: block rows, cyclic(2) columns.
  const int gsizes[] = {8, 10}, distribs[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
  const int dargs[] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[] = {2, 2};
  MPI_Datatype darray = MPI_DATATYPE_NULL;
  MPI_Type_create_darray(4, 3, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_FLOAT, &darray);
  CHECK_TYPE(darray, MPI_COMBINER_DARRAY,
             (Ints{4, 3, 2, 8, 10, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG, 2, 2, 2,
                   MPI_ORDER_C}),
             Aints{}, Types{MPI_FLOAT});

  for (MPI_Datatype* t : {&darray, &resized, &record, &hblock, &block, &hindexed, &indexed, &hvector, &negative,
                          &vector, &dup_derived, &dup, &contig}) {
    MPI_Type_free(t);
  }
}

// The old types a type was made of outlive their handles: the contents
// still name (new handles for) them after the user freed them.
void freed_old_types() {
  MPI_Datatype contig = MPI_DATATYPE_NULL, vector = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(2, MPI_LONG, &contig);
  MPI_Type_vector(3, 1, 4, contig, &vector);
  MPI_Type_free(&contig);
  Contents c = contents_of(vector);
  CHECK(c.combiner == MPI_COMBINER_VECTOR && c.types.size() == 1);
  if (c.types.size() == 1) {
    Contents inner = contents_of(c.types[0]);
    CHECK(inner.combiner == MPI_COMBINER_CONTIGUOUS && inner.ints == Ints{2} && inner.types == Types{MPI_LONG});
    int size = 0;
    MPI_Type_size(c.types[0], &size);
    CHECK(size == 2 * static_cast<int>(sizeof(long)));
    MPI_Type_free(&c.types[0]);
  }
  MPI_Type_free(&vector);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  predefined();
  constructors();
  freed_old_types();
  const int code = conclude("mpi_type_envelope");
  MPI_Finalize();
  return code;
}
