# tests/runner.py
