# Must-not-compile check for language modes older than C++17: each header in HEADERS
# (relative to INCLUDE), included alone, must fail with CXX -std=STD, and the first error
# the compiler prints must be Gannet's one-line explanation, not something from deep inside
# a header.
string(REPLACE "," ";" HEADERS "${HEADERS}")
string(REPLACE "," ";" FLAGS "${FLAGS}")
foreach(h ${HEADERS})
  set(tu "${WORK}/too_old_${STD}.cpp")
  file(WRITE ${tu} "#include <${h}>\n")
  execute_process(COMMAND ${CXX} -std=${STD} -fsyntax-only -I${INCLUDE} ${tu}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "<${h}> compiled with -std=${STD}, but it must not")
  endif()
  string(REGEX MATCH "[^\n]*error[^\n]*" first "${err}")
  if(NOT first MATCHES "Gannet \\(UPC\\+\\+\\) needs C\\+\\+17 or later: compile with -std=c\\+\\+17 or newer")
    message(FATAL_ERROR "<${h}> with -std=${STD}: the first error is not the C++17 message:\n${first}\n\n${err}")
  endif()
endforeach()
list(LENGTH HEADERS n)
message(STATUS "${n} headers refuse -std=${STD} with the C++17 message first")
