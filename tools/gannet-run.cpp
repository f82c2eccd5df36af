// gannet-run (also installed as upcxx-run): starts N ranks of a program on this machine.
//
//   gannet-run -n N [--shared-heap SIZE] [--] prog args...
//
// It creates the job's shared region (layout: src/transport/shm/job.hpp) as a POSIX
// shared-memory object with a random name and mode 0600, unlinks the name at once, and hands
// the open descriptor to N forked ranks. Then it supervises them:
//   - a rank that dies by a signal, exits non-zero, or exits without finalizing fails the
//     job: the launcher names it, sets the region's abort flag, sends SIGTERM to the others
//     and SIGKILL to any still alive 1 s later;
//   - SIGINT/SIGTERM/SIGHUP to the launcher end every rank the same way;
//   - if the launcher itself is killed, each rank gets SIGKILL from the kernel
//     (PR_SET_PDEATHSIG), so no rank outlives it.
// Exit status: 0 when every rank exited 0 after finalizing; otherwise the first failing
// rank's exit status, or 128+signal.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "transport/shm/job.hpp"
#include "upcxx/version.hpp"
#include "util/size_parse.hpp"

namespace {

using gannet::util::format_size;

const char* g_prog = "gannet-run";
constexpr std::uint64_t default_heap = 128ull << 20;
constexpr int max_ranks = 4096;

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr, "%s: %s\n", g_prog, msg.c_str());
  std::fprintf(stderr, "%s: usage: %s -n N [--shared-heap SIZE] [--] program [args...] (see --help)\n",
               g_prog, g_prog);
  std::exit(2);
}

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "%s: %s\n", g_prog, msg.c_str());
  std::exit(1);
}

void print_help() {
  std::printf(
      "usage: %s -n N [--shared-heap SIZE] [--mpi] [-v] [--] program [args...]\n"
      "\n"
      "Starts N ranks of a UPC++ program on this machine (Gannet smp transport).\n"
      "\n"
      "options:\n"
      "  -n N, -np N               number of ranks (required)\n"
      "  --shared-heap SIZE,       shared heap per rank: a size with a unit (512KB, 256MB,\n"
      "  -shared-heap SIZE         2GB) or a percentage of physical memory split between\n"
      "                            the ranks (50%%). Default: $UPCXX_SHARED_HEAP_SIZE (a bare\n"
      "                            number is MB, MAX half of memory), else 128MB\n"
      "  -N NODES                  node count: ranks start on this machine (a warning if\n"
      "                            NODES > 1; use --mpi with a hostfile for several nodes)\n"
      "  -show                     print the command that would run, and exit\n"
      "  -E VARS, -localhost,      accepted as upcxx-run accepts them; every rank here\n"
      "  -backtrace, -ssh-servers  inherits the environment\n"
      "  --mpi                     start the job through mpirun (MPI transport) instead;\n"
      "                            $GANNET_MPIRUN names the command (default mpirun) and\n"
      "                            $GANNET_MPIRUN_ARGS adds options (a hostfile, say)\n"
      "  --info                    which transports this build has, and which a job uses\n"
      "  -v                        print the job layout before starting\n"
      "  --version                 Gannet's version, the UPC++ API it provides, its transports\n"
      "  -h, --help                this message\n"
      "\n"
      "Exit status: 0 if every rank finished; otherwise the first failing rank's status\n"
      "(128+signal for a rank killed by a signal).\n"
      "\n"
      "Every environment variable Gannet reads, with its default, is listed in the user guide:\n"
      "share/doc/gannet/docs/guide.md#environment-variables in the install prefix\n"
      "(docs/guide.md in the source tree).\n",
      g_prog);
}

const char* signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  static thread_local char buf[32];
  if (abbrev) {
    std::snprintf(buf, sizeof buf, "SIG%s", abbrev);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "signal %d", sig);
  return buf;
}

bool parse_rank_count(const std::string& s, int* out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  *out = std::atoi(s.c_str());
  return true;
}

