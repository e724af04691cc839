/* THREADS threads that sleep on a condition variable for SECONDS, then exit: the agent's cost
 * at rest (bench/agent_overhead.py) and its restore tests.
 *
 * usage: sleepers THREADS SECONDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int release;

static void *sleeper(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    while (!release)
        pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s THREADS SECONDS\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]);
    double seconds = atof(argv[2]);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 64 * 1024); /* 10 000 threads in 640 MB of address space */
    pthread_t *t = calloc((size_t)n, sizeof *t);
    int started = 0;
    for (int i = 0; i < n; i++, started++)
        if (pthread_create(&t[i], &a, sleeper, NULL) != 0) {
            fprintf(stderr, "sleepers: could only start %d threads\n", i);
            break;
        }
    printf("started %d\n", started);
    fflush(stdout);
    usleep((useconds_t)(seconds * 1e6));
    pthread_mutex_lock(&m);
    release = 1;
    pthread_cond_broadcast(&c);
    pthread_mutex_unlock(&m);
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    return 0;
}
