// Package taint is the taint check (seed 004): a script that sources a
// file the agent can write (default: /etc/profile.d/* and anything under
// the repository) lets that file change what the script does after the
// source. For every changed shell template and every variable set, the
// check renders the script (in the out-of-process render worker), parses
// it with mvdan.cc/sh, and lists every name used after such a source that
// the file could have changed: variables read that no assignment after the
// source and no readonly before it protects, and commands that a function
// could shadow or PATH could find elsewhere. A protected name (config
// taint.protect: the FC_SKIP_* flags and the reward inputs of seed 004)
// read that way is a failure when the head adds it; the rest is a table
// of warnings. Then, as seed 004's tamper tests do, it runs the script's
// head up to the first step in the sandbox with hostile profile files that
// export, assign, declare -g and unset every protected name, and fails
// when any value the rest of the script reads changes, so that a skip
// turns on or off.
package taint
