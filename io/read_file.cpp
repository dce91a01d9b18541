#include "io/read_file.h"

#include <cstdint>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ws::io {
namespace {

std::string kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory, not a file";
  if (S_ISFIFO(m)) return "a FIFO (named pipe), not a regular file";
  if (S_ISCHR(m)) return "a character device, not a regular file";
  if (S_ISBLK(m)) return "a block device, not a regular file";
  if (S_ISSOCK(m)) return "a socket, not a regular file";
  return "not a regular file";
}

// Sets the error as "WHAT PATH reason" and the reason alone.
void fail(ReadResult& r, const std::string& head, const std::string& reason) {
  r.reason = reason;
  r.error = head + " " + reason;
  r.text.clear();
}

std::string mib(std::size_t n) {
  return n >= (std::size_t(1) << 20) ? std::to_string(n >> 20) + " MiB" : std::to_string(n) + " bytes";
}

// Opens `path` for reading if it is a regular file within the cap: the fd, or -1 with `r`
// holding the error.
int open_checked(const std::string& path, std::size_t cap, const std::string& what, ReadResult& r) {
  const std::string head = (what.empty() ? std::string() : what + " ") + path;
  if (path.empty()) {
    r.reason = "no file name given";
    r.error = (what.empty() ? std::string("file") : what) + ": no file name given";
    return -1;
  }
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting; a
  // regular file ignores it. O_NOCTTY: a terminal named here never becomes ours.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    r.missing = e == ENOENT;
    fail(r, head, e == ENOENT ? std::string("does not exist") : std::string("cannot be read: ") + std::strerror(e));
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    fail(r, head, std::string("cannot be read: ") + std::strerror(errno));
    ::close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    fail(r, head, "is " + kind_of(st.st_mode));
    ::close(fd);
    return -1;
  }
  if (std::uintmax_t(st.st_size) > cap) {
    fail(r, head, "is larger than " + mib(cap) + " (" + std::to_string(st.st_size) + " bytes)");
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

ReadResult read_file(const std::string& path, std::size_t cap, const std::string& what) {
  ReadResult r;
  const int fd = open_checked(path, cap, what, r);
  if (fd < 0) return r;
  const std::string head = (what.empty() ? std::string() : what + " ") + path;
  // The file may grow while it is read: one byte past the cap is enough to refuse it.
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(r, head, std::string("cannot be read: ") + std::strerror(errno));
      ::close(fd);
      return r;
    }
    if (n == 0) break;
    r.text.append(buf, std::size_t(n));
    if (r.text.size() > cap) {
      fail(r, head, "is larger than " + mib(cap));
      ::close(fd);
      return r;
    }
  }
  ::close(fd);
  r.ok = true;
  return r;
}

std::string check_readable(const std::string& path, std::size_t cap, const std::string& what) {
  ReadResult r;
  const int fd = open_checked(path, cap, what, r);
  if (fd < 0) return r.error;
  ::close(fd);
  return "";
}

}  // namespace ws::io
