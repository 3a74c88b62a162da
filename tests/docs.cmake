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
#  - docs.pictures: the pictures of docs 00-19 (docs/pictures/*.svg) are what scripts/pictures
#    draws from the kernels' and the runner's constants now (scripts/pictures --check);
#  - docs.pictures_planted: a changed constant, a picture edited by hand or missing makes that
#    check fail and name the picture and the constant; a comment does not (tests/pictures_test.py);
#  - docs.pictures_legible: every picture reads on a repository page at 1:1: no SVG text under
#    11 px and nothing outside the image (docs/pictures and every SVG the README or docs
#    embed), and the scripts that draw the embedded PNGs use fonts of 11 px or more at their
#    DPI; planted pictures and scripts show both checks fail (tests/pictures_legible_test.py);
#  - docs.template: docs 00-19 follow the lesson template (the seven headings in order, the
#    try-it box, a picture of their own, a lesson of at most 300 lines; from doc 10 on no code
#    block over 40 lines and no diff block over 60; no issue numbers or sessions;
#    scripts/docs-lint template);
#  - docs.numbers: every % and × in the lessons of docs 00-19 and in the README is in a
#    committed results JSON (scripts/docs-lint numbers);
#  - docs.comment_share: a report, not a gate: every rung's changed lines of scripts/diff N
#    (from the rung N grew from) and their comment share, marked where past the reading bar
#    (600 lines, a quarter comments); fails only when a rung's diff cannot be made
#    (scripts/docs-lint comments);
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
    docs.pictures_planted docs.pictures_legible docs.parents)
set(_docs "the docs tests")
set(_scripts ${PROJECT_SOURCE_DIR}/scripts)
sgemm_python_test(docs.diffs_in_step "${_docs}" ${_scripts}/docs-diffs --check)
sgemm_python_test(docs.measured_tables "${_docs}" ${_scripts}/docs-tables --check)
sgemm_python_test(docs.precision_tables "${_docs}" ${_scripts}/precision-table --check)
sgemm_python_test(docs.inputs_tables "${_docs}" ${_scripts}/inputs-table --check)
sgemm_python_test(docs.facts "${_docs}" ${_scripts}/docs-facts --check)
sgemm_python_test(docs.tables_script "${_docs}" ${CMAKE_CURRENT_SOURCE_DIR}/docs_tables_test.py)
foreach(gpu IN ITEMS h200 h100)  # doc 18's block of each GPU's table
  sgemm_python_test(docs.best_predictions_${gpu} "${_docs}" ${_scripts}/autotune --best
                    --predictions --check --results results/${gpu}
                    --build $<TARGET_FILE_DIR:sgemm_best_rates>)
endforeach()
foreach(check IN ITEMS template numbers)
  sgemm_python_test(docs.${check} "${_docs}" ${_scripts}/docs-lint ${check})
endforeach()
sgemm_python_test(docs.comment_share "${_docs}" ${_scripts}/docs-lint comments)
sgemm_python_test(docs.checks_script "${_docs}" ${CMAKE_CURRENT_SOURCE_DIR}/docs_checks_test.py)
sgemm_python_test(docs.install_line "${_docs}" ${CMAKE_CURRENT_SOURCE_DIR}/readme_install_test.py)
sgemm_python_test(docs.pictures "${_docs}" ${_scripts}/pictures --check)
sgemm_python_test(docs.pictures_planted "${_docs}" ${CMAKE_CURRENT_SOURCE_DIR}/pictures_test.py)
sgemm_python_test(docs.pictures_legible "${_docs}"
                  ${CMAKE_CURRENT_SOURCE_DIR}/pictures_legible_test.py)
sgemm_python_test(docs.parents "${_docs}" ${CMAKE_CURRENT_SOURCE_DIR}/ladder_parents_test.py)
set_tests_properties(${_docs_tests} PROPERTIES LABELS "cpu;docs" TIMEOUT 60)
