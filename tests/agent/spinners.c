/* A program with a serial phase its waiting threads spin through: the main thread takes a
 * pthread spinlock, starts WORKERS threads named "spinner" that want it at once (and so spin in
 * pthread_spin_lock), computes SERIAL_ITERS iterations holding it, and lets it go; each spinner
 * then computes PARALLEL_ITERS iterations. Without being told, a scheduler sees WORKERS + 1
 * runnable threads through the serial phase (the spinners stay runnable), a parallel one.
 *
 * The main thread starts computing only once every spinner is spinning, whatever the load: each
 * spinner notes its own CPU time and then calls pthread_spin_lock, and the main thread waits
 * until each has had SETTLED_NS of CPU time more. A thread gets CPU time only by running, and
 * from that note on it runs only inside pthread_spin_lock: through a preload library's entry
 * (a trylock, a table lookup, a clock read: microseconds) and then in the spin. So every spin
 * contains the whole of the computation.
 *
 * At exit it prints what it measured itself with CLOCK_MONOTONIC: the time the main thread
 * computed holding the lock, and each spinner's time in pthread_spin_lock (the clock read before
 * the call and after its return, which encloses a preload library's own):
 *   checksum N
 *   hold_ns NS
 *   spinner TID SPIN_NS      (one line per spinner)
 *
 * usage: spinners WORKERS SERIAL_ITERS PARALLEL_ITERS */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 64
/* The spinner's CPU time after its note that the main thread waits for: a thousand times what
 * the path into the spin takes. */
#define SETTLED_NS 1000000ULL

/* What one spinner measured, and the CPU time it noted before spinning. */
struct spinner_seen {
    uint32_t tid;
    uint64_t cpu_before_ns; /* its CPU time just before pthread_spin_lock */
    int about_to_spin;      /* set once cpu_before_ns is */
    uint64_t spin_ns;       /* time inside pthread_spin_lock */
};

static pthread_spinlock_t gate;
static uint64_t parallel_iters;
static uint64_t sink;
static struct spinner_seen seen[MAX_WORKERS];

static uint64_t work(uint64_t n, uint64_t x) {
    for (uint64_t i = 0; i < n; i++)
        x = x * 6364136223846793005ULL + 1;
    return x;
}

static uint64_t clock_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *spinner(void *arg) {
    struct spinner_seen *me = &seen[(uintptr_t)arg];
    pthread_setname_np(pthread_self(), "spinner");
    me->tid = (uint32_t)syscall(SYS_gettid);
    uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
    me->cpu_before_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    __atomic_store_n(&me->about_to_spin, 1, __ATOMIC_RELEASE);
    pthread_spin_lock(&gate);
    me->spin_ns = clock_ns(CLOCK_MONOTONIC) - t0;
    pthread_spin_unlock(&gate);
    __atomic_fetch_xor(&sink, work(parallel_iters, (uint64_t)(uintptr_t)arg + 1), __ATOMIC_RELAXED);
    return NULL;
}

/* Until spinner `i` (thread `t`) spins: SETTLED_NS of its CPU time after its note. */
static void until_spinning(int i, pthread_t t) {
    while (!__atomic_load_n(&seen[i].about_to_spin, __ATOMIC_ACQUIRE))
        usleep(100);
    clockid_t clock;
    if (pthread_getcpuclockid(t, &clock) != 0) {
        fprintf(stderr, "spinners: no CPU clock for a spinner\n");
        exit(1);
    }
    while (clock_ns(clock) < seen[i].cpu_before_ns + SETTLED_NS)
        usleep(100);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s WORKERS SERIAL_ITERS PARALLEL_ITERS\n", argv[0]);
        return 2;
    }
    int workers = atoi(argv[1]);
    uint64_t serial_iters = strtoull(argv[2], NULL, 10);
    parallel_iters = strtoull(argv[3], NULL, 10);
    if (workers < 1 || workers > MAX_WORKERS) {
        fprintf(stderr, "WORKERS must be 1 to %d\n", MAX_WORKERS);
        return 2;
    }
    pthread_t w[MAX_WORKERS];
    pthread_spin_init(&gate, PTHREAD_PROCESS_PRIVATE);
    pthread_spin_lock(&gate); /* uncontended: the main thread holds the gate before anyone wants it */
    for (int i = 0; i < workers; i++)
        pthread_create(&w[i], NULL, spinner, (void *)(uintptr_t)i);
    for (int i = 0; i < workers; i++)
        until_spinning(i, w[i]);
    uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
    uint64_t x = work(serial_iters, 7);
    uint64_t hold_ns = clock_ns(CLOCK_MONOTONIC) - t0;
    pthread_spin_unlock(&gate);
    for (int i = 0; i < workers; i++)
        pthread_join(w[i], NULL);
    printf("checksum %llu\nhold_ns %llu\n", (unsigned long long)(x ^ sink), (unsigned long long)hold_ns);
    for (int i = 0; i < workers; i++)
        printf("spinner %u %llu\n", seen[i].tid, (unsigned long long)seen[i].spin_ns);
    return 0;
}
