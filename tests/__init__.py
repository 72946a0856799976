"""perfwalk's tests (a package, so that shared fixtures import as ``tests.fixtures``)."""
