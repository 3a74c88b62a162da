"""Each GPU test of one ctest run and its outcome, from ctest's JUnit report (ctest
--output-junit): the text of results/<gpu>/tests.txt, which scripts/gpu-session writes.

    text = ctest_outcomes.report(gpu_tests, junit_xml_text, "NVIDIA H100 80GB HBM3")

A GPU test is one labelled `gpu` (ctest -N -L gpu lists them); one the report does not have
is "not run", so a test left out by a filter or a crash of ctest cannot pass unseen.
"""
import re
import xml.etree.ElementTree as ET

import ladder

# ctest -N prints "  Test  #12: name"
_LISTED = re.compile(r"^\s*Test\s+#\d+: (\S+)\s*$")


def listed_tests(ctest_n_output):
    """The test names in the output of `ctest -N`."""
    return [m[1] for m in map(_LISTED.match, ctest_n_output.splitlines()) if m]


def outcomes(junit_xml):
    """{test name: "pass" | "fail" | "skip"} from ctest's JUnit report, and its timestamp."""
    try:
        suite = ET.fromstring(junit_xml)
    except ET.ParseError as e:
        raise ladder.Error(f"the JUnit report is not XML: {e}") from None
    found = {}
    for case in suite.iter("testcase"):
        if case.find("failure") is not None or case.get("status") == "fail":
            found[case.get("name")] = "fail"
        elif case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
            found[case.get("name")] = "skip"
        else:
            found[case.get("name")] = "pass"
    return found, suite.get("timestamp", "")


def report(gpu_tests, junit_xml, gpu=""):
    """The lines of tests.txt: what ran where, the counts, then one line per GPU test."""
    found, when = outcomes(junit_xml)
    rows = [(found.get(name, "not run"), name) for name in gpu_tests]
    counts = {kind: sum(1 for outcome, _ in rows if outcome == kind)
              for kind in ("pass", "fail", "skip", "not run")}
    lines = [f"# The GPU tests (ctest label gpu) of the last GPU run, {when}"
             + (f", on {gpu}" if gpu else "") + "; scripts/gpu-session writes this file.",
             "# " + ", ".join(f"{kind} {n}" for kind, n in counts.items())]
    lines += [f"{outcome:<7}  {name}" for outcome, name in rows]
    return "\n".join(lines) + "\n"
