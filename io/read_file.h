#pragma once
// The one reader of every file a user names (--kernel, --edit, --hardware-from,
// $WARPSCOPE_RECORDING, lessons, puzzles, progress, recorded SASS): regular files only, up
// to a size cap. The file is opened non-blocking and checked with fstat before one byte is
// read, so a FIFO never hangs the app, a directory never reaches a stream's underflow, and
// /dev/zero never fills memory. No CUDA, no GUI: every layer links it.
#include <cstddef>
#include <string>

namespace ws::io {

// What one user-named file may hold by default: far above any lesson, kernel, recording or
// SASS listing warpscope ships, far below what would hurt.
constexpr std::size_t kDefaultReadCap = std::size_t(64) << 20;

struct ReadResult {
  bool ok = false;
  std::string text;   // the whole file, when ok
  std::string error;  // one line naming the file and the reason, when !ok
  std::string reason;  // the same without "WHAT PATH" ("is a directory, not a file")
  bool missing = false;  // !ok because nothing is at the path (callers may skip it)
};

// Reads the regular file at `path` whole. `what` names it in the error ("kernel file").
// @post ok iff path names a regular file (links followed) of at most `cap` bytes that was
//       read whole; !ok => error is one line "WHAT PATH: reason" (a directory, a FIFO, a
//       device, a socket, too large, does not exist, permission) and text is empty.
ReadResult read_file(const std::string& path, std::size_t cap = kDefaultReadCap,
                     const std::string& what = "");

// The same check without keeping the text: "" when read_file would succeed on the kind
// and size of the file, else its error line.
std::string check_readable(const std::string& path, std::size_t cap = kDefaultReadCap,
                           const std::string& what = "");

}  // namespace ws::io
