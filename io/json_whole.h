#pragma once
// Whole numbers read from JSON files a user can edit (progress, recordings, hardware
// counters). nlohmann's get<int>() converts a float or an out-of-range integer with a plain
// cast, which is undefined behaviour for 1e300; these refuse it with a message instead.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>

namespace ws::io {

// @post returns v as T iff v is a JSON integer within T's range; otherwise throws runtime_error naming `what`.
template <class T>
T whole(const nlohmann::json& v, const std::string& what) {
  if (v.is_number_unsigned()) {
    if (const auto u = v.get<std::uint64_t>(); std::in_range<T>(u)) return T(u);
  } else if (v.is_number_integer()) {
    if (const auto i = v.get<std::int64_t>(); std::in_range<T>(i)) return T(i);
  }
  throw std::runtime_error(what + " is not a whole number in range (" + v.dump().substr(0, 40) + ")");
}

// @post whole<T>(obj[key]) when obj is an object holding key, else `otherwise`.
template <class T>
T whole_or(const nlohmann::json& obj, const char* key, T otherwise) {
  return obj.is_object() && obj.contains(key) ? whole<T>(obj.at(key), key) : otherwise;
}

}  // namespace ws::io
