/* What the test programs of tests/agent share: a clock read in ns and a checked whole-number
 * argument. Header-only (static functions): each program is built alone from its one .c file. */
#ifndef AMPSCHED_TEST_MEASURE_H
#define AMPSCHED_TEST_MEASURE_H
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* `clock` (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, ...) in ns. */
static inline uint64_t ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Argument NAME of PROGRAM, `text`, as a whole number from LOW to HIGH; else one line on stderr
 * and exit status 2. */
static inline uint64_t number(const char *program, const char *name, const char *text, uint64_t low, uint64_t high) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || text[0] < '0' || text[0] > '9' || *end != '\0' || v < low || v > high) {
        fprintf(stderr, "%s: %s must be an integer from %llu to %llu, not '%s'\n", program, name,
                (unsigned long long)low, (unsigned long long)high, text);
        exit(2);
    }
    return v;
}
#endif
