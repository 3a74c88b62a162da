#!/usr/bin/env python3
"""The README's install line (Requirements) as a fresh machine runs it, with stand-ins for id,
sudo and apt-get: as root it must not use sudo (a fresh container has none), as a user it
must, and without a terminal nothing may ask (apt-get install -y, debconf noninteractive).

    python3 tests/readme_install_test.py        (ctest: docs.install_line, label cpu)
"""
import os
import re
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
# What the Requirements name; configuring and the tests expect these.
PACKAGES = ["cmake", "g++", "libcli11-dev", "nlohmann-json3-dev", "libgtest-dev",
            "libbenchmark-dev", "python3", "python3-matplotlib", "clang-format"]


def install_line():
    """The first sh block of the README's Requirements section."""
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    section = readme[readme.index("## Requirements\n"):]
    return re.search(r"```sh\n(.*?)```", section, re.S)[1]


def stand_in(folder, name, body):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)


def run_as(uid):
    """The commands the install line ran, as the user with `uid`, without a terminal."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "log")
        stand_in(tmp, "id", f'[ "$1" = -u ] && echo {uid}\n')
        stand_in(tmp, "apt-get", f'echo "apt-get DEBIAN_FRONTEND=$DEBIAN_FRONTEND $*" >> {log}\n')
        if uid != 0:  # root has no sudo in a fresh container
            stand_in(tmp, "sudo", f'echo sudo >> {log}\nexec "$@"\n')
        env = dict(os.environ, PATH=tmp + os.pathsep + os.environ["PATH"])
        env.pop("DEBIAN_FRONTEND", None)
        p = subprocess.run(["bash", "-c", "set -e\n" + install_line()], env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
        with open(log) as f:
            return p, f.read().splitlines()


class InstallLine(unittest.TestCase):
    def check_install(self, line):
        words = line.split()
        self.assertEqual(words[:2], ["apt-get", "DEBIAN_FRONTEND=noninteractive"], line)
        self.assertIn("install", words)
        self.assertIn("-y", words)  # without a terminal apt-get cannot ask
        for package in PACKAGES:
            self.assertIn(package, words)

    def test_as_root_without_sudo(self):
        p, ran = run_as(0)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("sudo", ran)
        self.assertEqual(ran[0].split()[-1], "update")  # a fresh machine has no package lists
        self.check_install(ran[1])

    def test_as_a_user_with_sudo(self):
        p, ran = run_as(1000)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([line for line in ran if line == "sudo"], ["sudo", "sudo"])
        self.assertEqual(ran[1].split()[-1], "update")
        self.check_install(ran[3])


if __name__ == "__main__":
    unittest.main(verbosity=2)
