/* spirv_strip.c - a SPIR-V module reduced to its interface (spirv_strip.h). */
#include "spirv_strip.h"

#include <stdlib.h>
#include <string.h>

enum {
    OP_SOURCE_CONTINUED = 2, OP_SOURCE = 3, OP_SOURCE_EXTENSION = 4, OP_NAME = 5, OP_MEMBER_NAME = 6,
    OP_STRING = 7, OP_LINE = 8, OP_EXTENSION = 10, OP_EXT_INST_IMPORT = 11, OP_MEMORY_MODEL = 14,
    OP_ENTRY_POINT = 15, OP_EXECUTION_MODE = 16, OP_CAPABILITY = 17, OP_TYPE_FIRST = 19,
    OP_TYPE_LAST = 39, OP_FUNCTION = 54, OP_FUNCTION_PARAMETER = 55, OP_FUNCTION_END = 56,
    OP_DECORATE = 71, OP_MEMBER_DECORATE = 72, OP_DECORATION_GROUP = 73, OP_GROUP_DECORATE = 74,
    OP_LABEL = 248, OP_UNREACHABLE = 255, OP_NO_LINE = 317, OP_MODULE_PROCESSED = 330,
    OP_EXECUTION_MODE_ID = 331, OP_DECORATE_ID = 332, OP_TYPE_COOP_KHR = 4456,
    OP_TYPE_COOP_NV = 5358, OP_DECORATE_STRING = 5632, OP_MEMBER_DECORATE_STRING = 5633,
    CAP_COOP_NV = 5357, CAP_COOP_KHR = 6022,
};

/* Instructions that name ids without depending on them: kept even when an
 * id they name is dropped (a name or decoration of it is harmless). */
static bool names_only(uint32_t op)
{
    switch (op) {
    case OP_SOURCE_CONTINUED: case OP_SOURCE: case OP_SOURCE_EXTENSION: case OP_NAME:
    case OP_MEMBER_NAME: case OP_STRING: case OP_LINE: case OP_EXTENSION: case OP_EXT_INST_IMPORT:
    case OP_MEMORY_MODEL: case OP_ENTRY_POINT: case OP_EXECUTION_MODE: case OP_CAPABILITY:
    case OP_DECORATE: case OP_MEMBER_DECORATE: case OP_DECORATION_GROUP: case OP_GROUP_DECORATE:
    case OP_NO_LINE: case OP_MODULE_PROCESSED: case OP_EXECUTION_MODE_ID: case OP_DECORATE_ID:
    case OP_DECORATE_STRING: case OP_MEMBER_DECORATE_STRING:
        return true;
    default:
        return false;
    }
}

/* The id a global instruction defines: a type's is its first operand, any
 * other's (a constant, a variable, ...) its second, after the result type. */
static uint32_t result_of(const uint32_t *ins, uint32_t len)
{
    uint32_t op = ins[0] & 0xffffu;
    bool type = (op >= OP_TYPE_FIRST && op <= OP_TYPE_LAST) || op == OP_TYPE_COOP_NV ||
                op == OP_TYPE_COOP_KHR;
    return type ? (len > 1 ? ins[1] : 0) : (len > 2 ? ins[2] : 0);
}

bool vkrr_spirv_interface_only(const uint32_t *code, size_t words, uint32_t **out, size_t *out_words)
{
    *out = NULL;
    *out_words = 0;
    if (!code || words < 5 || code[0] != 0x07230203u || code[3] > (1u << 24))
        return false;
    uint32_t bound = code[3];
    bool *gone = calloc(bound + 1, 1);
    uint32_t *w = malloc(words * sizeof *w + 4 * sizeof *w);
    if (!gone || !w) {
        free(gone);
        free(w);
        return false;
    }
    /* pass 1: the dropped ids (globals come before the first function) */
    for (size_t i = 5; i < words;) {
        uint32_t len = code[i] >> 16, op = code[i] & 0xffffu;
        if (len == 0 || i + len > words)
            goto bad;
        if (op == OP_FUNCTION)
            break;
        bool drop = op == OP_TYPE_COOP_NV || op == OP_TYPE_COOP_KHR;
        for (uint32_t k = 1; !drop && !names_only(op) && k < len; k++)
            drop = code[i + k] <= bound && gone[code[i + k]];
        uint32_t r = drop ? result_of(code + i, len) : 0;
        if (r && r <= bound)
            gone[r] = true;
        i += len;
    }
    /* pass 2: the copy */
    size_t n = 5;
    memcpy(w, code, 5 * sizeof *w);
    bool in_fn = false, body = false;
    for (size_t i = 5; i < words;) {
        uint32_t len = code[i] >> 16, op = code[i] & 0xffffu;
        if (len == 0 || i + len > words)
            goto bad;
        const uint32_t *ins = code + i;
        i += len;
        if (op == OP_FUNCTION) {
            in_fn = true, body = false;
        } else if (in_fn) {
            if (op == OP_FUNCTION_END)
                in_fn = false;
            else if (op == OP_LABEL && !body)
                body = true;
            else if (op != OP_FUNCTION_PARAMETER || body)
                continue; /* the body: never read by reflection */
        } else if (op == OP_CAPABILITY && len > 1 && (ins[1] == CAP_COOP_NV || ins[1] == CAP_COOP_KHR)) {
            continue;
        } else if (op == OP_ENTRY_POINT && len > 3) {
            /* execution model, id, name (a string ending in a word with a 0
             * byte), then the interface ids: the dropped ones left out */
            uint32_t k = 3;
            while (k < len && (ins[k] & 0xff000000u) && (ins[k] & 0xff0000u) && (ins[k] & 0xff00u) &&
                   (ins[k] & 0xffu))
                k++;
            k++;
            size_t at = n;
            for (uint32_t j = 0; j < k && j < len; j++)
                w[n++] = ins[j];
            for (uint32_t j = k; j < len; j++)
                if (!(ins[j] <= bound && gone[ins[j]]))
                    w[n++] = ins[j];
            w[at] = (uint32_t)((n - at) << 16) | OP_ENTRY_POINT;
            continue;
        } else if (!names_only(op) && result_of(ins, len) <= bound && gone[result_of(ins, len)] &&
                   result_of(ins, len)) {
            continue;
        }
        memcpy(w + n, ins, len * sizeof *w);
        n += len;
        if (op == OP_LABEL && in_fn)
            w[n++] = (1u << 16) | OP_UNREACHABLE;
    }
    free(gone);
    *out = w;
    *out_words = n;
    return true;
bad:
    free(gone);
    free(w);
    return false;
}
