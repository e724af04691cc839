/* A fork-join program for the agent's tests: PHASES times, the main thread computes a serial
 * section alone (the others block on a barrier), then all THREADS compute a parallel section
 * and meet at a barrier (blocking). Work is counted in loop iterations, so a slow CPU takes longer.
 * During serial sections the main thread samples sched_getcpu(); it prints the share of samples
 * on CPU 0 and a checksum of the computation.
 *
 * usage: forkjoin THREADS PHASES SERIAL_ITERS PARALLEL_ITERS */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int threads, phases;
static uint64_t serial_iters, parallel_iters;
static pthread_barrier_t start_parallel, end_parallel;
static volatile uint64_t sink[64];
static uint64_t on_cpu0, samples;

static uint64_t work(uint64_t iters, uint64_t seed, int sample) {
    uint64_t x = seed;
    for (uint64_t i = 0; i < iters; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        if (sample && (i & 0xfffff) == 0) {
            samples++;
            on_cpu0 += sched_getcpu() == 0;
        }
    }
    return x;
}

static void *worker(void *arg) {
    long id = (long)arg;
    for (int p = 0; p < phases; p++) {
        pthread_barrier_wait(&start_parallel);
        sink[id] += work(parallel_iters, (uint64_t)(id * 1000 + p), 0);
        pthread_barrier_wait(&end_parallel);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s THREADS PHASES SERIAL_ITERS PARALLEL_ITERS\n", argv[0]);
        return 2;
    }
    threads = atoi(argv[1]);
    phases = atoi(argv[2]);
    serial_iters = strtoull(argv[3], NULL, 10);
    parallel_iters = strtoull(argv[4], NULL, 10);
    pthread_barrier_init(&start_parallel, NULL, threads);
    pthread_barrier_init(&end_parallel, NULL, threads);
    pthread_t t[64];
    for (long i = 1; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    uint64_t check = 0;
    for (int p = 0; p < phases; p++) {
        check ^= work(serial_iters, (uint64_t)p, 1);
        pthread_barrier_wait(&start_parallel);
        sink[0] += work(parallel_iters, (uint64_t)p, 0);
        pthread_barrier_wait(&end_parallel);
    }
    for (long i = 1; i < threads; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < threads; i++)
        check ^= sink[i];
    printf("checksum %016llx\nserial_on_cpu0 %.3f\n", (unsigned long long)check, samples ? (double)on_cpu0 / samples : 0.0);
    return 0;
}
