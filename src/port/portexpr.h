/* portexpr.h - the numbers of a port descriptor: expressions of a launch.
 *
 * Every number a .port file gives (an output's window, an own interface's
 * buffer ranges, push and specialisation constants, dispatch grid) is one of
 * these: decimal or 0x hex constants, words of the launch's parameter block
 * TYPE@BYTE (TYPE u8 u16 u32 u64 i32 i64, little-endian), the launch's CUDA
 * grid and block (grid.x grid.y grid.z block.x block.y block.z), joined by
 * + - * / % and parentheses, no spaces:
 *     u32@24   (u32@28+1)/2   (u32@16+63)/64   grid.x*block.x
 * Parsed once, evaluated against each launch in 64-bit signed arithmetic
 * (overflow and division by zero are errors, never wrapped).
 *
 * Does NOT: know what a number means (portdesc.c, portiface.c do).
 */
#ifndef VKRR_PORTEXPR_H
#define VKRR_PORTEXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VKRR_PORT_EXPR_MAX 32
#define VKRR_PORT_EXPR_TEXT 120

typedef struct vkrr_port_expr_item {
    uint8_t op;          /* portexpr.c's ops */
    uint8_t bytes;       /* a parameter word: 1, 2, 4 or 8; grid/block: the axis */
    bool is_signed;
    uint32_t at;         /* a parameter word: its byte offset */
    int64_t value;       /* a constant */
} vkrr_port_expr_item;

typedef struct vkrr_port_expr {
    vkrr_port_expr_item it[VKRR_PORT_EXPR_MAX]; /* postfix order */
    unsigned n;
    char text[VKRR_PORT_EXPR_TEXT]; /* as written ("width=u32@24"), for messages */
} vkrr_port_expr;

/* What an expression reads of a launch. */
typedef struct vkrr_port_env {
    const uint8_t *args;
    uint32_t args_bytes;
    uint32_t grid[3], block[3];
} vkrr_port_env;

/* A fused port (portpass.h `covers`) names an argument of launch K of its
 * run as K:argOFF and a word of it as K:TYPE@BYTE (1:u32@16): the word at
 * byte K * 4096 + OFF of the run's parameter block (each launch's block at
 * a 4096-byte stride, CUDA's limit; fused_runs.h).  No K: launch 0. */
#define VKRR_PORT_MAX_RUN 8
/* Strips "K:" off *tok (K 0..VKRR_PORT_MAX_RUN-1) into *k; none: *k = 0.
 * False: a leading digit that is not "K:". */
bool vkrr_port_launch_prefix(char **tok, uint32_t *k);

/* Parses text (the value alone); false with a reason in *why (static). */
bool vkrr_port_expr_parse(const char *text, vkrr_port_expr *e, const char **why);
/* Evaluates e; false with a reason in why (cap bytes). */
bool vkrr_port_expr_eval(const vkrr_port_expr *e, const vkrr_port_env *env, int64_t *out, char *why,
                         size_t cap);
/* True when e reads nothing of a launch (constants only): *out its value. */
bool vkrr_port_expr_constant(const vkrr_port_expr *e, int64_t *out);

#endif
