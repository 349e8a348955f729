/* The floor under any runtime between two hosts: a raw TCP ping-pong and a
 * raw one-way stream over one connection (TCP_NODELAY, polling sockets),
 * in the OSU output layout so that bench/compare reads it like a benchmark.
 *
 *   tcp_floor server PORT                      (on the second host)
 *   tcp_floor latency|bw HOST PORT [MAX_BYTES]  (on the first)
 *
 * latency prints "size microseconds" (half the round trip); bw prints
 * "size MB/s" for a window of 64 messages followed by a 1-byte reply. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { kWindow = 64 };

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Both sides poll (MSG_DONTWAIT) rather than sleep in the kernel, as MPI
 * runtimes do while they wait: a blocking recv adds a wakeup of the
 * sleeping process to every message, which is no floor. */
static int full(int fd, void* buffer, size_t length, int sending) {
  char* at = buffer;
  while (length > 0) {
    ssize_t n = sending ? send(fd, at, length, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(fd, at, length, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    if (n <= 0) return -1;
    at += n;
    length -= (size_t)n;
  }
  return 0;
}

/* One command from the client: {mode, size, iterations}. */
struct Command {
  uint32_t mode; /* 1 ping-pong, 2 stream, 0 done */
  uint32_t size;
  uint32_t iterations;
};

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: tcp_floor server PORT | tcp_floor latency|bw HOST PORT [MAX_BYTES]\n");
    return 2;
  }
  const int one = 1;
  const size_t max = argc > 4 ? strtoul(argv[4], NULL, 10) : (4u << 20);
  char* buffer = malloc(max > 1 ? max : 1);
  if (buffer == NULL) return 1;
  memset(buffer, 1, max > 1 ? max : 1);
  if (strcmp(argv[1], "server") == 0) {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
    if (bind(listener, (struct sockaddr*)&address, sizeof(address)) != 0 || listen(listener, 4) != 0) {
      perror("tcp_floor: bind/listen");
      return 1;
    }
    for (;;) {
      int fd = accept(listener, NULL, NULL);
      if (fd < 0) return 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      struct Command command;
      while (full(fd, &command, sizeof(command), 0) == 0 && command.mode != 0) {
        if (command.size > max) return 1;
        for (uint32_t i = 0; i < command.iterations; ++i) {
          if (command.mode == 1) {
            if (full(fd, buffer, command.size, 0) || full(fd, buffer, command.size, 1)) break;
          } else {
            for (int w = 0; w < kWindow; ++w)
              if (full(fd, buffer, command.size, 0)) break;
            if (full(fd, buffer, 1, 1)) break;
          }
        }
      }
      close(fd);
      if (command.mode == 0) return 0;
    }
  }
  const int latency = strcmp(argv[1], "latency") == 0;
  struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *found = NULL;
  if (argc < 4 || getaddrinfo(argv[2], argv[3], &hints, &found) != 0) {
    fprintf(stderr, "tcp_floor: cannot resolve %s\n", argv[2]);
    return 1;
  }
  int fd = -1;
  for (int attempt = 0; attempt < 50 && fd < 0; ++attempt) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, found->ai_addr, found->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
      usleep(100000);
    }
  }
  if (fd < 0) {
    perror("tcp_floor: connect");
    return 1;
  }
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  printf("# tcp_floor %s\n# Size %s\n", latency ? "latency" : "bandwidth", latency ? "Latency (us)" : "Bandwidth (MB/s)");
  for (size_t size = latency ? 0 : 1; size <= max; size = size == 0 ? 1 : size * 2) {
    const uint32_t iterations = size > (64u << 10) ? (latency ? 100 : 20) : (latency ? 10000 : 100);
    const uint32_t warmup = iterations / 10;
    for (int phase = 0; phase < 2; ++phase) {
      const uint32_t n = phase == 0 ? warmup : iterations;
      struct Command command = {latency ? 1u : 2u, (uint32_t)size, n};
      if (full(fd, &command, sizeof(command), 1)) return 1;
      const double start = now_us();
      for (uint32_t i = 0; i < n; ++i) {
        if (latency) {
          if (full(fd, buffer, size, 1) || full(fd, buffer, size, 0)) return 1;
        } else {
          for (int w = 0; w < kWindow; ++w)
            if (full(fd, buffer, size, 1)) return 1;
          if (full(fd, buffer, 1, 0)) return 1;
        }
      }
      const double elapsed = now_us() - start;
      if (phase == 1) {
        if (latency) printf("%-10zu %12.2f\n", size, elapsed / (2.0 * n));
        else printf("%-10zu %12.2f\n", size, (double)size * kWindow * n / elapsed);
      }
    }
  }
  struct Command done = {0, 0, 0};
  (void)full(fd, &done, sizeof(done), 1);
  close(fd);
  freeaddrinfo(found);
  return 0;
}
