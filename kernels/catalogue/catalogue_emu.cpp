// The emulator build of the catalogue: every family header compiled with the emulator's
// dialect (kernels/dialect/simt_emu.h).
#define WS_MODE_EMU
#include "kernels/dialect/simt.h"

#include "kernels/catalogue/catalogue_body.inc"
