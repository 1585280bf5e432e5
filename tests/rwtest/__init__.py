"""Helpers shared by every test directory (importable as ``rwtest`` once tests/conftest.py ran).

* :mod:`.ci` -- prerequisites: a missing tool or ``../shared`` is a skip on a developer's machine
  and a failure naming what is missing under ``CI=true``;
* :mod:`.guard` -- the host guard: a test that would run ``rocm-wizard --yes``/``resume``/
  ``rollback`` or a generated plan script outside a root fails;
* :mod:`.sandbox` -- the read-only root such commands run in instead (bwrap: the host's ``/``
  mounted read-only, no network, only the test's own directories writable), and recorders that
  stand in for apt, dpkg, usermod, docker, ldconfig... in a fake root.
"""
