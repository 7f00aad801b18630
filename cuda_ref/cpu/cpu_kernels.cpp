// cpu_kernels.cpp - the rrref .cu files compiled as C++ against cuda_cpu.h,
// and the name -> launcher table (cpu_run_range in cpu_kernels.h: kernels
// with no inter-thread communication, so any thread order gives the same
// bytes; cpu_run_range_coop: the attention block, whose threads meet, as
// fibers), plus the kernels registered at run time.
#include "cpu_kernels.h"

#include <string.h>

#include "rrref_attn.cu"
#include "rrref_conv.cu"
#include "rrref_expo.cu"
#include "rrref_input.cu"
#include "rrref_output.cu"
#include "rrref_tok.cu"
#ifdef VKRR_TEST_KERNELS /* the tests' kernels, one source for every backend */
#include "vkrr_test_linear.cu"
#endif

static const cpu_kernel_entry cpu_kernels[] = {
    CPU_KERNEL(cuda_dldn_rrref_expo0_kernel, rrref_expo0_params),
    CPU_KERNEL(cuda_dldn_rrref_expo1_kernel, rrref_expo1_params),
    CPU_KERNEL(cuda_dldn_rrref_input_kernel, rrref_input_params),
    CPU_KERNEL(cuda_dldn_rrref_enc0_kernel, rrref_conv_params),
    CPU_KERNEL(cuda_dldn_rrref_down_kernel, rrref_down_params),
    CPU_KERNEL(cuda_dldn_rrref_enc1_kernel, rrref_conv_params),
    CPU_KERNEL(cuda_dldn_rrref_dec0_kernel, rrref_conv_params),
    CPU_KERNEL(cuda_dldn_rrref_output_kernel, rrref_output_params),
    CPU_KERNEL(cuda_dldn_rrref_tok0_kernel, rrref_tok_params),
    CPU_KERNEL(cuda_dldn_rrref_untok0_kernel, rrref_untok_params),
    /* its threads meet; rcp.approx too; the tensor-core sum is a model and
     * div.approx a stand-in (approx.h), as its PTX's launches report */
    CPU_KERNEL_COOP(cuda_dldn_rrref_attn0_kernel, rrref_attn_params,
                    CPU_APPROX_RRREF | (1u << VKRR_APPROX_RCP), VKRR_STANDIN_DIV | VKRR_STANDIN_TCSUM),
#ifdef VKRR_TEST_KERNELS
    CPU_KERNEL(vkrr_test_linear_kernel, vkrr_test_linear_params),
#endif
};

static const cpu_kernel_entry *cpu_extra[16];
static unsigned cpu_nextra;

const cpu_kernel_entry *cpu_kernel_find(const char *name)
{
    for (const cpu_kernel_entry &k : cpu_kernels)
        if (name && !strcmp(k.name, name))
            return &k;
    for (unsigned i = 0; i < cpu_nextra; i++)
        if (name && !strcmp(cpu_extra[i]->name, name))
            return cpu_extra[i];
    return nullptr;
}

bool cpu_kernel_register(const cpu_kernel_entry *k)
{
    if (!k || !k->name || cpu_kernel_find(k->name) || cpu_nextra == sizeof cpu_extra / sizeof cpu_extra[0])
        return false;
    cpu_extra[cpu_nextra++] = k;
    return true;
}
