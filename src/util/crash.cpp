#include "util/crash.hpp"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <typeinfo>

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "util/log.hpp"

extern "C" {
// GANNET_FREEZE_ON_ERROR: the failing rank waits while this is nonzero; a debugger attached
// to it sets it to 0 (`set var *(int*)&gannet_frozen = 0`) to let the rank go on dying normally.
volatile int gannet_frozen = 0;
}

namespace gannet::util {
namespace {

constexpr int k_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int k_max_frames = 48;

bool g_installed = false;
bool g_backtrace_on = true;
bool g_freeze = false;
bool g_ours[65] = {};
char g_exe[512] = "";        // /proc/self/exe, read at install (the report cannot allocate)
char g_addr2line[512] = "";  // found on PATH at install; empty: function names only
const char* (*g_note)() = nullptr;
void (*g_flush)() = nullptr;
std::terminate_handler g_previous_terminate = nullptr;
std::atomic<long> g_reporter{0};  // thread id of the thread reporting, 0 when none
char g_altstack[64 * 1024];

// ---- Output: one write(2) per line, prefixed like every other diagnostic. ------------

struct line_buffer {
  char buf[1024];
  std::size_t n = 0;
  void add(const char* s, std::size_t len) {
    if (len > sizeof buf - 1 - n) len = sizeof buf - 1 - n;
    std::memcpy(buf + n, s, len);
    n += len;
  }
  void add(const char* s) { add(s, std::strlen(s)); }
  void add_hex(std::uintptr_t v) {
    char tmp[20];
    int k = 0;
    do {
      tmp[k++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v);
    add("0x");
    while (k) add(&tmp[--k], 1);
  }
  void add_dec(long v) {
    char tmp[24];
    int k = 0;
    bool neg = v < 0;
    unsigned long u = neg ? 0UL - static_cast<unsigned long>(v) : static_cast<unsigned long>(v);
    do {
      tmp[k++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u);
    if (neg) add("-");
    while (k) add(&tmp[--k], 1);
  }
  void start() {
    n = 0;
    add(log_prefix());
    add(": ");
  }
  void flush() {
    buf[n++] = '\n';
    ssize_t ignored = ::write(STDERR_FILENO, buf, n);
    (void)ignored;
    n = 0;
  }
};

const char* signal_text(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (invalid memory access)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGABRT: return "SIGABRT (abort)";
    default: return "a fatal signal";
  }
}

// ---- Symbolization. -------------------------------------------------------------------

struct frame {
  std::uintptr_t pc = 0;        // address inside the call (return address - 1 past frame 0)
  std::uintptr_t offset = 0;    // what addr2line takes: pc minus the object's load bias
  const char* object = nullptr; // path of the executable or shared object
  const char* symbol = nullptr; // dladdr's name, when the object exports it
  std::uintptr_t symbol_addr = 0;
  const char* text = nullptr;   // addr2line's "function at file:line" (lines of inlining)
  std::size_t text_len = 0;
};

frame g_frames[k_max_frames];
char g_text[32 * 1024];  // addr2line's output for every frame

void locate(frame& f) {
  Dl_info info{};
  link_map* map = nullptr;
  if (::dladdr1(reinterpret_cast<void*>(f.pc), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 ||
      map == nullptr)
    return;
  f.offset = f.pc - static_cast<std::uintptr_t>(map->l_addr);
  f.object = (map->l_name && map->l_name[0]) ? map->l_name : (g_exe[0] ? g_exe : nullptr);
  if (f.object && std::strncmp(f.object, "linux-vdso", 10) == 0) f.object = nullptr;
  f.symbol = info.dli_sname;
  f.symbol_addr = reinterpret_cast<std::uintptr_t>(info.dli_saddr);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool k_sanitized = true;
#else
constexpr bool k_sanitized = false;
#endif

// Starts argv[0] with its output into the pipe fds. vfork, not fork: fork runs the
// process's atfork handlers, which take malloc's locks that a fault inside malloc holds.
// Under a sanitizer, whose vfork interceptor cannot run on the signal stack, the raw clone
// system call (no interceptor, no atfork handlers; the child only calls execve).
[[gnu::noinline]] pid_t spawn(const char* const* argv, const int* fds) {
  const pid_t child =
      k_sanitized ? static_cast<pid_t>(::syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, nullptr)) : ::vfork();
  if (child == 0) {
    // Raw system calls: no sanitizer interceptor (whose locks another thread may hold) runs
    // in the child.
    ::syscall(SYS_dup3, fds[1], STDOUT_FILENO, 0);
    const long null = ::syscall(SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY);
    if (null >= 0) ::syscall(SYS_dup3, null, STDERR_FILENO, 0);
    ::syscall(SYS_close, fds[0]);
    ::syscall(SYS_execve, argv[0], argv, environ);
    ::syscall(SYS_exit_group, 127);
  }
  return child;
}

// Runs addr2line once for every frame of `object`, filling their text. Output per address:
// one "function at file:line" line, then a " (inlined by) ..." line per inlining level.
std::size_t symbolize_object(const char* object, int nframes, std::size_t used) {
  char args[k_max_frames][24];
  const char* argv[k_max_frames + 8];
  int argc = 0;
  argv[argc++] = g_addr2line;
  argv[argc++] = "-C";
  argv[argc++] = "-f";
  argv[argc++] = "-i";
  argv[argc++] = "-p";
  argv[argc++] = "-e";
  argv[argc++] = object;
  int which[k_max_frames];
  int count = 0;
  for (int i = 0; i < nframes; ++i) {
    if (g_frames[i].object != object || g_frames[i].text) continue;
    line_buffer hex;
    hex.add_hex(g_frames[i].offset);
    std::memcpy(args[count], hex.buf, hex.n);
    args[count][hex.n] = '\0';
    argv[argc++] = args[count];
    which[count++] = i;
  }
  argv[argc] = nullptr;
  int fds[2];
  if (count == 0 || ::pipe(fds) != 0) return used;
  const pid_t child = spawn(argv, fds);
  ::close(fds[1]);
  const std::size_t start = used;
  if (child > 0) {
    for (;;) {
      if (used >= sizeof g_text) break;
      const ssize_t got = ::read(fds[0], g_text + used, sizeof g_text - used);
      if (got > 0) {
        used += static_cast<std::size_t>(got);
      } else if (got < 0 && errno == EINTR) {
        continue;
      } else {
        break;
      }
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::close(fds[0]);
  // Split into one entry per address.
  int k = -1;
  for (std::size_t p = start; p < used;) {
    std::size_t e = p;
    while (e < used && g_text[e] != '\n') ++e;
    const bool inlined = std::strncmp(g_text + p, " (inlined by)", 13) == 0;
    if (!inlined && k + 1 < count) {
      ++k;
      g_frames[which[k]].text = g_text + p;
      g_frames[which[k]].text_len = e - p;
    } else if (k >= 0) {
      g_frames[which[k]].text_len = e - (g_frames[which[k]].text - g_text);
    }
    p = e + 1;
  }
  return used;
}

bool unknown_text(const frame& f) { return f.text == nullptr || std::strncmp(f.text, "??", 2) == 0; }

// "    #3 user_function(int) at /src/app.cpp:42" (and its inlining lines), or the
// loader's symbol and the object when addr2line knows nothing.
void print_frame(int index, const frame& f, bool& lacked_lines) {
  line_buffer out;
  out.start();
  out.add("  #");
  out.add_dec(index);
  out.add(" ");
  if (!unknown_text(f)) {
    const char* p = f.text;
    const char* end = f.text + f.text_len;
    bool first = true;
    while (p < end) {
      const char* e = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      if (!e) e = end;
      if (!first) {
        out.flush();
        out.start();
        out.add("     ");
      }
      out.add(p, static_cast<std::size_t>(e - p));
      if (e - p >= 4 && std::strncmp(e - 4, " ??:", 4) == 0) lacked_lines = true;
      if (e - p >= 5 && std::strncmp(e - 5, "??:0", 4) == 0) lacked_lines = true;
      first = false;
      p = e + 1;
    }
  } else {
    if (f.symbol) {
      int status = -1;
      // __cxa_demangle allocates; the process is dying, and a fault inside malloc would
      // only cost this frame's name (the nested fault ends the report).
      char* name = abi::__cxa_demangle(f.symbol, nullptr, nullptr, &status);
      out.add(status == 0 && name ? name : f.symbol);
      std::free(name);
      out.add("+");
      out.add_hex(f.pc - f.symbol_addr);
    } else {
      out.add_hex(f.pc);
    }
    if (f.object) {
      out.add(" in ");
      out.add(f.object);
    }
  }
  out.flush();
}

bool is_machinery(const frame& f) {
  static const char* const k_prefixes[] = {"__GI_", "__pthread_kill", "raise", "abort", "__restore_rt",
                                           "std::terminate", "std::rethrow_exception", "__cxa_throw",
                                           "__cxa_rethrow", "__gnu_cxx::__verbose_terminate", "__cxxabiv1::",
                                           "gannet::util::", "upcxx::detail::fail"};
  const char* name = f.text ? f.text : f.symbol;
  if (!name) return false;
  for (const char* prefix : k_prefixes)
    if (std::strncmp(name, prefix, std::strlen(prefix)) == 0) return true;
  return false;
}

// Prints the backtrace of the calling thread from the frame whose pc is `from` (the
// faulting instruction of a signal; 0: from the caller of this report's entry point).
void print_backtrace(std::uintptr_t from, int skip) {
  void* raw[k_max_frames + 8];
  int n = ::backtrace(raw, k_max_frames + 8);
  int first = skip < n ? skip : 0;
  if (from) {
    for (int i = 0; i < n; ++i)
      if (reinterpret_cast<std::uintptr_t>(raw[i]) == from) {
        first = i;
        break;
      }
  }
  int count = 0;
  for (int i = first; i < n && count < k_max_frames; ++i, ++count) {
    frame& f = g_frames[count];
    f = frame{};
    const auto pc = reinterpret_cast<std::uintptr_t>(raw[i]);
    // A return address points after the call; the call itself is one byte before (the
    // faulting pc of a signal is the instruction itself).
    f.pc = (i == first && from) ? pc : pc - 1;
    locate(f);
  }
  if (g_addr2line[0]) {
    std::size_t used = 0;
    for (int i = 0; i < count; ++i)
      if (g_frames[i].object && !g_frames[i].text) used = symbolize_object(g_frames[i].object, count, used);
  }
  line_buffer out;
  out.start();
  out.add("backtrace of the failing thread (GANNET_BACKTRACE=0 turns this off):");
  out.flush();
  // The leading frames of the report itself, of abort(), of a throw that nothing catches,
  // and of Gannet's error reporting say nothing about the program: start after them.
  int shown = 0;
  while (shown < count && is_machinery(g_frames[shown])) ++shown;
  if (shown >= count) shown = 0;
  bool lacked_lines = false;
  for (int i = shown; i < count; ++i) print_frame(i - shown, g_frames[i], lacked_lines);
  if (lacked_lines || !g_addr2line[0]) {
    out.start();
    out.add(g_addr2line[0] ? "frames without file:line: rebuild with -g to see them"
                           : "addr2line (binutils) not found: frames without file:line");
    out.flush();
  }
}

// The note and freeze that every report ends with.
void finish_report() {
  if (g_flush) g_flush();
  line_buffer out;
  if (g_note) {
    if (const char* note = g_note()) {
      out.start();
      out.add(note);
      out.flush();
    }
  }
  if (g_freeze) {
    char host[256] = "?";
    ::gethostname(host, sizeof host - 1);
    const long pid = static_cast<long>(::getpid());
    out.start();
    out.add("GANNET_FREEZE_ON_ERROR: pid ");
    out.add_dec(pid);
    out.add(" on ");
    out.add(host);
    out.add(" waits for a debugger: gdb -p ");
    out.add_dec(pid);
    out.add(" (to let it end: set var *(int*)&gannet_frozen = 0, then continue)");
    out.flush();
    gannet_frozen = 1;
    while (gannet_frozen) ::sleep(1);
  }
}

// Whether this thread should report: false when another thread is reporting (it then waits
// for that report, which ends the process) or when this thread failed inside its own report.
bool begin_report() {
  const long me = static_cast<long>(::syscall(SYS_gettid));
  long none = 0;
  if (g_reporter.compare_exchange_strong(none, me)) return true;
  if (none != me) ::sleep(10);  // the first thread's report kills the process
  return false;
}

void on_signal(int sig, siginfo_t* info, void* context) {
  if (begin_report()) {
    line_buffer out;
    out.start();
    out.add("caught ");
    out.add(signal_text(sig));
    if ((sig == SIGSEGV || sig == SIGBUS) && info && info->si_code > 0) {  // from the kernel, not kill()
      out.add(" at address ");
      out.add_hex(reinterpret_cast<std::uintptr_t>(info->si_addr));
      if (reinterpret_cast<std::uintptr_t>(info->si_addr) < 4096) out.add(" (a null pointer)");
    }
    out.add(" in thread ");
    out.add_dec(static_cast<long>(::syscall(SYS_gettid)));
    out.flush();
    std::uintptr_t pc = 0;
#if defined(__x86_64__)
    if (context && sig != SIGABRT)
      pc = static_cast<std::uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
    if (context && sig != SIGABRT) pc = static_cast<std::uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.pc);
#endif
    if (g_backtrace_on) print_backtrace(pc, 2);
    finish_report();
  }
  // Die of the signal, so that the launcher (or mpirun) reports it as such.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);  // blocked until this handler returns; a fault re-executes and dies
}

void on_terminate() {
  if (begin_report()) {
    line_buffer out;
    out.start();
    out.add("terminate called");
    if (std::exception_ptr e = std::current_exception()) {
      const std::type_info* type = abi::__cxa_current_exception_type();
      out.add(" after an uncaught exception");
      if (type) {
        int status = -1;
        char* name = abi::__cxa_demangle(type->name(), nullptr, nullptr, &status);
        out.add(" of type ");
        out.add(status == 0 && name ? name : type->name());
        std::free(name);
      }
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        out.add(": ");
        out.add(ex.what());
      } catch (...) {
      }
    }
    out.flush();
    if (g_backtrace_on) print_backtrace(0, 1);
    finish_report();
  }
  std::abort();  // the SIGABRT report sees this thread already reported and only dies
}

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

void find_addr2line() {
  const char* path = std::getenv("PATH");
  if (!path || !*path) path = "/usr/bin:/bin";
  while (*path) {
    const char* end = std::strchr(path, ':');
    const std::size_t len = end ? static_cast<std::size_t>(end - path) : std::strlen(path);
    char candidate[sizeof g_addr2line];
    if (len > 0 && len + 11 < sizeof candidate) {
      std::memcpy(candidate, path, len);
      std::memcpy(candidate + len, "/addr2line", 11);
      if (::access(candidate, X_OK) == 0) {
        std::memcpy(g_addr2line, candidate, sizeof candidate);
        return;
      }
    }
    if (!end) break;
    path = end + 1;
  }
}

}  // namespace

void set_crash_note(const char* (*note)()) { g_note = note; }
void set_crash_flush(void (*flush)()) { g_flush = flush; }

void install_crash_handlers() {
  if (!g_installed) {
    g_installed = true;
    if (env_is("GANNET_BACKTRACE", "0")) g_backtrace_on = false;
    g_freeze = env_is("GANNET_FREEZE_ON_ERROR", "1");
    if (!g_backtrace_on && !g_freeze) return;
    const ssize_t n = ::readlink("/proc/self/exe", g_exe, sizeof g_exe - 1);
    g_exe[n > 0 ? n : 0] = '\0';
    find_addr2line();
    void* warm[2];
    ::backtrace(warm, 2);  // loads libgcc's unwinder now, not in the handler
    stack_t old{};
    if (::sigaltstack(nullptr, &old) == 0 && (old.ss_flags & SS_DISABLE)) {
      stack_t alt{};
      alt.ss_sp = g_altstack;
      alt.ss_size = sizeof g_altstack;
      ::sigaltstack(&alt, nullptr);  // a stack overflow of the main thread still reports
    }
    for (int sig : k_signals) {
      struct sigaction current {};
      if (::sigaction(sig, nullptr, &current) != 0) continue;
      const bool default_action = !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL;
      g_ours[sig] = default_action;
    }
    if (std::get_terminate() == __gnu_cxx::__verbose_terminate_handler || std::get_terminate() == nullptr)
      g_previous_terminate = std::set_terminate(on_terminate);
  }
  if (!g_backtrace_on && !g_freeze) return;
  for (int sig : k_signals) {
    if (!g_ours[sig]) continue;
    struct sigaction current {};
    ::sigaction(sig, nullptr, &current);
    if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_signal) continue;
    struct sigaction act {};
    act.sa_sigaction = on_signal;
    act.sa_flags = SA_SIGINFO | SA_ONSTACK;
    ::sigemptyset(&act.sa_mask);
    ::sigaction(sig, &act, nullptr);
  }
}

}  // namespace gannet::util
