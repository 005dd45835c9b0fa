/*
 * floor.c's loop with io_uring instead of epoll: the same fixed GET on C
 * connections and the same byte counting, but every send and receive is
 * an io_uring request, and one io_uring_enter per loop turn submits all of
 * them and waits for the next completions. It measures what batched
 * submission saves over one syscall per send and receive, before any
 * client is built on it.
 *
 *   floor_uring HOST PORT CONNECTIONS REQUESTS RESPONSE_BYTES
 *
 * Only the kernel header <linux/io_uring.h> is needed, not liburing.
 * Prints h2load's `finished in` and `requests:` lines, as floor.c does.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define OP_SEND 0
#define OP_RECV 1
#define RECV_BUF 4096

struct ring {
  int fd;
  unsigned *sq_head, *sq_tail, *sq_mask, *sq_array;
  unsigned *cq_head, *cq_tail, *cq_mask;
  struct io_uring_sqe *sqes;
  struct io_uring_cqe *cqes;
  unsigned to_submit;
};

static int ring_setup(struct ring *r, unsigned entries) {
  struct io_uring_params p;
  /* DEFER_TASKRUN runs completions only inside io_uring_enter, so one
   * call reaps a whole batch; older kernels lack it, hence the retry. */
  unsigned flag_sets[] = {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, 0};
  for (int i = 0; i < 2; i++) {
    memset(&p, 0, sizeof p);
    p.flags = flag_sets[i];
    r->fd = syscall(__NR_io_uring_setup, entries, &p);
    if (r->fd >= 0) break;
  }
  if (r->fd < 0) return -1;
  size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
  if (p.features & IORING_FEAT_SINGLE_MMAP) {
    if (cq_size > sq_size) sq_size = cq_size;
    cq_size = sq_size;
  }
  char *sq = mmap(0, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
                  IORING_OFF_SQ_RING);
  if (sq == MAP_FAILED) return -1;
  char *cq = sq;
  if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
    cq = mmap(0, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
              IORING_OFF_CQ_RING);
    if (cq == MAP_FAILED) return -1;
  }
  r->sqes = mmap(0, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
  if (r->sqes == MAP_FAILED) return -1;
  r->sq_head = (unsigned *)(sq + p.sq_off.head);
  r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
  r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
  r->sq_array = (unsigned *)(sq + p.sq_off.array);
  r->cq_head = (unsigned *)(cq + p.cq_off.head);
  r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
  r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
  r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
  r->to_submit = 0;
  return 0;
}

static void queue(struct ring *r, int op, int fd, void *buf, unsigned len, int conn) {
  unsigned tail = *r->sq_tail;
  unsigned index = tail & *r->sq_mask;
  struct io_uring_sqe *sqe = &r->sqes[index];
  memset(sqe, 0, sizeof *sqe);
  sqe->opcode = op == OP_SEND ? IORING_OP_SEND : IORING_OP_RECV;
  sqe->fd = fd;
  sqe->addr = (uint64_t)(uintptr_t)buf;
  sqe->len = len;
  sqe->user_data = ((uint64_t)conn << 1) | (uint64_t)op;
  r->sq_array[index] = index;
  __atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
  r->to_submit++;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: floor_uring HOST PORT CONNECTIONS REQUESTS RESPONSE_BYTES\n");
    return 2;
  }
  int conns = atoi(argv[3]);
  long total = atol(argv[4]);
  long response = atol(argv[5]);
  char request[256];
  int request_len = snprintf(request, sizeof request,
                             "GET / HTTP/1.1\r\nHost: %s:%s\r\nUser-Agent: floor\r\n\r\n",
                             argv[1], argv[2]);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[2]))};
  inet_pton(AF_INET, argv[1], &addr.sin_addr);

  /* At most one send and one receive in flight per connection. */
  unsigned entries = 1;
  while (entries < 2u * (unsigned)conns) entries <<= 1;
  struct ring r;
  if (ring_setup(&r, entries) != 0) {
    perror("io_uring_setup");
    return 1;
  }
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int *fds = calloc(conns, sizeof *fds);
  long *left = calloc(conns, sizeof *left);
  char *busy = calloc(conns, 1); /* a request of this connection awaits its response */
  char *bufs = malloc((size_t)conns * RECV_BUF);
  long sent = 0, done = 0;
  for (int i = 0; i < conns && sent < total; i++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
      perror("connect");
      return 1;
    }
    fds[i] = fd;
    left[i] = response;
    queue(&r, OP_SEND, fd, request, request_len, i);
    queue(&r, OP_RECV, fd, bufs + (size_t)i * RECV_BUF, RECV_BUF, i);
    busy[i] = 1;
    sent++;
  }
  while (done < total) {
    int n = syscall(__NR_io_uring_enter, r.fd, r.to_submit, 1, IORING_ENTER_GETEVENTS, NULL, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      perror("io_uring_enter");
      return 1;
    }
    r.to_submit -= (unsigned)n;
    unsigned head = *r.cq_head;
    unsigned tail = __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE);
    for (; head != tail; head++) {
      struct io_uring_cqe *cqe = &r.cqes[head & *r.cq_mask];
      int conn = (int)(cqe->user_data >> 1);
      int op = (int)(cqe->user_data & 1);
      if (op == OP_SEND) {
        if (cqe->res != request_len) {
          fprintf(stderr, "floor_uring: send: %s\n", strerror(-cqe->res));
          return 1;
        }
        continue;
      }
      if (cqe->res <= 0) {
        fprintf(stderr, "floor_uring: connection closed (%d)\n", cqe->res);
        return 1;
      }
      left[conn] -= cqe->res;
      if (left[conn] <= 0) {
        done++;
        left[conn] += response;
        busy[conn] = 0;
        if (sent < total) {
          queue(&r, OP_SEND, fds[conn], request, request_len, conn);
          busy[conn] = 1;
          sent++;
        }
      }
      if (busy[conn]) {
        queue(&r, OP_RECV, fds[conn], bufs + (size_t)conn * RECV_BUF, RECV_BUF, conn);
      }
    }
    __atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  double seconds = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
  printf("finished in %.2fs, %.2f req/s, %.2fMB/s\n", seconds, done / seconds,
         done * (double)response / seconds / 1e6);
  printf("requests: %ld total, %ld started, %ld done, %ld succeeded, 0 failed, 0 errored, "
         "0 timeout\n", done, sent, done, done);
  return 0;
}
