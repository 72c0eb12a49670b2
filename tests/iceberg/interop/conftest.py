"""pytest setup of tests/iceberg/interop: makes canon, sqe_cli and interop_env importable."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
