// The emulator build of the catalogue: every family header compiled with the emulator's
// dialect (kernels/simt_emu.h).
#define WS_MODE_EMU
#include "kernels/simt.h"

#include "kernels/catalogue_families.inc"
