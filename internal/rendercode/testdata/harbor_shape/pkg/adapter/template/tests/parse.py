# tests/parse.py
