# tests/grade.sh
