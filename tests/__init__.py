"""The test suite (a package, so that ``tests.conftest`` is ours: some solver packages
install a top-level ``tests`` package of their own)."""
