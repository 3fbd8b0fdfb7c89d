// Package taint is the taint check: a script that sources a file the
// agent can write (default: every file, unless the script wrote it
// itself before the source) lets that file change what the script does after the
// source, such as exporting FC_SKIP_PYTEST=1 so that the tests never run. For every changed shell template and every variable set, the
// check renders the script (in the out-of-process render worker), parses
// it with mvdan.cc/sh, and follows its flow (walk.go, flow.go): a
// variable read after such a source is covered when an assignment after
// the source reaches it on every path (branches, loops that may run zero
// times, function bodies at each call, subshells that keep their own
// assignments), or the script made it readonly before the source. A value
// computed from an uncovered read carries that name (FC_BASE from
// FC_BASELINE_SHA), also through a branch the read decides, a function's
// arguments and standard input (a here-string or a pipeline into read). Commands that
// a function could shadow, or PATH find elsewhere, are listed too.
//
// A protected name read uncovered fails the check when the head adds it:
// taint.protect names it (the FC_SKIP_* flags, and the timing inputs,
// time limits and parser thresholds that decide the reward), or the script reads it with a default, or its value reaches
// git, a --base option or a redirection's file. Findings name template
// lines. The rest is a table of warnings. Then, as a reviewer's tamper
// test would by hand, the check runs the script's head up to the first step in the
// sandbox with hostile profile files that export, assign, declare -g and
// unset every protected name, and fails when a value the rest of the
// script reads before assigning it changes, so that a skip turns on or
// off.
package taint
