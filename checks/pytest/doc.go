// Package pytest is the pytest check. It runs the verified repository's own
// pytest suites for the changed paths, and the template's pytest runner on
// small fixture Python projects.
//
// Suites: each suite whose triggers match a changed path runs at head with
// --junitxml and --continue-on-collection-errors. The outcome comes from the
// exit code and the JUnit file, never from log text. A test that fails runs
// again; a test that fails twice runs at the merge base. It is a regression
// only if it passes there. A test that fails at the base too is "failing
// before the change" (a warning). A test that is not at the base, or does
// not pass there for another reason, is a failure too: only failures that
// existed before the change are excused. A test module that does not import
// at head, while one of its tests passes at the base, is a regression with
// the file path as its id. pytest exit code 5 (no tests) and a missing
// python or pytest make the check "not run", never a pass.
//
// Runner scenarios: when a file under the runner's template folder or the
// config file changes, the runner template is rendered at head and run on
// fixture projects (git repositories with a baseline commit and an
// agent-like change). Each scenario declares the regressions that the runner
// must report; a missing or extra one fails the scenario and names the
// feature that is likely missing. No scenario runs when the runner renders
// to the same bytes at base and head with the same settings, unless the base
// sets pre_existing: fail: every failure would be the base's too.
//
// With a cache folder in the context (resultcache: the CLI's --cache-dir,
// the Action's cache-dir, the App's data folder), passing suites and runner
// scenarios are kept there by the hash of their inputs and read back by a
// later run (suite_cache.go, scenario_cache.go, diskcache.go).
//
// Every run is untrusted code: it gets a clean environment, a temporary
// HOME, a time limit that kills the process group, a cap on output, and the
// bubblewrap sandbox where it works.
package pytest
