/* A lock-bound program whose lock holder is known, and which measures its own lock waits: thread
 * "holder" computes HOLD_ITERS iterations ROUNDS times, each time holding one mutex per waiter;
 * WAITERS threads named "waiter" each take their own mutex once per round, so wait for "holder"
 * through its computation, and then compute a little inside it. HELPERS threads (default 0) named as a JVM names its
 * garbage-collector workers, "GC Thread#N", compute without the lock until the holder is done: a
 * managed runtime's helpers competing for the cores with the application (WASH, "Portable
 * Performance on Asymmetric Multicore Processors", §4.1).
 *
 * Each round is a handshake that makes the attribution of every wait unambiguous, whatever the
 * load on the machine: the holder locks every waiter's mutex, lets the waiters go (a semaphore
 * each), and starts computing only once each mutex's lock word says a thread sleeps on it (glibc's
 * __lock is 2 once a waiter is in the kernel's futex wait, after a preload library's trylock and
 * clock read). It unlocks after computing and waits for every waiter's acknowledgement (posted
 * after the waiter's unlock) before the next round. So:
 * - a waiter's mutex has no other user: its every contended wait is on the holder, which holds it
 *   from before the waiter asks until after the computation;
 * - each waiter waits through the whole of each computation: its wait contains the holder's hold;
 * - the holder never waits (each waiter has let its mutex go before the holder takes it again).
 *
 * At exit it prints, per thread, what it measured itself with CLOCK_MONOTONIC: time in
 * pthread_mutex_lock (the clock read before the call and after its return), the number of such
 * calls, and the time computing with the mutexes held (the holder's). One line per thread:
 *   thread TID NAME CALLS WAIT_NS HOLD_NS
 * Semaphores, not mutexes, carry the handshake: a lock-wait recorder sees only the rounds' mutexes.
 *
 * usage: lockholder WAITERS ROUNDS HOLD_ITERS [HELPERS] */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64
/* Each round a waiter computes 1/WAITER_PART of the holder's work inside its mutex: CPU time
 * enough for WASH to count it among its application's contended threads (at least exec_share,
 * 2%, over the cores, of the application's CPU time: crates/policy/src/wash/wash.rs), little
 * beside the holder's. */
#define WAITER_PART 20

/* What one thread measured of its own locking. */
struct measured {
    uint32_t tid;
    const char *name;
    uint64_t calls;   /* calls of pthread_mutex_lock */
    uint64_t wait_ns; /* time inside them */
    uint64_t hold_ns; /* time computing while holding the mutexes (the holder's) */
};

static pthread_mutex_t m[MAX_THREADS];
static sem_t go[MAX_THREADS], ack[MAX_THREADS];
static struct measured holder_seen, waiter_seen[MAX_THREADS];
/* Shared between threads, so read and written atomically (relaxed: `sink` only keeps the
   compiler from dropping the work, `done` only ends the helpers' loops). */
static int done;
static uint64_t sink;
static uint64_t hold_iters;
static int rounds, waiters;

static uint64_t spin(uint64_t n, uint64_t x) {
    for (uint64_t i = 0; i < n; i++)
        x = x * 6364136223846793005ULL + 1;
    return x;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* pthread_mutex_lock, timed. */
static void lock_timed(pthread_mutex_t *mutex, struct measured *me) {
    uint64_t t0 = now_ns();
    pthread_mutex_lock(mutex);
    me->wait_ns += now_ns() - t0;
    me->calls++;
}

/* How long the holder waits for a waiter to sleep on its mutex before it gives up: far past any
   load (a waiter is woken by a semaphore and goes straight to the lock), so that a lock that never
   shows a sleeper (glibc's lock elision, say) fails the program instead of hanging it. */
#define SLEEPER_WAIT_S 30

/* Until a thread sleeps on `mutex` (held by the caller). */
static void until_slept_on(pthread_mutex_t *mutex) {
#ifdef __GLIBC__
    uint64_t give_up = now_ns() + (uint64_t)SLEEPER_WAIT_S * 1000000000u;
    while (__atomic_load_n(&mutex->__data.__lock, __ATOMIC_ACQUIRE) != 2) {
        if (now_ns() > give_up) {
            fprintf(stderr, "lockholder: no waiter slept on its mutex within %d s (lock elision?)\n", SLEEPER_WAIT_S);
            exit(3);
        }
        usleep(50);
    }
#else
    (void)mutex;
    usleep(10000); /* no lock word to read: a pause long enough for a waiter to get there */
#endif
}

static void *holder(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "holder");
    holder_seen.tid = (uint32_t)syscall(SYS_gettid);
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < waiters; i++)
            lock_timed(&m[i], &holder_seen);
        for (int i = 0; i < waiters; i++)
            sem_post(&go[i]);
        for (int i = 0; i < waiters; i++)
            until_slept_on(&m[i]);
        uint64_t t0 = now_ns();
        __atomic_fetch_add(&sink, spin(hold_iters, (uint64_t)r), __ATOMIC_RELAXED);
        holder_seen.hold_ns += now_ns() - t0;
        for (int i = 0; i < waiters; i++)
            pthread_mutex_unlock(&m[i]);
        for (int i = 0; i < waiters; i++)
            while (sem_wait(&ack[i]) != 0)
                ; /* EINTR */
    }
    __atomic_store_n(&done, 1, __ATOMIC_RELAXED);
    return NULL;
}