// The program must exist and be executable before any rank starts.
std::string resolve_program(const std::string& prog) {
  // A bare name that is an executable file here runs from here, as with UPC++'s upcxx-run
  // (Makefiles say `upcxx-run -n 4 $(EXE)`); otherwise PATH is searched.
  if (prog.find('/') == std::string::npos) {
    struct stat st;
    if (::stat(prog.c_str(), &st) == 0 && !S_ISDIR(st.st_mode) && ::access(prog.c_str(), X_OK) == 0)
      return "./" + prog;
  }
  if (prog.find('/') != std::string::npos) {
    struct stat st;
    if (::stat(prog.c_str(), &st) != 0) die("cannot run '" + prog + "': " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) die("cannot run '" + prog + "': it is a directory");
    if (::access(prog.c_str(), X_OK) != 0) die("cannot run '" + prog + "': " + std::strerror(errno));
    return prog;
  }
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (dir.empty()) dir.push_back('.');  // not `dir = "."`, on which GCC 12's -Wrestrict misfires
    std::string cand = dir + "/" + prog;
    struct stat st;
    if (::stat(cand.c_str(), &st) == 0 && !S_ISDIR(st.st_mode) && ::access(cand.c_str(), X_OK) == 0)
      return cand;
    start = end + 1;
  }
  die("cannot run '" + prog + "': no such program (not a path, and not found in PATH)");
}

#ifdef GANNET_HAVE_MPI
constexpr bool built_with_mpi = true;
#else
constexpr bool built_with_mpi = false;
#endif

