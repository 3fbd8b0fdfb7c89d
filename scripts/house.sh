#!/usr/bin/env bash
# Draws the house: every package of the module with its lines of code, its
# lines of tests and the packages of this module it imports, from `go list`.
# Use it before and after a restructuring to show what moved:
#   bash scripts/house.sh > before.txt; ...; bash scripts/house.sh | diff before.txt -
set -euo pipefail
cd "$(dirname "$0")/.."
mod=$(go list -m)
lines() { # folder, files...: the lines of the files in the folder
  local dir=$1; shift
  local n=0 f
  for f in "$@"; do n=$((n + $(wc -l <"$dir/$f"))); done
  echo "$n"
}
printf '%-34s %6s %6s  %s\n' package code tests imports
total=0 ttotal=0
while IFS='|' read -r pkg dir files tests xtests imports; do
  # shellcheck disable=SC2086 # the file lists are space separated on purpose
  code=$(lines "$dir" $files)
  # shellcheck disable=SC2086
  test=$(lines "$dir" $tests $xtests)
  own=""
  for i in $imports; do
    case $i in "$mod"/*) own+=" ${i#"$mod"/}" ;; esac
  done
  printf '%-34s %6d %6d %s\n' "${pkg/#$mod/.}" "$code" "$test" "$own"
  total=$((total + code)) ttotal=$((ttotal + test))
done < <(go list -f '{{.ImportPath}}|{{.Dir}}|{{join .GoFiles " "}}|{{join .TestGoFiles " "}}|{{join .XTestGoFiles " "}}|{{join .Imports " "}}' ./...)
printf '%-34s %6d %6d\n' total "$total" "$ttotal"
