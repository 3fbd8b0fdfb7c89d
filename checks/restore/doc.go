// Package restore verifies the restore step of a rendered grader script.
//
// The step puts protected paths (tests, benchmarks, conftest.py, ...) back
// to the base commit after an agent changed them, and keeps every other
// change (the fix). The check cuts the step out of the rendered script,
// maps its absolute paths onto fixture folders, and runs it with bash in a
// copy of a generated git repository after each scenario of agent-like
// edits: a fixed catalogue and random edit sets from a fixed seed.
//
// A Go model of the policy, written independently of any script, gives the
// expected tree and report of each scenario. The check compares the real
// tree file by file (content, mode, type) and the step's JSON report with
// the model. A random set that fails is shrunk to a minimal edit list that
// anyone can replay.
package restore
