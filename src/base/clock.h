/* clock.h - the one monotonic clock the tool times things by (seconds, as
 * a double): validate's timings, stress's --time, synth's progress. */
#ifndef VKRR_CLOCK_H
#define VKRR_CLOCK_H

#include <time.h>

static inline double vkrr_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
