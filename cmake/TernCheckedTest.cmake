# Tests that run a command and judge its output, through tests/checked_run.sh.
#
# tern_checked_test(NAME name COMMAND command [args...]
#                   [EXPECT ere...]            lines the output must hold (extended
#                                              regular expressions, each matched
#                                              against single lines)
#                   [EXIT_CODE code|nonzero]   the exit code it must end with: 0 by
#                                              default; nonzero = any failure but
#                                              124 (a launcher's time limit)
#                   [HIDE ere]                 lines checked but not shown
#                   [TIMEOUT seconds]          60 by default; for Release: sanitizer
#                                              builds multiply it by TERN_TEST_TIME_SCALE
#                   [LABELS label...]
#                   [ENVIRONMENT VAR=value...]
#                   [PROPERTIES property value...])  more ctest properties
#
# The test fails on an unexpected exit code, a missing EXPECT line, a FAIL or
# FAILED word in the output, or any sanitizer report; ctest's own
# PASS_REGULAR_EXPRESSION would ignore the exit code, so use this instead.
# COMMAND takes generator expressions ($<TARGET_FILE:ternrun>). Example:
#   tern_checked_test(NAME mpi_env_ternrun_2
#     COMMAND $<TARGET_FILE:ternrun> -n 2 $<TARGET_FILE:mpi_env>
#     EXPECT "mpi_env: PASS on 2 ranks" TIMEOUT 120)
set(TERN_CHECKED_RUN ${CMAKE_CURRENT_LIST_DIR}/../tests/checked_run.sh)

function(tern_checked_test)
  cmake_parse_arguments(ARG "" "NAME;EXIT_CODE;HIDE;TIMEOUT" "COMMAND;EXPECT;LABELS;ENVIRONMENT;PROPERTIES" ${ARGN})
  if(NOT ARG_NAME OR NOT ARG_COMMAND)
    message(FATAL_ERROR "tern_checked_test: NAME and COMMAND are required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tern_checked_test(${ARG_NAME}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 60)
  endif()
  set(checks)
  foreach(expect IN LISTS ARG_EXPECT)
    list(APPEND checks --expect "${expect}")
  endforeach()
  if(DEFINED ARG_EXIT_CODE)
    list(APPEND checks --exit-code ${ARG_EXIT_CODE})
  endif()
  if(ARG_HIDE)
    list(APPEND checks --hide "${ARG_HIDE}")
  endif()
  add_test(NAME ${ARG_NAME} COMMAND bash ${TERN_CHECKED_RUN} ${checks} -- ${ARG_COMMAND})
  math(EXPR timeout "${ARG_TIMEOUT} * ${TERN_TEST_TIME_SCALE}")
  set_tests_properties(${ARG_NAME} PROPERTIES TIMEOUT ${timeout})
  if(ARG_LABELS)
    set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
  if(ARG_ENVIRONMENT)
    set_tests_properties(${ARG_NAME} PROPERTIES ENVIRONMENT "${ARG_ENVIRONMENT}")
  endif()
  if(ARG_PROPERTIES)
    set_tests_properties(${ARG_NAME} PROPERTIES ${ARG_PROPERTIES})
  endif()
endfunction()

# tern_job_test(NAME name COMMAND ternrun-options... program [args...]
#               EXPECT ere [TIMEOUT seconds] [LABELS label...]): a job under
# ternrun, registered twice so that the suite runs in two progress modes:
# NAME as the options say, and NAME/progress_thread-blocking with a progress
# thread that sleeps between events (an option setting TERN_PROGRESS wins).
function(tern_job_test)
  cmake_parse_arguments(ARG "" "NAME;EXPECT;TIMEOUT" "COMMAND;LABELS" ${ARGN})
  foreach(progress caller thread-blocking)
    set(test_name ${ARG_NAME})
    if(NOT progress STREQUAL caller)
      set(test_name ${ARG_NAME}/progress_${progress})
    endif()
    tern_checked_test(NAME ${test_name}
      COMMAND $<TARGET_FILE:ternrun> -x TERN_PROGRESS=${progress} ${ARG_COMMAND}
      EXPECT "${ARG_EXPECT}" TIMEOUT ${ARG_TIMEOUT} LABELS ${ARG_LABELS})
  endforeach()
endfunction()
