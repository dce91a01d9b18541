#pragma once
// Counts a kernel's compiled code adds to the source the model runs, where its recorded SASS
// (assets/sass) shows why: the app names such a difference instead of leaving it "not
// explained" (DiffKind::CompiledLoop). Each entry is derived by hand from the SASS in
// docs/HARDWARE.md 9c and applies only while that SASS is current and has the shape the
// derivation read; anything else gets no surplus. Never fitted to a measurement.
#include <string>

#include "kernels/catalogue/catalogue.h"
#include "kernels/hardware/hardware.h"

namespace ws {

// @post extra is empty unless family/variant has a derivation and its recorded SASS is
//       current for the source and has the shape that derivation read. scan/serial at
//       n, block: global load requests + 3 x n/32 + n/block, sectors + 12 x n/32 + n/block.
CompiledSurplus compiled_surplus(const std::string& family, const std::string& variant,
                                 const Params& completed);

}  // namespace ws