// The first line `cmd --version` prints, or "" when it cannot run.
std::string first_line_of(const std::string& cmd) {
  std::string out;
  if (FILE* f = ::popen((cmd + " --version 2>&1").c_str(), "r")) {
    char line[256];
    if (std::fgets(line, sizeof line, f)) out = line;
    ::pclose(f);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string mpirun_command() {
  const char* c = std::getenv("GANNET_MPIRUN");
  return c && *c ? c : "mpirun";
}

void print_info() {
  std::printf("transports in this build: smp%s\n", built_with_mpi ? " mpi" : "");
  std::printf("  %s -n N prog          smp: N processes on this machine, heaps in shared memory\n", g_prog);
  if (built_with_mpi) {
    std::string v = first_line_of(mpirun_command());
    std::printf("  %s --mpi -n N prog    mpi: through %s (%s)\n", g_prog, mpirun_command().c_str(),
                v.empty() ? "not found" : v.c_str());
    std::printf("  mpirun -n N prog              mpi: ranks that share a machine map each other's heaps\n"
                "                                (GANNET_BYPASS=0 treats every other rank as off-node)\n");
  } else {
    std::printf("  mpirun -n N prog              refused: this build has no MPI transport\n");
  }
  std::printf("  prog                          one rank, no launcher\n");
}

// --mpi: runs the program under mpirun, passing the heap size and Gannet's settings on.
[[noreturn]] void run_mpi(const std::vector<std::string>& command, int ranks, const std::string& heap_text) {
  if (!built_with_mpi)
    die("--mpi: this Gannet was built without the MPI transport (configure with -DGANNET_MPI=ON and an MPI installed)");
  const std::string mpirun = mpirun_command();
  const std::string version = first_line_of(mpirun);
  if (version.empty()) die("--mpi: cannot run '" + mpirun + "' (install openmpi-bin, or set GANNET_MPIRUN)");
  const bool open_mpi = version.find("Open MPI") != std::string::npos || version.find("OpenRTE") != std::string::npos;
  if (!heap_text.empty()) ::setenv("GANNET_SHARED_HEAP_SIZE", heap_text.c_str(), 1);
  std::vector<std::string> args{mpirun, "-n", std::to_string(ranks)};
  if (open_mpi) {
    // Open MPI starts no more ranks than cores unless told; on one machine that is a
    // gannet-run job, which always may. Settings reach ranks on other machines with -x.
    if (ranks > static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN))) args.push_back("--oversubscribe");
    // Open MPI refuses root (most containers) with a page of text unless told; say so once.
    if (::geteuid() == 0 && !(std::getenv("OMPI_ALLOW_RUN_AS_ROOT") && std::getenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"))) {
      std::fprintf(stderr, "%s: running as root: passing --allow-run-as-root to %s\n", g_prog, mpirun.c_str());
      args.push_back("--allow-run-as-root");
    }
    for (const char* name :
         {"GANNET_SHARED_HEAP_SIZE", "UPCXX_SHARED_HEAP_SIZE", "UPCXX_SEGMENT_MB", "GANNET_BYPASS", "GANNET_BARRIER",
          "GANNET_MPI_NODE_RANKS", "GANNET_COUNT_TRAFFIC"})
      if (std::getenv(name)) {
        args.push_back("-x");
        args.push_back(name);
      }
    // One-sided MPI between machines without an RDMA network (TCP) needs osc/pt2pt (osc/rdma
    // wants RDMA), which Debian's openmpi-mca-params.conf turns off ("osc = ^ucx,pt2pt"):
    // allow it again, unless the user chose the one-sided components.
    if (!std::getenv("OMPI_MCA_osc")) {
      args.push_back("--mca");
      args.push_back("osc");
      args.push_back("^ucx");
    }
  }
  if (const char* extra = std::getenv("GANNET_MPIRUN_ARGS")) {
    std::string word;
    for (const char* c = extra;; ++c) {
      if (*c == ' ' || *c == '\0') {
        if (!word.empty()) args.push_back(word);
        word.clear();
        if (*c == '\0') break;
      } else {
        word += *c;
      }
    }
  }
  args.insert(args.end(), command.begin(), command.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  die("--mpi: cannot run '" + mpirun + "': " + std::strerror(errno));
}

struct options {
  int ranks = -1;
  std::string heap_text;
  bool verbose = false;
  bool mpi = false;
  bool show = false;  // print the command instead of running it (upcxx-run -show)
  std::vector<std::string> command;
};

options parse_args(int argc, char** argv) {
  options o;
  int i = 1;
  auto value = [&](const std::string& opt, const std::string& arg) -> std::string {
    auto eq = arg.find('=');
    if (eq != std::string::npos) return arg.substr(eq + 1);
    if (i + 1 >= argc) usage_error("option " + opt + " needs a value");
    return argv[++i];
  };
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.empty() || a[0] != '-') break;
    std::string name = a.substr(0, a.find('='));
    if (name == "-h" || name == "--help" || name == "-help") {
      print_help();
      std::exit(0);
    } else if (name == "-n" || name == "-np" || name == "--np" || name == "--ranks") {
      std::string v = value(name, a);
      if (!parse_rank_count(v, &o.ranks)) usage_error("-n needs a whole number of ranks, not '" + v + "'");
      if (o.ranks < 1) usage_error("-n must be at least 1");
      if (o.ranks > max_ranks) usage_error("-n " + v + " is more ranks than one machine runs (at most " + std::to_string(max_ranks) + ")");
    } else if (a.size() > 2 && a.compare(0, 2, "-n") == 0 && a[2] >= '0' && a[2] <= '9') {
      std::string v = a.substr(2);  // -n4, as upcxx-run accepts
      if (!parse_rank_count(v, &o.ranks) || o.ranks < 1)
        usage_error("-n needs a whole number of ranks, not '" + v + "'");
    } else if (name == "--shared-heap" || name == "-shared-heap") {
      o.heap_text = value(name, a);
    } else if (name == "-N" || name == "--nodes") {
      std::string v = value(name, a);
      int nodes = 0;
      if (!parse_rank_count(v, &nodes) || nodes < 1) usage_error("-N needs a whole number of nodes, not '" + v + "'");
      // As UPC++'s upcxx-run on its smp network: a warning, and the job runs here.
      if (nodes > 1 && !o.mpi)
        std::fprintf(stderr, "%s: -N %s: starting every rank on this machine (use --mpi with a hostfile for several "
                     "nodes)\n", g_prog, v.c_str());
    } else if (name == "--verbose" || (name.size() >= 2 && name.find_first_not_of('v', 1) == std::string::npos)) {
      o.verbose = true;  // -v, -vv, -vvv: upcxx-run's verbosity levels
    } else if (name == "-E") {
      // upcxx-run -E VAR1[,VAR2...]: export these variables to the ranks. Every rank on this
      // machine inherits the whole environment, so there is nothing more to do.
      value(name, a);
    } else if (name == "-ssh-servers" || name == "--ssh-servers") {
      value(name, a);  // hosts for GASNet's ssh spawner; ranks start on this machine
    } else if (name == "-localhost" || name == "--localhost" || name == "-backtrace" || name == "--backtrace") {
      // upcxx-run options that change nothing here: ranks run on this machine, and a
      // crashing rank's report comes from the launcher.
    } else if (name == "-show" || name == "--show") {
      o.show = true;
    } else if (name == "--mpi" || name == "-mpi") {
      o.mpi = true;
    } else if (name == "--version" || name == "-version") {
      std::printf("%s: Gannet %d.%d.%d, UPC++ %ld.%02ld.%ld API (specification 2020.10.0); transports: smp%s\n", g_prog,
                  GANNET_VERSION_MAJOR, GANNET_VERSION_MINOR, GANNET_VERSION_PATCH, UPCXX_VERSION / 10000,
                  UPCXX_VERSION / 100 % 100, UPCXX_VERSION % 100, built_with_mpi ? ", mpi" : "");
      std::exit(0);
    } else if (name == "--info" || name == "-info") {
      print_info();
      std::exit(0);
    } else {
      usage_error("unknown option '" + a + "'");
    }
  }
  for (; i < argc; ++i) o.command.push_back(argv[i]);
  if (o.ranks < 0) usage_error("the number of ranks is required (-n N)");
  if (o.command.empty()) usage_error("no program to run");
  return o;
}

