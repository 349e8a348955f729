/* The engine's memory hooks (mmap, munmap, mremap, madvise: how the verbs
 * registration cache learns of unmapped memory) must be what an MPI
 * program's own calls reach: libtern_mpi exports them ahead of libc. Also
 * checks that they still map and unmap. Sanitizer builds leave the hooks
 * out (the sanitizers intercept the same calls): there the program's calls
 * must reach libc's, and the check says so. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int failures = 0;
  Dl_info info;
  memset(&info, 0, sizeof(info));
  void *resolved = dlsym(RTLD_DEFAULT, "munmap");
  const char *where = resolved != NULL && dladdr(resolved, &info) != 0 && info.dli_fname != NULL ? info.dli_fname : "?";
#ifdef TERN_HOOKS_LEFT_OUT
  const int expect_tern = 0;
#else
  const int expect_tern = 1;
#endif
  const int in_tern = strstr(where, "libtern_mpi") != NULL;
  if (in_tern != expect_tern) {
    printf("memory_hooks: FAIL: munmap resolves to %s\n", where);
    ++failures;
  }
  /* The hooks still do the work: map, write, remap larger, give back, unmap. */
  const size_t page = 4096;
  char *memory = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    printf("memory_hooks: FAIL: mmap\n");
    ++failures;
  } else {
    memory[0] = 'x';
    char *moved = mremap(memory, 4 * page, 8 * page, MREMAP_MAYMOVE);
    if (moved == MAP_FAILED || moved[0] != 'x') {
      printf("memory_hooks: FAIL: mremap\n");
      ++failures;
    } else {
      memory = moved;
    }
    if (madvise(memory, 8 * page, MADV_DONTNEED) != 0 || memory[0] != 0) {
      printf("memory_hooks: FAIL: madvise(MADV_DONTNEED) kept the page\n");
      ++failures;
    }
    if (munmap(memory, moved == MAP_FAILED ? 4 * page : 8 * page) != 0) {
      printf("memory_hooks: FAIL: munmap\n");
      ++failures;
    }
  }
  if (munmap(NULL, 0) != -1) {  /* errors still come back as errors */
    printf("memory_hooks: FAIL: munmap of nothing succeeded\n");
    ++failures;
  }
  if (failures == 0) printf("memory_hooks: PASS (munmap is %s's)\n", where);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
