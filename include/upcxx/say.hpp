// upcxx::say(): rank-prefixed output, a utility of the UPC++ reference implementation beyond
// the specification that many UPC++ programs use:
//   upcxx::say() << "value " << x;   // prints "[3] value 42\n" as one write on destruction
// Output of one say() is never interleaved with another's.
#pragma once

#include "upcxx/version.hpp"

#include <sstream>
#include <string>

#include "upcxx/init.hpp"

namespace upcxx {

namespace detail {
void say_emit(const std::string& line, bool to_stderr);
}

class say {
 public:
  explicit say(const char* prefix = nullptr) {
    if (prefix) buf_ << prefix;
    else buf_ << '[' << (detail::g_state.init_count > 0 ? detail::g_state.rank_me : 0) << "] ";
  }
  say(const say&) = delete;
  say& operator=(const say&) = delete;
  ~say() { detail::say_emit(buf_.str(), false); }

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
  std::ostringstream buf_;
};

}  // namespace upcxx
