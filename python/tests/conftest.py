# SPDX-License-Identifier: Apache-2.0
"""Where the tests find the build tree, the sources and the corpus."""

import os
import subprocess

import pytest

SOURCE_DIR = os.environ.get(
    "HOPT_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BUILD_DIR = os.environ.get("HOPT_BUILD_DIR", os.path.join(SOURCE_DIR, "build"))
HOPT = os.path.join(BUILD_DIR, "tools", "hopt")
HLO_RUN = os.path.join(BUILD_DIR, "tools", "hlo-run")
TEST_PLUGINS = os.path.join(BUILD_DIR, "test", "plugins")
NEURON_PLUGINS = ["libneuron_collectives.so", "libneuron_decompose.so", "libneuron_markers.so",
                  "libneuron_partition.so"]
EXAMPLES = sorted(os.path.join(SOURCE_DIR, "examples", f)
                  for f in os.listdir(os.path.join(SOURCE_DIR, "examples")) if f.endswith(".hlo"))


def pytest_addoption(parser):
    parser.addoption("--corpus", default=None,
                     help="the XLA conformance corpus (default: $HOPT_CORPUS, else where "
                          "scripts/test.sh looks)")


@pytest.fixture(scope="session")
def corpus(request):
    """The corpus directory, as scripts/test.sh finds it; skipped without it."""
    path = (request.config.getoption("--corpus") or os.environ.get("HOPT_CORPUS")
            or os.path.join(SOURCE_DIR, "..", "shared", "corpus", "xla"))
    if not os.path.isdir(path):
        pytest.skip("conformance corpus not found at %s (set HOPT_CORPUS or --corpus)"
                    % os.path.realpath(path))
    return os.path.realpath(path)


def tool(argv, check=True):
    """Runs one of hopt's binaries; (exit status, stdout, stderr)."""
    done = subprocess.run(argv, capture_output=True)
    if check and done.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (" ".join(argv), done.returncode,
                                                     done.stderr.decode(errors="replace")))
    return done.returncode, done.stdout, done.stderr.decode(errors="replace")