// ---- supervision ---------------------------------------------------------------------

struct rank_proc {
  pid_t pid = -1;
  bool running = false;
};

struct job {
  std::vector<rank_proc> ranks;
  std::unordered_map<pid_t, int> by_pid;  // rank of each child
  void* region = nullptr;  // the launcher's view of the control area
  gannet::smp::job_layout layout{};
  int alive = 0;
  bool ending = false;       // teardown started
  timespec kill_deadline{};  // SIGKILL what is left after this
  int exit_status = 0;       // first failure wins
  bool failed = false;

  gannet::smp::job_header* header() const { return gannet::smp::header_of(region); }
  gannet::smp::rank_slot* slot(int r) const { return gannet::smp::slots_of(region, layout) + r; }

  void begin_teardown() {
    if (ending) return;
    ending = true;
    // Ranks spinning in a barrier see the flag and leave without waiting for SIGTERM.
    header()->abort.store(1, std::memory_order_relaxed);
    for (auto& p : ranks)
      if (p.running) ::kill(p.pid, SIGTERM);
    ::clock_gettime(CLOCK_MONOTONIC, &kill_deadline);
    kill_deadline.tv_sec += 1;
  }

  void fail(int status) {
    if (failed) return;
    failed = true;
    exit_status = status;
  }

  void on_exit(int r, int wstatus) {
    ranks[r].running = false;
    --alive;
    if (ending) return;  // its end was our doing, or a consequence of the first failure
    std::uint32_t state = slot(r)->state.load(std::memory_order_acquire);
    std::string why;
    int status = 0;
    if (WIFSIGNALED(wstatus)) {
      int sig = WTERMSIG(wstatus);
      why = std::string("killed by ") + signal_name(sig) + (WCOREDUMP(wstatus) ? " (core dumped)" : "");
      status = 128 + sig;
    } else if (WEXITSTATUS(wstatus) != 0) {
      why = "exited with status " + std::to_string(WEXITSTATUS(wstatus));
      status = WEXITSTATUS(wstatus);
    } else if (state == gannet::smp::rank_initialized) {
      why = "exited (status 0) without calling upcxx::finalize()";
      status = 1;
    } else {
      return;  // a clean exit
    }
    std::fprintf(stderr, "%s: rank %d: %s", g_prog, r, why.c_str());
    if (alive > 0) std::fprintf(stderr, "; ending the other %d rank%s", alive, alive == 1 ? "" : "s");
    std::fprintf(stderr, "\n");
    fail(status);
    begin_teardown();
  }
};

void reap(job& j) {
  for (;;) {
    int wstatus = 0;
    pid_t pid = ::waitpid(-1, &wstatus, WNOHANG);
    if (pid <= 0) return;
    // Look the pid up: a scan of every rank per exit would cost O(P^2) to reap a job.
    auto it = j.by_pid.find(pid);
    if (it != j.by_pid.end() && j.ranks[static_cast<std::size_t>(it->second)].running) j.on_exit(it->second, wstatus);
  }
}

