// upcxx::experimental::say: rank-prefixed output, a utility of the UPC++ reference
// implementation beyond the specification that many UPC++ programs use (in upcxx:: until
// UPC++ 2021.3 moved it into experimental; both spellings work here):
//   upcxx::say() << "value " << x;          // prints "[3] value 42\n" as one write when destroyed
//   upcxx::experimental::say(std::cerr, "rank %d: ") << "late";
// In the prefix, %d stands for the rank. Output of one say is never interleaved with another's.
#pragma once

#include "upcxx/version.hpp"

#include <iostream>
#include <sstream>
#include <string>

#include "upcxx/init.hpp"

namespace upcxx {

namespace detail {
void say_emit(const std::string& line, bool to_stderr);
void say_emit_to(std::ostream& out, const std::string& line);
}  // namespace detail

namespace experimental {

class say {
 public:
  explicit say(std::ostream& output, const char* prefix = "[%d] ") : out_(output) { start(prefix); }
  explicit say(const char* prefix = "[%d] ") : out_(std::cout) { start(prefix); }
  say(const say&) = delete;
  say& operator=(const say&) = delete;
  ~say() {
    if (&out_ == &std::cout) detail::say_emit(buf_.str(), false);
    else if (&out_ == &std::cerr) detail::say_emit(buf_.str(), true);
    else detail::say_emit_to(out_, buf_.str());
  }

  template <typename T>
  say& operator<<(const T& v) {
    buf_ << v;
    return *this;
  }
  say& operator<<(std::ostream& (*manip)(std::ostream&)) {
    manip(buf_);
    return *this;
  }

 private:
  void start(const char* prefix) {
    if (!prefix) prefix = "[%d] ";  // as Gannet's say(nullptr) always did
    const int rank = detail::g_state.init_count > 0 ? detail::g_state.rank_me : 0;
    for (const char* p = prefix; *p; ++p) {
      if (p[0] == '%' && p[1] == 'd') {
        buf_ << rank;
        ++p;
      } else {
        buf_ << *p;
      }
    }
  }

  std::ostream& out_;
  std::ostringstream buf_;
};

}  // namespace experimental

using experimental::say;

}  // namespace upcxx
