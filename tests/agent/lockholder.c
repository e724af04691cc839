/* A lock-bound program whose lock holder is known: thread "holder" takes the mutex and computes
 * inside it for HOLD_ITERS iterations, ROUNDS times; WAITERS threads named "waiter" take the same
 * mutex briefly in a loop and so spend most of their time waiting for "holder". HELPERS threads
 * (default 0) named as a JVM names its garbage-collector workers, "GC Thread#N", compute without
 * the lock until the holder is done: a managed runtime's helpers competing for the cores with
 * the application (WASH, "Portable Performance on Asymmetric Multicore Processors", §4.1).
 *
 * usage: lockholder WAITERS ROUNDS HOLD_ITERS [HELPERS] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int done;
static volatile uint64_t sink;
static uint64_t hold_iters;
static int rounds;

static uint64_t spin(uint64_t n, uint64_t x) {
    for (uint64_t i = 0; i < n; i++)
        x = x * 6364136223846793005ULL + 1;
    return x;
}

static void *holder(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "holder");
    for (int r = 0; r < rounds; r++) {
        pthread_mutex_lock(&m);
        sink += spin(hold_iters, (uint64_t)r);
        pthread_mutex_unlock(&m);
        usleep(1000); /* let a waiter in */
    }
    done = 1;
    return NULL;
}

static void *waiter(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "waiter");
    while (!done) {
        pthread_mutex_lock(&m);
        sink += spin(1000, sink);
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

static void *helper(void *arg) {
    char name[16];
    snprintf(name, sizeof name, "GC Thread#%d", (int)(intptr_t)arg);
    pthread_setname_np(pthread_self(), name);
    uint64_t x = (uint64_t)(intptr_t)arg;
    while (!done)
        x = spin(100000, x);
    sink += x;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: %s WAITERS ROUNDS HOLD_ITERS [HELPERS]\n", argv[0]);
        return 2;
    }
    int waiters = atoi(argv[1]);
    rounds = atoi(argv[2]);
    hold_iters = strtoull(argv[3], NULL, 10);
    int helpers = argc == 5 ? atoi(argv[4]) : 0;
    if (waiters < 0 || waiters > 64 || helpers < 0 || helpers > 64) {
        fprintf(stderr, "%s: at most 64 waiters and 64 helpers\n", argv[0]);
        return 2;
    }
    pthread_t h, w[64], g[64];
    pthread_create(&h, NULL, holder, NULL);
    usleep(20000); /* the holder takes the lock first */
    for (int i = 0; i < waiters; i++)
        pthread_create(&w[i], NULL, waiter, NULL);
    for (int i = 0; i < helpers; i++)
        pthread_create(&g[i], NULL, helper, (void *)(intptr_t)i);
    pthread_join(h, NULL);
    for (int i = 0; i < waiters; i++)
        pthread_join(w[i], NULL);
    for (int i = 0; i < helpers; i++)
        pthread_join(g[i], NULL);
    printf("done\n");
    return 0;
}
