"""pytest hooks for tests/server: prints the final "N passed, N failed" line the runner reports."""


def pytest_terminal_summary(terminalreporter):
    stats = terminalreporter.stats
    passed = len(stats.get("passed", []))
    failed = len(stats.get("failed", [])) + len(stats.get("error", []))
    skipped = len(stats.get("skipped", []))
    terminalreporter.write_line(f"server tests: {passed} passed, {failed} failed, {skipped} skipped")
