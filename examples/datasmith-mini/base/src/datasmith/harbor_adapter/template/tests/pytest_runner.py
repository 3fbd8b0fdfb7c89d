# placeholder: replaced by the pytest-runner helper
import sys

print("pytest_runner.py placeholder: no tests run", file=sys.stderr)
sys.exit(2)
