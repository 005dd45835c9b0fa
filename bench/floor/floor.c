/*
 * The leanest HTTP/1.1 load loop we could write, to measure what the
 * kernel alone costs per request on loopback: C connections on one
 * epoll, each sends a fixed GET, reads until the fixed-size response has
 * arrived, and sends the next; no parsing, no timing, no statistics.
 * Its CPU per request is about the least a client can spend, since any
 * client makes at least this one send and one receive per request (a loop
 * on edge-triggered epoll spares the kernel a little more and goes a few
 * percent below it: bench/floor/README.md).
 *
 *   floor HOST PORT CONNECTIONS REQUESTS RESPONSE_BYTES
 *
 * It prints h2load's `finished in` and `requests:` lines, so the tools
 * that read h2load's output read its too.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: floor HOST PORT CONNECTIONS REQUESTS RESPONSE_BYTES\n");
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
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int ep = epoll_create1(0);
  long *left = calloc(conns, sizeof *left);
  long sent = 0, done = 0;
  for (int i = 0; i < conns && sent < total; i++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
      perror("connect");
      return 1;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = ((uint64_t)i << 32) | (uint32_t)fd};
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    if (send(fd, request, request_len, 0) != request_len) {
      perror("send");
      return 1;
    }
    left[i] = response;
    sent++;
  }
  char buf[65536];
  struct epoll_event events[256];
  while (done < total) {
    int n = epoll_wait(ep, events, 256, 5000);
    if (n <= 0) {
      fprintf(stderr, "floor: no progress for 5 s\n");
      return 1;
    }
    for (int e = 0; e < n; e++) {
      int i = events[e].data.u64 >> 32;
      int fd = (uint32_t)events[e].data.u64;
      ssize_t got = recv(fd, buf, sizeof buf, 0);
      if (got <= 0) {
        fprintf(stderr, "floor: connection closed\n");
        return 1;
      }
      left[i] -= got;
      while (left[i] <= 0) {
        done++;
        left[i] += response;
        if (sent < total) {
          if (send(fd, request, request_len, 0) != request_len) {
            perror("send");
            return 1;
          }
          sent++;
        } else {
          break;
        }
      }
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  double seconds = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
  printf("finished in %.2fs, %.2f req/s, %.2fMB/s\n", seconds, done / seconds,
         done * (double)response / seconds / 1e6);
  printf("requests: %ld total, %ld started, %ld done, %ld succeeded, 0 failed, 0 errored, "
         "0 timeout\n", done, sent, done, done);
  return 0;
}
