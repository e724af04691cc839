/* A program whose synchronisation is known event by event, for the recorder's test
 * (crates/agent/tests/record_run.rs): the main thread creates two threads, "giver" and "taker",
 * which hand off ROUNDS times, then joins them. Each round:
 * 1. the giver locks mutex `lock`, lets the taker go (a semaphore), waits until glibc's lock word
 *    says a thread sleeps on `lock` (2, nptl/lowlevellock.h: the taker, after the preload
 *    library's trylock failed), computes WORK_ITERS iterations holding it, and unlocks: the taker
 *    made one contended wait on `lock`, held by the giver, and the giver one unlock with waiters;
 * 2. the taker, once it has `lock`, lets it go and waits on condition variable `ready` (with mutex
 *    `cv_lock`) until the giver sets `turn`; the giver waits until the condition variable counts a
 *    waiter (glibc's __wrefs above its three flag bits, nptl/pthread_cond_common.c), then sets
 *    `turn` and signals once: one wait of the taker ended by one signal of the giver.
 * Semaphores carry the rest of the handshake: a recorder of pthread mutexes and condition
 * variables sees only those two.
 *
 * Each thread reads its own CPU clock (CLOCK_THREAD_CPUTIME_ID) when its work is done, then
 * sleeps LINGER_MS (off the CPU) before it ends, so that a sampler sees its final CPU time alive.
 * The giver ends by returning from its start routine, the taker by pthread_exit.
 * It prints one line per thread, then the objects' addresses:
 *   thread ROLE TID CPU_NS
 *   lock ADDRESS
 *   cond ADDRESS
 *
 * usage: handoff ROUNDS WORK_ITERS */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Long enough for a sampler at a few ms to see each thread after its work, whatever the load. */
#define LINGER_MS 200

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER, cv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static sem_t go, done;
static int rounds, turn;
static uint64_t work_iters, sink;

struct measured {
    const char *role;
    uint32_t tid;
    uint64_t cpu_ns;
};
static struct measured giver_seen = {"giver", 0, 0}, taker_seen = {"taker", 0, 0}, main_seen = {"main", 0, 0};

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void finish(struct measured *me) {
    me->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    usleep(LINGER_MS * 1000);
}

static void *giver(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "giver");
    giver_seen.tid = (uint32_t)syscall(SYS_gettid);
    for (int r = 0; r < rounds; r++) {
        pthread_mutex_lock(&lock);
        sem_post(&go);
        while (__atomic_load_n(&lock.__data.__lock, __ATOMIC_ACQUIRE) != 2)
            usleep(50);
        uint64_t x = sink;
        for (uint64_t i = 0; i < work_iters; i++)
            x = x * 6364136223846793005ULL + 1;
        __atomic_store_n(&sink, x, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&lock);
        while ((__atomic_load_n(&ready.__data.__wrefs, __ATOMIC_ACQUIRE) >> 3) == 0)
            usleep(50);
        pthread_mutex_lock(&cv_lock);
        turn = r + 1;
        pthread_cond_signal(&ready);
        pthread_mutex_unlock(&cv_lock);
        while (sem_wait(&done) != 0)
            ; /* EINTR */
    }
    finish(&giver_seen);
    return NULL;
}

static void *taker(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "taker");
    taker_seen.tid = (uint32_t)syscall(SYS_gettid);
    for (int r = 0; r < rounds; r++) {
        while (sem_wait(&go) != 0)
            ; /* EINTR */
        pthread_mutex_lock(&lock);
        pthread_mutex_unlock(&lock);
        pthread_mutex_lock(&cv_lock);
        while (turn != r + 1)
            pthread_cond_wait(&ready, &cv_lock);
        pthread_mutex_unlock(&cv_lock);
        sem_post(&done);
    }
    finish(&taker_seen);
    pthread_exit(NULL); /* the giver returns: a recorder sees both ways a thread ends */
}

int main(int argc, char **argv) {
    if (argc != 3 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: %s ROUNDS WORK_ITERS\n", argv[0]);
        return 2;
    }
    rounds = atoi(argv[1]);
    work_iters = strtoull(argv[2], NULL, 10);
    main_seen.tid = (uint32_t)syscall(SYS_gettid);
    sem_init(&go, 0, 0);
    sem_init(&done, 0, 0);
    pthread_t g, t;
    pthread_create(&t, NULL, taker, NULL);
    pthread_create(&g, NULL, giver, NULL);
    pthread_join(g, NULL);
    pthread_join(t, NULL);
    finish(&main_seen);
    const struct measured *all[] = {&main_seen, &giver_seen, &taker_seen};
    for (int i = 0; i < 3; i++)
        printf("thread %s %u %llu\n", all[i]->role, all[i]->tid, (unsigned long long)all[i]->cpu_ns);
    printf("lock %llu\ncond %llu\n", (unsigned long long)(uintptr_t)&lock, (unsigned long long)(uintptr_t)&ready);
    return 0;
}
