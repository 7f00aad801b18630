/* cores.h - how many host threads "every core" is: the cores online, at
 * least 1, at most max (the compare scan, the hw model check, the CPU and
 * PTX backends' blocks all spread over them). */
#ifndef VKRR_CORES_H
#define VKRR_CORES_H

#include <unistd.h>

static inline unsigned vkrr_cores(unsigned max)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1u : (unsigned long)n > max ? max : (unsigned)n;
}

#endif
