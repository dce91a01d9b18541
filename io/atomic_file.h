#pragma once
// The one writer of every file a user sees (progress, chart exports, the demo, bench
// CSV/JSON, recordings): the data goes to a uniquely named temporary file beside the
// target, is flushed to disk, and is renamed into place, so a crash never leaves half a
// file at the final name. Without `overwrite` an existing name is never replaced, even by
// a file that appears during the write (renameat2 RENAME_NOREPLACE, else link(2)).
// Symbolic links and anything that is not a regular file are left alone with a message.
// No CUDA, no GUI, no third-party header: viz/ and app/ both link it.
#include <string>
#include <string_view>

namespace ws::io {

struct WriteOptions {
  bool overwrite = false;  // --force: replace an existing regular file
  // With overwrite: keep the replaced file as PATH.bak.N (the first free N from 1; an
  // existing backup is never replaced).
  bool backup = false;
  // With overwrite: keep the replaced file as PATH.bak, replacing the previous PATH.bak
  // (a user's file saved often, like the editor's kernel: one step back, no pile).
  bool keep_previous = false;
  unsigned mode = 0644;
};

struct WriteResult {
  bool ok = false;
  std::string error;   // one line naming the path and the reason, when !ok
  std::string backup;  // where the replaced file was kept ("" if none)
};

// @post ok => path is a regular file holding exactly `data`; !ok => nothing at `path`
//       changed and no temporary file is left behind.
WriteResult write_file(const std::string& path, std::string_view data, const WriteOptions& o = {});

// Removes the temporaries that earlier writers of `path` left behind when they were
// killed (kill -9, power loss): hidden files named like write_file's own temporaries for
// this path whose process is gone (or that are over an hour old). Nothing else is touched.
// write_file calls it before writing. Returns how many were removed.
int clean_stale_temporaries(const std::string& path);

// Whether write_file(path, ..., overwrite) could succeed, checked before a long run:
// "" or the reason (exists, a directory, a symbolic link, not a regular file, no such
// directory, not writable, name too long).
std::string check_writable(const std::string& path, bool overwrite);

// Moves `path` aside to PATH.bak.N (the first free N from 1, never replacing one) and
// returns that name; "" with `error` set when it could not. `path` must be a regular file.
std::string move_to_backup(const std::string& path, std::string& error);

}  // namespace ws::io