// heap_from: where the heap size came from ("--shared-heap", "UPCXX_SHARED_HEAP_SIZE=4GB", or
// empty for the default), so that the fix names what the user actually set.
void check_resources(const options& o, std::uint64_t heap, const std::string& heap_from,
                     const gannet::smp::job_layout& l) {
  const std::string smaller =
      heap_from.empty() ? "a shared heap smaller than the default " + format_size(heap) + " (--shared-heap SIZE)"
      : heap_from == "--shared-heap" ? "a smaller --shared-heap"
                                     : "a smaller shared heap than " + heap_from + " (or --shared-heap SIZE)";
  std::uint64_t total_heap = heap * static_cast<std::uint64_t>(o.ranks);
  std::uint64_t phys = gannet::util::physical_memory_bytes();
  if (phys != 0 && total_heap > phys)
    die("shared heaps of " + std::to_string(o.ranks) + " x " + format_size(heap) + " = " +
        format_size(total_heap) + " exceed this machine's memory of " + format_size(phys) +
        "; use " + smaller + ", or a percentage (--shared-heap 50%)");
  struct statvfs vfs;
  if (::statvfs("/dev/shm", &vfs) == 0) {
    std::uint64_t avail = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    if (avail < l.region_bytes)
      die("/dev/shm has " + format_size(avail) + " free but " + std::to_string(o.ranks) + " ranks need " +
          format_size(l.region_bytes) + " (" + format_size(heap) + " of shared heap and " +
          format_size(l.control_bytes / static_cast<std::uint64_t>(o.ranks)) + " of message ring and control each)" +
          ". Fix: use " + smaller + ", or enlarge /dev/shm (as root: mount -o "
          "remount,size=" + std::to_string((l.region_bytes >> 30) + 1) +
          "G /dev/shm; in Docker: docker run --shm-size=" + std::to_string((l.region_bytes >> 30) + 1) + "g)");
  }
}

