// warpscope: the desktop app, or the headless commands (see app/cli/cli.h).
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "app/cli/cli.h"

#if defined(WS_HAVE_LESSONS)
#include "app/lesson/lesson.h"
#endif
#if defined(WS_HAVE_GUI)
#include "app/gui/gui.h"
#endif

namespace {

// Started with standard input, output or error closed: the slot is held by /dev/null (in)
// or /dev/full (out, err), so no file warpscope opens later becomes "standard output" and
// receives its report; a write to a closed stdout then fails and is reported at exit.
bool hold_closed_std_fds() {
  bool out_closed = false;
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int got = ::open(fd == 0 ? "/dev/null" : "/dev/full", fd == 0 ? O_RDONLY : O_WRONLY);
    if (got >= 0 && got != fd) {  // a lower slot was free after all: keep ours at fd
      ::dup2(got, fd);
      ::close(got);
    }
    if (fd == 1) out_closed = true;
  }
  return out_closed;
}

// Every command's output is checked once at exit: a full disk (/dev/full), a closed
// stdout or a reader that went away (EPIPE; SIGPIPE is ignored so files being written
// are finished, not cut) is an error with a message, never a silent exit 0.
int finish_stdout(int rc, bool closed) {
  std::cout.flush();
  errno = 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  const int e = errno;
  if (!flush_failed && !std::ferror(stdout) && !std::cout.bad()) return rc;
  // stdio keeps no errno for a failed write: ask the descriptor what is wrong with it.
  std::string why = closed ? "it is closed" : e != 0 ? std::strerror(e) : "a write failed";
  if (!closed && e == 0) {
    pollfd p{1, POLLOUT, 0};
    if (::poll(&p, 1, 0) == 1 && (p.revents & POLLERR)) {
      why = std::strerror(EPIPE);  // a pipe whose reader is gone
    } else if (::write(1, "", 0) < 0) {
      why = std::strerror(errno);  // /dev/full says ENOSPC even to an empty write
    }
  }
  std::fprintf(stderr, "warpscope: cannot write to standard output (%s)\n", why.c_str());
  return rc == 0 ? 1 : rc;
}

}  // namespace

int main(int argc, char** argv) {
  const bool stdout_closed = hold_closed_std_fds();
  std::signal(SIGPIPE, SIG_IGN);
  ws::cli::Hooks hooks;
#if defined(WS_HAVE_LESSONS)
  hooks.lesson_validate = &ws::lesson::validate_files;
  hooks.lesson_check = &ws::lesson::check_file;
  hooks.lesson_timed = &ws::lesson::timed_configs;
  hooks.lesson_steps = &ws::lesson::step_count;
#endif
#if defined(WS_HAVE_GUI)
  hooks.gui_display_available = &ws::gui::display_available;
  hooks.gui_run = &ws::gui::run;
  hooks.gui_lesson_chart = &ws::gui::lesson_chart;
#endif
  return finish_stdout(ws::cli::main(argc, argv, hooks), stdout_closed);
}
