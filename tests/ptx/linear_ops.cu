// linear_ops: tests/cuda/vkrr_test_linear.cu (tex1Dfetch over linear memory,
// tex2D over pitch-2D memory) as PTX, for the interpreter's tex.1d and the
// capture of test_damage rerun from PTX.
#include "../cuda/vkrr_test_linear.cu"
