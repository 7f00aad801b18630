/* The one volk implementation unit: volk.c as Debian's libvulkan-volk-dev
 * installs it (/usr/include/volk.c), compiled here; no foreign source lives
 * in this tree. */
#include <volk.c>