// Creates the job's shared-memory object and returns its descriptor, with no name left.
int create_region(const gannet::smp::job_layout& l) {
  unsigned char rnd[12];
  if (::getrandom(rnd, sizeof rnd, 0) != static_cast<ssize_t>(sizeof rnd)) die("getrandom failed");
  char name[64];
  int n = std::snprintf(name, sizeof name, "/gannet-%u-", static_cast<unsigned>(::getuid()));
  for (unsigned char b : rnd) n += std::snprintf(name + n, sizeof name - n, "%02x", b);
  int fd = ::shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) die(std::string("cannot create shared memory in /dev/shm: ") + std::strerror(errno));
  // No name survives this line: ranks inherit the descriptor instead.
  ::shm_unlink(name);
  if (::ftruncate(fd, static_cast<off_t>(l.region_bytes)) != 0)
    die(std::string("cannot size the job's shared memory: ") + std::strerror(errno));
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* slash = std::strrchr(argv[0], '/')) g_prog = slash + 1;
  else g_prog = argv[0];

  options o = parse_args(argc, argv);
  if (o.mpi) run_mpi(o.command, o.ranks, o.heap_text);

  std::string heap_text = o.heap_text;
  std::string heap_from;  // what the user set, for messages; empty: the default
  if (!heap_text.empty()) {
    heap_from = "--shared-heap";
  } else {
    const char* name = nullptr;
    heap_text = gannet::util::upcxx_heap_from_env(&name);  // UPC++'s reading: 256 is 256MB
    if (name) heap_from = name + ("=" + std::string(std::getenv(name)));
  }
  std::uint64_t heap = default_heap;
  if (!heap_text.empty()) {
    std::string why;
    auto spec = gannet::util::parse_size(heap_text, &why);
    if (!spec) usage_error("invalid shared heap size '" + heap_text + "' (" + heap_from + "): " + why);
    heap = gannet::util::resolve_size(*spec, o.ranks);
    if (heap < 64 * 1024)
      usage_error("shared heap '" + heap_text + "' (" + heap_from + ") is too small (at least 64KB per rank)");
  }
  std::string program = resolve_program(o.command[0]);
  if (o.show) {  // upcxx-run -show: what would run, and nothing else
    std::printf("%s -n %d --shared-heap %lluB", g_prog, o.ranks, static_cast<unsigned long long>(heap));
    std::printf(" %s", program.c_str());
    for (std::size_t k = 1; k < o.command.size(); ++k) std::printf(" %s", o.command[k].c_str());
    std::printf("\n");
    return 0;
  }

  auto layout = gannet::smp::job_layout::compute(o.ranks, heap);
  check_resources(o, heap, heap_from, layout);

  int fd = create_region(layout);
  void* region = ::mmap(nullptr, layout.control_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (region == MAP_FAILED) die(std::string("cannot map the job's shared memory: ") + std::strerror(errno));
  auto* h = ::new (region) gannet::smp::job_header{};
  h->magic = gannet::smp::job_magic;
  h->version = gannet::smp::job_version;
  h->rank_n = o.ranks;
  h->region_bytes = layout.region_bytes;
  h->control_bytes = layout.control_bytes;
  h->seg_stride = layout.seg_stride;
  h->heap_bytes = heap;
  h->launcher_pid = ::getpid();

  if (o.verbose)
    std::fprintf(stderr, "%s: %d ranks of %s, shared heap %s per rank, region %s\n", g_prog, o.ranks,
                 program.c_str(), format_size(heap).c_str(), format_size(layout.region_bytes).c_str());

  // Signals are taken synchronously with sigtimedwait, so blocking them here also closes
  // the window between fork and the handler set-up.
  sigset_t watched;
  sigemptyset(&watched);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&watched, s);
  sigset_t old_mask;
  ::sigprocmask(SIG_BLOCK, &watched, &old_mask);

  job j;
  j.region = region;
  j.layout = layout;
  j.ranks.resize(static_cast<std::size_t>(o.ranks));

  std::vector<char*> args;
  for (auto& a : o.command) args.push_back(a.data());
  args.push_back(nullptr);
  const pid_t launcher = ::getpid();
  std::fflush(nullptr);

  for (int r = 0; r < o.ranks; ++r) {
    pid_t pid = ::fork();
    if (pid < 0) {
      std::fprintf(stderr, "%s: cannot start rank %d: %s\n", g_prog, r, std::strerror(errno));
      j.fail(1);
      j.begin_teardown();
      break;
    }
    if (pid == 0) {
      // Die with the launcher, even if it is SIGKILLed; re-check in case it already died.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != launcher) ::_exit(1);
      ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
      int flags = ::fcntl(fd, F_GETFD);
      ::fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
      char buf[32];
      std::snprintf(buf, sizeof buf, "%d", fd);
      ::setenv(gannet::smp::env_job_fd, buf, 1);
      std::snprintf(buf, sizeof buf, "%d", r);
      ::setenv(gannet::smp::env_rank, buf, 1);
      std::snprintf(buf, sizeof buf, "%d", o.ranks);
      ::setenv(gannet::smp::env_rank_n, buf, 1);
      ::execv(program.c_str(), args.data());
      std::fprintf(stderr, "%s: rank %d: cannot execute %s: %s\n", g_prog, r, program.c_str(),
                   std::strerror(errno));
      ::_exit(127);
    }
    j.ranks[r].pid = pid;
    j.by_pid.emplace(pid, r);
    j.ranks[r].running = true;
    ++j.alive;
  }
  ::close(fd);

  while (j.alive > 0) {
    timespec tick{0, 100 * 1000 * 1000};
    siginfo_t info;
    int sig = ::sigtimedwait(&watched, &info, &tick);
    if (sig == SIGCHLD || sig < 0) {
      reap(j);
    } else if (sig > 0) {
      if (!j.ending) {
        std::fprintf(stderr, "%s: received %s; ending %d rank%s\n", g_prog, signal_name(sig), j.alive,
                     j.alive == 1 ? "" : "s");
        j.fail(128 + sig);
      }
      j.begin_teardown();
    }
    if (j.ending && j.alive > 0) {
      timespec now;
      ::clock_gettime(CLOCK_MONOTONIC, &now);
      if (now.tv_sec > j.kill_deadline.tv_sec ||
          (now.tv_sec == j.kill_deadline.tv_sec && now.tv_nsec >= j.kill_deadline.tv_nsec)) {
        for (auto& p : j.ranks)
          if (p.running) ::kill(p.pid, SIGKILL);
      }
    }
  }
  ::munmap(region, layout.control_bytes);
  return j.exit_status;
}
