"""pytest without pytest-xdist: the `-n` of pyproject's addopts accepted, and the tests run in one process.

pyproject's addopts run the tests in a process per core with pytest-xdist, which the `test`
extra installs. A pytest without that plugin (installed apart from the extra, or run with
`-p no:xdist`) would otherwise stop at once with "unrecognized arguments: -n", before any test.
"""

from __future__ import annotations


def pytest_addoption(parser, pluginmanager):
    if pluginmanager.has_plugin("xdist"):
        return
    group = parser.getgroup("pitwall", "without pytest-xdist")
    # _addoption: a lowercase short option is reserved to plugins; xdist declares its -n so too
    group._addoption("-n", "--numprocesses", dest="numprocesses", default=None,
                    help="ignored: pytest-xdist is not installed, so the tests run in one process")
    group._addoption("--maxprocesses", dest="maxprocesses", default=None, help="ignored, as -n is")


def pytest_report_header(config):
    if not config.pluginmanager.has_plugin("xdist"):
        return "pytest-xdist is not installed (pip install -e '.[test]'): the tests run in one process"
    return None
