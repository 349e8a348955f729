// MPI 4.0's status conversions from C (section 19.3.5), with MPI running:
// a received message's status through every conversion keeps MPI_SOURCE,
// MPI_TAG, MPI_ERROR and what MPI_Get_count and MPI_Test_cancelled read; the
// Fortran status's public fields sit at MPI_F_SOURCE/TAG/ERROR; null
// statuses and the Fortran IGNORE sentinels give MPI_ERR_ARG.
#include <vector>

#include "check.hpp"

namespace {

bool same_fields(const MPI_Status& a, const MPI_Status& b) {
  int count_a = -1, count_b = -2, cancelled_a = -1, cancelled_b = -2;
  MPI_Get_count(&a, MPI_INT, &count_a);
  MPI_Get_count(&b, MPI_INT, &count_b);
  MPI_Test_cancelled(&a, &cancelled_a);
  MPI_Test_cancelled(&b, &cancelled_b);
  return a.MPI_SOURCE == b.MPI_SOURCE && a.MPI_TAG == b.MPI_TAG && a.MPI_ERROR == b.MPI_ERROR &&
         count_a == count_b && cancelled_a == cancelled_b;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  // A real status: 5 ints from this rank to itself, tag 31.
  const int sent[5] = {1, 2, 3, 4, 5};
  int got[8] = {};
  MPI_Status status;
  CHECK(MPI_Sendrecv(sent, 5, MPI_INT, rank, 31, got, 8, MPI_INT, rank, 31, MPI_COMM_WORLD, &status) ==
        MPI_SUCCESS);
  status.MPI_ERROR = MPI_ERR_TRUNCATE;  // a value the conversions must carry
  int count = -1;
  CHECK(MPI_Get_count(&status, MPI_INT, &count) == MPI_SUCCESS && count == 5);

  std::vector<MPI_Fint> f(static_cast<std::size_t>(MPI_F_STATUS_SIZE), -1);
  CHECK(MPI_F_STATUS_SIZE * sizeof(MPI_Fint) == sizeof(MPI_Status));
  CHECK(MPI_Status_c2f(&status, f.data()) == MPI_SUCCESS);
  CHECK(f[MPI_F_SOURCE] == rank && f[MPI_F_TAG] == 31 && f[MPI_F_ERROR] == MPI_ERR_TRUNCATE);
  MPI_Status back{};
  CHECK(MPI_Status_f2c(f.data(), &back) == MPI_SUCCESS && same_fields(status, back));

  MPI_F08_status f08{};
  CHECK(MPI_Status_c2f08(&status, &f08) == MPI_SUCCESS);
  CHECK(f08.MPI_SOURCE == rank && f08.MPI_TAG == 31 && f08.MPI_ERROR == MPI_ERR_TRUNCATE);
  back = MPI_Status{};
  CHECK(MPI_Status_f082c(&f08, &back) == MPI_SUCCESS && same_fields(status, back));

  std::vector<MPI_Fint> f2(static_cast<std::size_t>(MPI_F_STATUS_SIZE), -1);
  CHECK(MPI_Status_f082f(&f08, f2.data()) == MPI_SUCCESS && f2 == f);
  MPI_F08_status f08_again{};
  CHECK(MPI_Status_f2f08(f2.data(), &f08_again) == MPI_SUCCESS);
  back = MPI_Status{};
  CHECK(MPI_Status_f082c(&f08_again, &back) == MPI_SUCCESS && same_fields(status, back));

  // A cancelled flag survives too.
  MPI_Status cancelled = status;
  CHECK(MPI_Status_set_cancelled(&cancelled, 1) == MPI_SUCCESS);
  CHECK(MPI_Status_c2f(&cancelled, f.data()) == MPI_SUCCESS && MPI_Status_f2c(f.data(), &back) == MPI_SUCCESS);
  int flag = 0;
  CHECK(MPI_Test_cancelled(&back, &flag) == MPI_SUCCESS && flag == 1);

  // Refused: null pointers and the IGNORE sentinels, either side.
  CHECK(MPI_Status_c2f(nullptr, f.data()) == MPI_ERR_ARG);
  CHECK(MPI_Status_c2f(&status, nullptr) == MPI_ERR_ARG);
  CHECK(MPI_Status_f2c(nullptr, &back) == MPI_ERR_ARG);
  CHECK(MPI_Status_c2f08(&status, nullptr) == MPI_ERR_ARG);
  CHECK(MPI_Status_f082c(nullptr, &back) == MPI_ERR_ARG);
  CHECK(MPI_Status_f2f08(nullptr, &f08) == MPI_ERR_ARG);
  CHECK(MPI_Status_f082f(&f08, nullptr) == MPI_ERR_ARG);
  CHECK(MPI_Status_c2f(&status, MPI_F_STATUS_IGNORE) == MPI_ERR_ARG);
  CHECK(MPI_Status_f2c(MPI_F_STATUSES_IGNORE, &back) == MPI_ERR_ARG);
  CHECK(MPI_Status_c2f08(&status, MPI_F08_STATUS_IGNORE) == MPI_ERR_ARG);
  CHECK(MPI_Status_f082c(MPI_F08_STATUSES_IGNORE, &back) == MPI_ERR_ARG);
  CHECK(MPI_Status_f2f08(MPI_F_STATUS_IGNORE, &f08) == MPI_ERR_ARG);
  CHECK(MPI_Status_f082f(&f08, MPI_F_STATUSES_IGNORE) == MPI_ERR_ARG);
  CHECK(MPI_F_STATUS_IGNORE != MPI_F_STATUSES_IGNORE && MPI_F_STATUS_IGNORE != nullptr);

  const int rc = tern::mpi_test::conclude("mpi_status_conversions");
  MPI_Finalize();
  return rc;
}
