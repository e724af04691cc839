/* A lock-bound program whose lock holder is known: thread "holder" takes the mutex and computes
 * inside it for HOLD_ITERS iterations, ROUNDS times; WAITERS threads named "waiter" take the same
 * mutex briefly in a loop and so spend most of their time waiting for "holder".
 *
 * usage: lockholder WAITERS ROUNDS HOLD_ITERS */
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

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s WAITERS ROUNDS HOLD_ITERS\n", argv[0]);
        return 2;
    }
    int waiters = atoi(argv[1]);
    rounds = atoi(argv[2]);
    hold_iters = strtoull(argv[3], NULL, 10);
    pthread_t h, w[64];
    pthread_create(&h, NULL, holder, NULL);
    usleep(20000); /* the holder takes the lock first */
    for (int i = 0; i < waiters; i++)
        pthread_create(&w[i], NULL, waiter, NULL);
    pthread_join(h, NULL);
    for (int i = 0; i < waiters; i++)
        pthread_join(w[i], NULL);
    printf("done\n");
    return 0;
}
