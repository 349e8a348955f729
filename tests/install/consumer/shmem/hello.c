/* An OpenSHMEM program built against an installed Tern (oshcc, oshcxx,
 * find_package, pkg-config). Valid C and C++. Every PE puts its number into
 * the next PE's symmetric variable and says hello with what it received. */
#include <shmem.h>
#include <stdio.h>

static int received = -1;

int main(void) {
  shmem_init();
  const int me = shmem_my_pe();
  const int n = shmem_n_pes();
  shmem_int_p(&received, me, (me + 1) % n);
  shmem_barrier_all();
  const int expected = (me + n - 1) % n;
  int status = 0;
  if (received != expected) {
    fprintf(stderr, "hello: PE %d received %d, not %d\n", me, received, expected);
    status = 1;
  }
  printf("hello from PE %d of %d\n", me, n);
  shmem_finalize();
  return status;
}
