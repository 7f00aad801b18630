/* hw_internal.h - the model struct, shared by hw_model.c and approx.c only. */
#ifndef VKRR_HW_INTERNAL_H
#define VKRR_HW_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "hw_model.h"

struct vkrr_hw_model {
    char name[128], note[1200];
    char arch[16];            /* the GPU it stands for: the capture's, else the tables' */
    bool rounded;
    vkrr_hw_tables *tables;   /* owned; NULL when rounded */
    pthread_mutex_t lock;     /* guards port */
    uint32_t *port;           /* vkrr_approx_port_tables, built on first use */
};

/* ord(): f32 bits as an ordered integer (+0 and -0 both 0), and back: a
 * delta table's entry is ord(hw) - ord(ref). */
static inline int64_t vkrr_hw_ord(uint32_t b)
{
    return (b & 0x80000000u) ? -(int64_t)(b & 0x7fffffffu) : (int64_t)b;
}
static inline uint32_t vkrr_hw_unord(int64_t o)
{
    return o >= 0 ? (uint32_t)o : (uint32_t)(-o) | 0x80000000u;
}

/* The tables of the current model (NULL: rounded). */
vkrr_hw_tables *vkrr_hw_current_tables(void);

#endif
