"""What the evidence scripts (scripts/sass, scripts/profile, scripts/sanitize, scripts/plot)
share, one concern a module. The scripts put scripts/ on sys.path, so `ladder` (the rung
list) and this package import as top-level names:

    cli           argparse set-up: prog, description and epilog from the docstring, --binary
    generated     rewriting text generated from committed data, or showing how it differs
    plots         the data scripts/plot's pictures show, carried in the PNGs, and its --check
    pythons       finding a Python that can import a module (matplotlib for scripts/plot)
    tools         finding cuobjdump, ncu, compute-sanitizer; running one; the --binary check
    sass          cuobjdump -sass / -res-usage text -> instructions, resources, counts, loops
    kernel_names  demangled kernel names -> rung, template arguments, table labels
    sass_report   the tables, listings and JSON that scripts/sass prints
    expectations  the language of tests/sass_expectations.json, and the PASS/FAIL report
    ncu           the Nsight Compute metrics we read, ncu's CSV export, the summary values
    ncu_report    the summary as text
    code_facts    facts a rung's constants decide (register split, FFMA per pass, SASS rules)
    data_facts    facts of the committed measurements (scripts/docs-facts)
    doc_lint      the lesson template, the numbers check, the comment share (scripts/docs-lint)
    measured_numbers  the percentages and ratios the committed JSONs hold, per rung
    diff_ideas    rung 8's ideas table: which changes of scripts/diff 8 belong to which idea
    autotune_search, autotune_best  scripts/autotune's tile search and rung 18's table
    best_table    the table of measured rates rung 18 compiles in
    ctest_outcomes  each GPU test of a ctest run and its outcome (scripts/test-outcomes)
    pictures_src  the constants a picture is drawn from, read from the kernels and runner
    pictures_svg  deterministic plain SVG
    pictures_early, pictures_tiles, pictures_warps, pictures_hopper  the drawings of docs 00-11
"""
