/* hw_internal.h - the model struct, shared by hw_model.c and approx.c only. */
#ifndef VKRR_HW_INTERNAL_H
#define VKRR_HW_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "hw_model.h"

struct vkrr_hw_model {
    char name[128], note[1200];
    bool rounded;
    vkrr_hw_tables *tables;   /* owned; NULL when rounded */
    pthread_mutex_t lock;     /* guards port */
    uint32_t *port;           /* vkrr_approx_port_tables, built on first use */
};

/* The tables of the current model (NULL: rounded). */
vkrr_hw_tables *vkrr_hw_current_tables(void);

#endif
