# Docs in step with the code and the data (label `cpu`):
#  - docs.diffs_in_step: every docs/NN_name.md exists, embeds its rung's diff between
#    <!-- diff:begin --> / <!-- diff:end --> markers, and the embedded hunks still match the
#    kernel files (scripts/docs-diffs regenerates them; this runs its --check);
#  - docs.measured_tables: every rung's doc has its measured results between
#    <!-- measured:begin results/<gpu>/bench.json --> / <!-- measured:end --> markers, as
#    the committed JSON has them (scripts/docs-tables regenerates them; this runs its --check);
#  - docs.tables_script: scripts/docs-tables on a fixture JSON;
#  - docs.precision_tables: the precision comparisons (README, docs 12-14) between
#    <!-- precision-table:begin results/<gpu>/precision.json --> markers, as the committed
#    `sgemm --accuracy` JSON has them (scripts/precision-table --check);
#  - docs.facts: what the README and docs/00 state about the code and the data (the rungs of
#    each precision class and those that need sm_90a, from kernels/ladder.inc and the kernel
#    files; what a copied kernel needs; which docs cite an H100; what the committed JSONs'
#    contexts say) between <!-- fact:NAME --> markers, as they are now (scripts/docs-facts
#    --check);
#  - docs.inputs_tables: rung 16's speed per input distribution (README, doc 16) between
#    <!-- inputs-table:begin results/<gpu>/rung16_inputs.json --> markers, as the committed
#    bench runs have it (scripts/inputs-table --check);
#  - docs.install_line: the README's install line works as root (no sudo) and as a user
#    (sudo), without a terminal (tests/readme_install_test.py, with stand-ins for apt-get).
#  - docs.best_predictions_<gpu>: doc 18's predictions beside outcomes for each GPU measured,
#    as that GPU's table compiled into sgemm_best_rates and its committed measurements give
#    them (scripts/autotune --best --predictions --check --results results/<gpu>).
#  - docs.pictures: the pictures of docs 00-18 (docs/pictures/*.svg) are what scripts/pictures
#    draws from the kernels' and the runner's constants now (scripts/pictures --check);
#  - docs.pictures_planted: a changed constant, a picture edited by hand or missing makes that
#    check fail and name the picture and the constant; a comment does not (tests/pictures_test.py);
#  - docs.template: docs 00-18 follow the lesson template (the seven headings in order, the
#    try-it box, a picture of their own, a lesson of at most 300 lines, 400 from doc 12 on, no
#    issue numbers or sessions; scripts/docs-lint template);
#  - docs.numbers: every % and × in the lessons of docs 00-18 is in a committed results JSON
#    (scripts/docs-lint numbers);
#  - docs.comment_share: scripts/diff N (from the rung N grew from) changes at most 600 lines,
#    at most a quarter of them comments, for every rung (scripts/docs-lint comments prints each);
#  - docs.parents: the parent column of kernels/ladder.inc is sane (an earlier rung; a change
#    of precision class only where the kernel file says so), scripts/diff N diffs from it, the
#    README's ladder table and the headers of docs 12-18 name it; prints each rung's changed
#    lines and comment share of scripts/diff N (tests/ladder_parents_test.py);
#  - docs.checks_script: docs-facts and docs-lint fail on planted errors in a fixture doc (a
#    register split, an instruction claim, a number in no committed JSON, a missing heading)
#    and pass it without them (tests/docs_checks_test.py).
set(_docs_tests docs.diffs_in_step docs.measured_tables docs.tables_script
    docs.precision_tables docs.inputs_tables docs.facts docs.install_line
    docs.best_predictions_h200 docs.best_predictions_h100
    docs.template docs.numbers docs.comment_share docs.checks_script docs.pictures
    docs.pictures_planted docs.parents)
find_package(Python3 3.8 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME docs.diffs_in_step
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/docs-diffs --check)
  add_test(NAME docs.measured_tables
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/docs-tables --check)
  add_test(NAME docs.precision_tables
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/precision-table --check)
  add_test(NAME docs.inputs_tables
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/inputs-table --check)
  add_test(NAME docs.facts
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/docs-facts --check)
  add_test(NAME docs.tables_script
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs_tables_test.py)
  foreach(gpu IN ITEMS h200 h100)  # doc 18's block of each GPU's table
    add_test(NAME docs.best_predictions_${gpu}
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/autotune --best --predictions
              --check --results results/${gpu} --build $<TARGET_FILE_DIR:sgemm_best_rates>)
  endforeach()
  foreach(check IN ITEMS template numbers)
    add_test(NAME docs.${check}
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/docs-lint ${check})
  endforeach()
  add_test(NAME docs.comment_share
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/docs-lint comments)
  add_test(NAME docs.checks_script
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs_checks_test.py)
  add_test(NAME docs.install_line
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/readme_install_test.py)
  add_test(NAME docs.pictures
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/pictures --check)
  add_test(NAME docs.pictures_planted
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/pictures_test.py)
  add_test(NAME docs.parents
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/ladder_parents_test.py)
else()  # fail rather than vanish: CI must run these
  foreach(name IN LISTS _docs_tests)
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo
             "FAILED: the docs tests need python3 (3.8 or newer), which cmake did not find")
    set_tests_properties(${name} PROPERTIES FAIL_REGULAR_EXPRESSION "FAILED")
  endforeach()
endif()
set_tests_properties(${_docs_tests} PROPERTIES LABELS "cpu;docs" TIMEOUT 60)
