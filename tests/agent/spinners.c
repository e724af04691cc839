/* A program with a serial phase its waiting threads spin through: the main thread takes a
 * pthread spinlock, starts WORKERS threads named "spinner" that want it at once (and so spin in
 * pthread_spin_lock), computes SERIAL_ITERS iterations holding it, and lets it go; each spinner
 * then computes PARALLEL_ITERS iterations. Without being told, a scheduler sees WORKERS + 1
 * runnable threads through the serial phase (the spinners stay runnable), a parallel one.
 *
 * usage: spinners WORKERS SERIAL_ITERS PARALLEL_ITERS */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_spinlock_t gate;
static uint64_t parallel_iters;
static uint64_t sink;

static uint64_t work(uint64_t n, uint64_t x) {
    for (uint64_t i = 0; i < n; i++)
        x = x * 6364136223846793005ULL + 1;
    return x;
}

static void *spinner(void *arg) {
    pthread_setname_np(pthread_self(), "spinner");
    pthread_spin_lock(&gate);
    pthread_spin_unlock(&gate);
    __atomic_fetch_xor(&sink, work(parallel_iters, (uint64_t)(uintptr_t)arg), __ATOMIC_RELAXED);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s WORKERS SERIAL_ITERS PARALLEL_ITERS\n", argv[0]);
        return 2;
    }
    int workers = atoi(argv[1]);
    uint64_t serial_iters = strtoull(argv[2], NULL, 10);
    parallel_iters = strtoull(argv[3], NULL, 10);
    if (workers < 1 || workers > 64) {
        fprintf(stderr, "WORKERS must be 1 to 64\n");
        return 2;
    }
    pthread_t w[64];
    pthread_spin_init(&gate, PTHREAD_PROCESS_PRIVATE);
    pthread_spin_lock(&gate); /* uncontended: the main thread holds the gate before anyone wants it */
    for (int i = 0; i < workers; i++)
        pthread_create(&w[i], NULL, spinner, (void *)(uintptr_t)(i + 1));
    uint64_t x = work(serial_iters, 7);
    pthread_spin_unlock(&gate);
    for (int i = 0; i < workers; i++)
        pthread_join(w[i], NULL);
    printf("checksum %llu\n", (unsigned long long)(x ^ sink));
    return 0;
}
