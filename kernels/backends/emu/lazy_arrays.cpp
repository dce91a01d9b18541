// Made-on-touch global arrays (see kernels/backends/emu/lazy_arrays.h). Anonymous private mappings
// with MAP_NORESERVE: reserving the address space commits no memory, and a page costs
// memory only once make() writes it.
#include "kernels/backends/emu/lazy_arrays.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "sim/inputs.h"

namespace ws {

LazyArrays::LazyArrays(const Plan& plan, std::uint64_t seed) : specs_(plan.arrays), seed_(seed) {
  arrays_.resize(specs_.size());
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    Array& a = arrays_[i];
    a.index = std::uint32_t(i);
    a.spec = &specs_[i];
    a.size = std::size_t(specs_[i].count) * specs_[i].elem_bytes;
    a.mapped = std::max<std::size_t>(a.size, 1);
    void* p = mmap(nullptr, a.mapped, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      // The destructor does not run for a constructor that throws.
      for (std::size_t j = 0; j < i; ++j) munmap(arrays_[j].base, arrays_[j].mapped);
      throw std::bad_alloc();
    }
    a.base = static_cast<std::byte*>(p);
    a.made.assign((a.size + kChunk - 1) / kChunk, false);
  }
}

LazyArrays::~LazyArrays() {
  for (Array& a : arrays_)
    if (a.base) munmap(a.base, a.mapped);
}

void LazyArrays::touch(const void* addr, std::size_t bytes) {
  const auto* p = static_cast<const std::byte*>(addr);
  for (Array& a : arrays_) {
    if (p < a.base || p >= a.base + a.size) continue;
    const std::size_t lo = std::size_t(p - a.base);
    const std::size_t hi = std::min(a.size, lo + std::max<std::size_t>(bytes, 1));
    for (std::size_t c = lo / kChunk; c <= (hi - 1) / kChunk; ++c)
      if (!a.made[c]) make(a, c);
    return;
  }
}

void LazyArrays::make(Array& a, std::size_t chunk) {
  a.made[chunk] = true;
  const std::size_t lo = chunk * kChunk, hi = std::min(a.size, lo + kChunk);
  made_ += hi - lo;
  const ArraySpec& s = *a.spec;
  if (s.output) {
    std::memset(a.base + lo, 0xFF, hi - lo);  // as the eager path poisons outputs
    return;
  }
  if (s.gen.fill == Fill::None) return;  // zero, as a fresh page is
  // fill_inputs' words: whole 32-bit words of the array (kChunk is a multiple of 4).
  const std::size_t words = a.size / 4;
  auto* w = reinterpret_cast<std::uint32_t*>(a.base);
  for (std::size_t i = lo / 4; i < std::min(words, hi / 4 + (hi % 4 != 0)); ++i)
    w[i] = input_word(s.gen, seed_, a.index, i);
}

}  // namespace ws
