#pragma once
// Glue between a family header and a backend mode: a Variant is the catalogue's
// description plus the function that launches it with this mode's Launcher.
// Included by every family header after kernels/simt.h.
#include <string>
#include <vector>

#include "kernels/catalogue.h"
#include "kernels/simt.h"

WS_BEGIN_MODE

// The arrays of a plan as this mode's handles (device pointers on CUDA, host on emu).
struct Args {
  std::vector<void*> ptr;
  std::vector<std::uint64_t> count;
  template <class T>
  Global<const T> in(int i) const {
    return Global<const T>{static_cast<const T*>(ptr.at(i)), count.at(i), std::uint8_t(i)};
  }
  template <class T>
  Global<T> out(int i) const {
    return Global<T>{static_cast<T*>(ptr.at(i)), count.at(i), std::uint8_t(i)};
  }
};

struct Variant {
  VariantInfo info;
  void (*launch)(Launcher& L, const Params& p, const Plan& plan, const Args& a) = nullptr;
};

using Registry = std::vector<Variant>;

// Every family of the catalogue, in teaching order. Defined in this mode's catalogue TU.
const Registry& registry();
const Variant* find(const std::string& family, const std::string& variant);

WS_END_MODE
