#pragma once
// Helpers shared by the lesson sources (not part of the lesson API).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "app/lesson/lesson_model.h"

namespace ws::lesson::detail {

std::string trim(std::string_view s);
// Splits at whitespace (and at commas when `commas`).
std::vector<std::string> words(std::string_view s, bool commas);
// @post true iff all of `s` (trimmed) is a finite number.
bool parse_number(std::string_view s, double& out);
bool parse_int(std::string_view s, long long& out);
// `metric NAME`, `ratio NAME` or a plain name. @post false sets `why`.
bool parse_quantity(std::string_view text, Quantity& q, std::string& why);
// A Facts key ("ratio:peak", "sectors_per_request", an ncu name) back to its quantity.
bool quantity_from_key(const std::string& key, Quantity& q);
// The names between braces in a template, trimmed.
std::vector<std::string> placeholders(const std::string& tmpl);
// Quotes and lists nest at most this deep in the block tree (a lesson needs two or three).
inline constexpr std::size_t kMaxBlockDepth = 32;
// Markdown prose (its first line numbered first_line) appended to `out` as render blocks
// (lesson_markdown.cpp). @post 0, or the line where quotes or lists nest too deep.
int render_markdown(const std::string& md, int first_line, std::vector<Block>& out);

}  // namespace ws::lesson::detail