static void *waiter(void *arg) {
    int i = (int)(intptr_t)arg;
    struct measured *me = &waiter_seen[i];
    pthread_setname_np(pthread_self(), "waiter");
    me->tid = (uint32_t)syscall(SYS_gettid);
    for (int r = 0; r < rounds; r++) {
        while (sem_wait(&go[i]) != 0)
            ; /* EINTR */
        lock_timed(&m[i], me);
        __atomic_fetch_add(&sink, spin(hold_iters / WAITER_PART, __atomic_load_n(&sink, __ATOMIC_RELAXED)), __ATOMIC_RELAXED);
        pthread_mutex_unlock(&m[i]);
        sem_post(&ack[i]);
    }
    return NULL;
}

static void *helper(void *arg) {
    char name[16];
    snprintf(name, sizeof name, "GC Thread#%d", (int)(intptr_t)arg);
    pthread_setname_np(pthread_self(), name);
    uint64_t x = (uint64_t)(intptr_t)arg;
    while (!__atomic_load_n(&done, __ATOMIC_RELAXED))
        x = spin(100000, x);
    __atomic_fetch_add(&sink, x, __ATOMIC_RELAXED);
    return NULL;
}

static void print_measured(const struct measured *s) {
    printf("thread %u %s %llu %llu %llu\n", s->tid, s->name, (unsigned long long)s->calls, (unsigned long long)s->wait_ns,
           (unsigned long long)s->hold_ns);
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: %s WAITERS ROUNDS HOLD_ITERS [HELPERS]\n", argv[0]);
        return 2;
    }
    waiters = atoi(argv[1]);
    rounds = atoi(argv[2]);
    hold_iters = strtoull(argv[3], NULL, 10);
    int helpers = argc == 5 ? atoi(argv[4]) : 0;
    if (waiters < 0 || waiters > MAX_THREADS || helpers < 0 || helpers > MAX_THREADS) {
        fprintf(stderr, "%s: at most %d waiters and %d helpers\n", argv[0], MAX_THREADS, MAX_THREADS);
        return 2;
    }
    pthread_t h, w[MAX_THREADS], g[MAX_THREADS];
    holder_seen.name = "holder";
    for (int i = 0; i < waiters; i++) {
        pthread_mutex_init(&m[i], NULL);
        sem_init(&go[i], 0, 0);
        sem_init(&ack[i], 0, 0);
        waiter_seen[i].name = "waiter";
        pthread_create(&w[i], NULL, waiter, (void *)(intptr_t)i);
    }
    pthread_create(&h, NULL, holder, NULL);
    for (int i = 0; i < helpers; i++)
        pthread_create(&g[i], NULL, helper, (void *)(intptr_t)i);
    pthread_join(h, NULL);
    for (int i = 0; i < waiters; i++)
        pthread_join(w[i], NULL);
    for (int i = 0; i < helpers; i++)
        pthread_join(g[i], NULL);
    print_measured(&holder_seen);
    for (int i = 0; i < waiters; i++)
        print_measured(&waiter_seen[i]);
    return 0;
}
