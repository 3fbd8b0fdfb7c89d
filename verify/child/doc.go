// Package child runs one verification in a child process: the tool's own
// binary started with a hidden subcommand (template-verify verify-child),
// so that a crash, a stack overflow or an out-of-memory in the readers of
// one pull request ends that process alone. The App's server (Runner)
// writes the Request as one JSON line on the child's stdin; the child
// (Serve) limits its own address space, runs verify.Run and writes the
// report as one JSON line on stdout. The release ledger's calls to
// GitHub go back through the same pipes, so the child holds no token.
// A child that dies, or outlives its time limit, gives a report in which
// every check is "not run" with the reason.
package child
