# Writes one man page with help2man (cmake -P): the program's --help and --version, plus,
# for dl2, the --help of every sub-command in a COMMANDS section.
#   -DHELP2MAN=... -DEXE=... -DNAME=... -DSUMMARY=... -DOUT=... [-DSUBCOMMANDS="a;b c;..."]
set(include_file "${OUT}.h2m")
file(WRITE "${include_file}" "")
if(SUBCOMMANDS)
  file(APPEND "${include_file}" "[COMMANDS]\n")
  foreach(sub IN LISTS SUBCOMMANDS)
    string(REPLACE " " ";" sub_args "${sub}")
    execute_process(COMMAND "${EXE}" ${sub_args} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${EXE} ${sub} --help failed (${rc})")
    endif()
    # roff: escape backslashes, protect lines starting with a dot or an apostrophe.
    string(REPLACE "\\" "\\e" text "${text}")
    string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
    file(APPEND "${include_file}" ".SS ${NAME} ${sub}\n.nf\n${text}\n.fi\n")
  endforeach()
endif()
file(APPEND "${include_file}" "[SEE ALSO]\n")
file(APPEND "${include_file}" ".BR dl2 (1),\n.BR dl2-train (1),\n.BR dl2-ops (1),\n.BR dl2-console (1),\n.BR dl2-agent (1)\n")
execute_process(
  COMMAND "${HELP2MAN}" --no-info --no-discard-stderr --section=1 "--name=${SUMMARY}"
          "--include=${include_file}" "--output=${OUT}" "${EXE}"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man ${EXE} failed (${rc})")
endif()
