#pragma once
// Glue between a family header and a backend mode: a Variant is the catalogue's
// description plus the function that launches it with this mode's Launcher.
// Included by every family header after kernels/simt.h.
#include <string>
#include <vector>

#include "kernels/catalogue/catalogue.h"
#include "kernels/dialect/simt.h"

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

// The families and their variants in teaching order. A family header opens its family
// with family() and then add()s its variants by name:
//   r.family({.name = "transpose", .source_file = "kernels/families/transpose.cuh", ...});
//   r.add({.info = {.name = "naive", .title = ..., .entry = "TransposeNaive", ...},
//          .launch = [](Launcher& L, ...) { ... }});
class Registry {
 public:
  void family(FamilyInfo f) { families_.push_back(std::move(f)); }
  // @post the variant belongs to the family opened last: its family and source_file are
  //       that family's.
  void add(Variant v) {
    const FamilyInfo& f = families_.at(families_.size() - 1);
    v.info.family = f.name;
    v.info.source_file = f.source_file;
    variants_.push_back(std::move(v));
  }
  const std::vector<FamilyInfo>& families() const { return families_; }
  const std::vector<Variant>& variants() const { return variants_; }
  auto begin() const { return variants_.begin(); }
  auto end() const { return variants_.end(); }
  std::size_t size() const { return variants_.size(); }

 private:
  std::vector<FamilyInfo> families_;
  std::vector<Variant> variants_;
};

// Calls f.template operator()<v>() for the allowed value v of parameter `name` (C is its
// Choices<...>). A value without an instance, which validate() has already refused, is
// refused here too, by name, instead of launching some other instance.
template <class C, class F>
void with_choice(Launcher& L, const char* name, long long value, F&& f) {
  if (!C::dispatch(value, f))
    L.refuse(std::string(name) + "=" + std::to_string(value) + " has no compiled instance");
}

// Every family of the catalogue, in teaching order. Defined in this mode's catalogue TU.
const Registry& registry();
const Variant* find(const std::string& family, const std::string& variant);

WS_END_MODE
