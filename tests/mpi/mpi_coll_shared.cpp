// Collectives in long mixed sequences, as the shared segment of a one-host
// communicator runs them (coll/shared.hpp): barrier, bcast from rotating
// roots, allreduce, reduce to rotating roots, allgather and alltoall, back to back
// without barriers between them, at sizes on both sides of the segment's
// 64 KiB slot, on the world and on a split communicator at once. A
// reduction with an operation that does not commute (2x2 matrix product)
// checks the rank order, one that does checks the send buffers are left
// as they were, and every rank's allreduce result of floats must
// have the same bits. Passes the same with TERN_COLL_SHM=off.
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

struct Matrix {
  uint32_t a, b, c, d;
};

// left * right, elementwise over vectors of matrices sent as MPI_UINT32_T
// (four per matrix; a predefined type keeps the reduction on the
// collectives' own path): inout = in op inout.
void multiply(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* left = static_cast<const Matrix*>(in);
  auto* right = static_cast<Matrix*>(inout);
  for (int i = 0; i < *len / 4; ++i) {
    const Matrix l = left[i], r = right[i];
    right[i] = {l.a * r.a + l.b * r.c, l.a * r.b + l.b * r.d, l.c * r.a + l.d * r.c, l.c * r.b + l.d * r.d};
  }
}

Matrix matrix_of(int rank, int step, int i) {
  const auto x = static_cast<uint32_t>(rank * 7 + step * 3 + i);
  return {x % 5 + 1, x % 3, (x >> 1) % 4, x % 7 + 1};
}

unsigned char byte_of(int rank, int step, std::size_t i) {
  return static_cast<unsigned char>(rank * 31 + step * 7 + static_cast<int>(i));
}

void sequence(MPI_Comm comm, MPI_Op product, int steps) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::size_t sizes[] = {0, 1, 100, 4096, 65536, 65537, 200000};
  for (int step = 0; step < steps; ++step) {
    const std::size_t bytes = sizes[step % 7];
    const int root = step % size;
    switch (step % 6) {
      case 0:
        MPI_Barrier(comm);
        break;
      case 1: {
        std::vector<unsigned char> data(bytes);
        for (std::size_t i = 0; i < bytes; ++i) data[i] = rank == root ? byte_of(root, step, i) : 0;
        MPI_Bcast(data.data(), static_cast<int>(bytes), MPI_UNSIGNED_CHAR, root, comm);
        for (std::size_t i = 0; i < bytes; ++i) CHECK(data[i] == byte_of(root, step, i));
        break;
      }
      case 2: {
        const std::size_t count = bytes / sizeof(float);
        std::vector<float> data(count);
        for (std::size_t i = 0; i < count; ++i) data[i] = 1.0f / static_cast<float>(rank + 3 + static_cast<int>(i % 17));
        MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, comm);
        // The same bits everywhere: compare with rank 0's.
        std::vector<float> first(data);
        MPI_Bcast(first.data(), static_cast<int>(count), MPI_FLOAT, 0, comm);
        CHECK(count == 0 || std::memcmp(first.data(), data.data(), count * sizeof(float)) == 0);
        break;
      }
      case 3: {
        const int count = static_cast<int>(bytes / sizeof(Matrix));
        std::vector<Matrix> mine(static_cast<std::size_t>(count)), result(static_cast<std::size_t>(count));
        for (int i = 0; i < count; ++i) mine[static_cast<std::size_t>(i)] = matrix_of(rank, step, i);
        MPI_Reduce(mine.data(), result.data(), 4 * count, MPI_UINT32_T, product, root, comm);
        if (rank == root) {
          for (int i = 0; i < count; ++i) {
            Matrix expected = matrix_of(size - 1, step, i);
            for (int r = size - 2; r >= 0; --r) {
              Matrix left = matrix_of(r, step, i);
              int four = 4;
              multiply(&left, &expected, &four, nullptr);
            }
            const Matrix got = result[static_cast<std::size_t>(i)];
            CHECK(got.a == expected.a && got.b == expected.b && got.c == expected.c && got.d == expected.d);
          }
        }
        // A commutative one (streamed by the segment from 16 KiB), and
        // every rank's send buffer unchanged by both: the ranks but the root
        // hand theirs to the segment as they are.
        MPI_Reduce(mine.data(), result.data(), 4 * count, MPI_UINT32_T, MPI_SUM, root, comm);
        for (int i = 0; i < count; ++i) {
          const Matrix own = matrix_of(rank, step, i), kept = mine[static_cast<std::size_t>(i)];
          CHECK(kept.a == own.a && kept.b == own.b && kept.c == own.c && kept.d == own.d);
          if (rank != root) continue;
          Matrix sum{0, 0, 0, 0};
          for (int r = 0; r < size; ++r) {
            const Matrix m = matrix_of(r, step, i);
            sum = {sum.a + m.a, sum.b + m.b, sum.c + m.c, sum.d + m.d};
          }
          const Matrix got = result[static_cast<std::size_t>(i)];
          CHECK(got.a == sum.a && got.b == sum.b && got.c == sum.c && got.d == sum.d);
        }
        break;
      }
      case 4: {
        const std::size_t block = bytes / static_cast<std::size_t>(size) / static_cast<std::size_t>(size);
        std::vector<unsigned char> out(block * static_cast<std::size_t>(size)), in(out.size());
        // Block r goes to rank r: its bytes name the sender and the receiver.
        for (int r = 0; r < size; ++r) {
          for (std::size_t i = 0; i < block; ++i) out[static_cast<std::size_t>(r) * block + i] = byte_of(rank * 8 + r, step, i);
        }
        MPI_Alltoall(out.data(), static_cast<int>(block), MPI_UNSIGNED_CHAR, in.data(), static_cast<int>(block),
                     MPI_UNSIGNED_CHAR, comm);
        for (int r = 0; r < size; ++r) {
          for (std::size_t i = 0; i < block; ++i) {
            CHECK(in[static_cast<std::size_t>(r) * block + i] == byte_of(r * 8 + rank, step, i));
          }
        }
        break;
      }
      default: {
        const std::size_t block = bytes / static_cast<std::size_t>(size);
        std::vector<unsigned char> mine(block), all(block * static_cast<std::size_t>(size));
        for (std::size_t i = 0; i < block; ++i) mine[i] = byte_of(rank, step, i);
        MPI_Allgather(mine.data(), static_cast<int>(block), MPI_UNSIGNED_CHAR, all.data(), static_cast<int>(block),
                      MPI_UNSIGNED_CHAR, comm);
        for (int r = 0; r < size; ++r) {
          for (std::size_t i = 0; i < block; ++i) CHECK(all[static_cast<std::size_t>(r) * block + i] == byte_of(r, step, i));
        }
        break;
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Op product;
  MPI_Op_create(&multiply, 0, &product);
  sequence(MPI_COMM_WORLD, product, 400);
  // A second communicator with its own segment, used between the world's.
  MPI_Comm halves;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &halves);
  for (int round = 0; round < 20; ++round) {
    sequence(halves, product, 11);
    sequence(MPI_COMM_WORLD, product, 13);
  }
  MPI_Comm_free(&halves);
  MPI_Op_free(&product);
  const int rc = tern::mpi_test::conclude("mpi_coll_shared");
  MPI_Finalize();
  return rc;
}
