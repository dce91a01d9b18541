#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>
#include <signal.h>

#include <atomic>
#include <ctime>
#include <cerrno>
#include <cstdio>
#include <cctype>
#include <cstring>
#include <string>
#include <random>

namespace ws::io {
namespace {

std::string dir_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}
std::string base_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string why(const std::string& path, int e) { return "cannot write " + path + ": " + std::strerror(e); }

// What is at `path` now, as a refusal ("" when nothing is in the way).
std::string in_the_way(const std::string& path, bool overwrite) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return "";
    return why(path, errno);
  }
  if (S_ISLNK(st.st_mode)) return path + " is a symbolic link: left alone, nothing written";
  if (S_ISDIR(st.st_mode)) return path + " is a directory";
  if (!S_ISREG(st.st_mode)) return path + " is not a regular file: left alone, nothing written";
  if (!overwrite) return path + " already exists (not overwritten)";
  return "";
}

// A fresh temporary name beside `path`: hidden, with the process, a counter and random
// bits, so it never matches a user's file and two writers never share one.
std::string temp_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  static thread_local std::mt19937_64 rng{std::random_device{}() ^ std::uint64_t(::getpid())};
  std::string base = base_of(path).substr(0, 96);  // stays under NAME_MAX with the suffix
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, ".tmp-%d-%u-%08llx", int(::getpid()), counter.fetch_add(1),
                (unsigned long long)(rng() & 0xFFFFFFFFull));
  return dir_of(path) + "/." + base + suffix;
}

bool write_all(int fd, std::string_view data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += std::size_t(n);
  }
  return true;
}

void sync_dir(const std::string& path) {
  const int d = ::open(dir_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d >= 0) {
    (void)::fsync(d);
    ::close(d);
  }
}

// Moves tmp to path only if path does not exist. 0 or errno.
int rename_noreplace(const std::string& tmp, const std::string& path) {
#if defined(RENAME_NOREPLACE)
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return errno;
#endif
  // A file system without renameat2: link(2) also fails with EEXIST.
  if (::link(tmp.c_str(), path.c_str()) != 0) return errno;
  ::unlink(tmp.c_str());
  return 0;
}

// The hidden prefix of every temporary of `path` (".BASE.tmp-"), as temp_name makes it.
std::string temp_prefix(const std::string& path) { return "." + base_of(path).substr(0, 96) + ".tmp-"; }

// "PID-COUNTER-HEX8" as temp_name writes it: the PID, or 0 when the rest does not match.
long temp_pid(const std::string& rest) {
  const auto d1 = rest.find('-');
  const auto d2 = d1 == std::string::npos ? d1 : rest.find('-', d1 + 1);
  if (d2 == std::string::npos || d1 == 0 || d2 == d1 + 1 || rest.size() - d2 - 1 != 8) return 0;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    const char c = rest[i];
    const bool ok = i > d2 ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                           : (i == d1 || i == d2 || (c >= '0' && c <= '9'));
    if (!ok) return 0;
  }
  if (d1 > 9) return 0;
  return std::stol(rest.substr(0, d1));
}

}  // namespace

int clean_stale_temporaries(const std::string& path) {
  const std::string dir = dir_of(path), prefix = temp_prefix(path);
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  int removed = 0;
  const std::time_t now = std::time(nullptr);
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const long pid = temp_pid(name.substr(prefix.size()));
    if (pid <= 0 || pid == long(::getpid())) continue;
    const std::string full = dir + "/" + name;
    struct stat st {};
    if (::lstat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    // Its writer is gone, or (a PID reused since) it has lain there far longer than any write.
    const bool gone = ::kill(pid_t(pid), 0) != 0 && errno == ESRCH;
    if (gone || now - st.st_mtime > 3600) removed += ::unlink(full.c_str()) == 0 ? 1 : 0;
  }
  ::closedir(d);
  return removed;
}

std::string check_writable(const std::string& path, bool overwrite) {
  if (path.empty()) return "no file name given";
  if (std::string w = in_the_way(path, overwrite); !w.empty()) return w;
  const std::string dir = dir_of(path);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return why(path, errno);
  if (!S_ISDIR(st.st_mode)) return "cannot write " + path + ": " + dir + " is not a directory";
  if (::access(dir.c_str(), W_OK) != 0) return why(path, errno);
  if (base_of(path).size() > 255) return why(path, ENAMETOOLONG);
  return "";
}

std::string move_to_backup(const std::string& path, std::string& error) {
  for (int n = 1; n < 100000; ++n) {
    const std::string bak = path + ".bak." + std::to_string(n);
    // link(2) never replaces: an existing backup makes it try the next number.
    if (::link(path.c_str(), bak.c_str()) == 0) {
      if (::unlink(path.c_str()) != 0) {
        error = "cannot move " + path + " aside: " + std::strerror(errno);
        ::unlink(bak.c_str());
        return "";
      }
      sync_dir(path);
      return bak;
    }
    if (errno != EEXIST) {
      error = "cannot move " + path + " aside to " + bak + ": " + std::strerror(errno);
      return "";
    }
  }
  error = "cannot move " + path + " aside: too many backups";
  return "";
}

WriteResult write_file(const std::string& path, std::string_view data, const WriteOptions& o) {
  WriteResult r;
  if (path.empty()) {
    r.error = "no file name given";
    return r;
  }
  if (std::string w = in_the_way(path, o.overwrite); !w.empty()) {
    r.error = w;
    return r;
  }
  clean_stale_temporaries(path);
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    tmp = temp_name(path);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, o.mode);
    if (fd < 0 && errno != EEXIST) {
      r.error = why(path, errno);
      return r;
    }
  }
  if (fd < 0) {
    r.error = why(path, EEXIST);
    return r;
  }
  if (!write_all(fd, data) || ::fsync(fd) != 0) {
    const int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    r.error = why(path, e);
    return r;
  }
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    r.error = why(path, e);
    return r;
  }
  int e = 0;
  if (!o.overwrite) {
    e = rename_noreplace(tmp, path);
    if (e == EEXIST) {
      ::unlink(tmp.c_str());
      r.error = path + " already exists (not overwritten)";
      return r;
    }
  } else {
    struct stat st {};
    if (o.backup && ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      // The old file keeps its inode under the backup name; the rename replaces the name.
      for (int n = 1; n < 100000; ++n) {
        const std::string bak = path + ".bak." + std::to_string(n);
        if (::link(path.c_str(), bak.c_str()) == 0) {
          r.backup = bak;
          break;
        }
        if (errno != EEXIST) break;
      }
    }
    if (o.keep_previous && ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      // A second name for the old inode, then renamed over PATH.bak: the old backup goes
      // only once the new one is complete.
      const std::string link_tmp = temp_name(path + ".bak");
      if (::link(path.c_str(), link_tmp.c_str()) == 0) {
        if (::rename(link_tmp.c_str(), (path + ".bak").c_str()) == 0) r.backup = path + ".bak";
        else ::unlink(link_tmp.c_str());
      }
    }
    e = ::rename(tmp.c_str(), path.c_str()) == 0 ? 0 : errno;
  }
  if (e != 0) {
    ::unlink(tmp.c_str());
    if (!r.backup.empty() && !o.keep_previous) ::unlink(r.backup.c_str());
    r.backup.clear();
    r.error = why(path, e);
    return r;
  }
  sync_dir(path);
  r.ok = true;
  return r;
}

}  // namespace ws::io
