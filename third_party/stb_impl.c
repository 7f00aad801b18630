/* The single implementation unit of stb_image_write (from libstb-dev). */
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBIW_WINDOWS_UTF8 0
#include <stb_image_write.h>
