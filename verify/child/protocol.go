package child

import (
	"github.com/formula-code/template-verify/checks/ledger"
	"github.com/formula-code/template-verify/report"
)

// Request is the first line the child reads: one verification.
type Request struct {
	RepoDir     string `json:"repo_dir"`
	Base        string `json:"base"`
	Head        string `json:"head"`
	RepoName    string `json:"repo_name,omitempty"`
	Description string `json:"description,omitempty"`
	// Only is verify.Options.Only: the checks to run; empty: all.
	Only []string `json:"only,omitempty"`
	// Sandbox is verify.Options.Sandbox: auto, bwrap, landlock or none.
	Sandbox string `json:"sandbox,omitempty"`
	// CacheDir is verify.Options.CacheDir: the folder of kept results.
	CacheDir string `json:"cache_dir,omitempty"`
	// Ledger, when set, makes the release ledger judge by GitHub's check
	// runs, which the child asks the parent for (Call); nil: the
	// ledger of verify.DefaultChecks.
	Ledger *LedgerRefs `json:"ledger,omitempty"`
	// MaxMemory is the address space in bytes that the child may add to
	// what it has at start (RLIMIT_AS); <= 0: no limit.
	MaxMemory int64 `json:"max_memory,omitempty"`
	// Debug logs debug lines too.
	Debug bool `json:"debug,omitempty"`
}

// LedgerRefs are the pull request's branch names for the ledger.
type LedgerRefs struct {
	BaseRef string `json:"base_ref"`
	HeadRef string `json:"head_ref"`
}

// Message is one line the child writes on stdout: a call to the parent or
// the end of the verification (Report or Error).
type Message struct {
	Call   *Call          `json:"call,omitempty"`
	Report *report.Report `json:"report,omitempty"`
	Error  *Failure       `json:"error,omitempty"`
}

// Failure is a verification that returned an error.
type Failure struct {
	Message string `json:"message"`
	// Usage marks a verify.UsageError (bad input).
	Usage bool `json:"usage,omitempty"`
}

// Call is the child's question to the parent's ledger source.
type Call struct {
	ID int64 `json:"id"`
	// Op is OpCheckRuns (SHA) or OpPullHead (Number).
	Op     string `json:"op"`
	SHA    string `json:"sha,omitempty"`
	Number int    `json:"number,omitempty"`
}

// The calls.
const (
	OpCheckRuns = "check_runs"
	OpPullHead  = "pull_head"
)

// Reply is the parent's answer to a Call, one line on the child's stdin.
type Reply struct {
	ID   int64        `json:"id"`
	Runs []ledger.Run `json:"runs,omitempty"`
	Head string       `json:"head,omitempty"`
	Err  string       `json:"err,omitempty"`
}

// maxLine bounds one line of either side: a report with its diffs, or
// the check runs of one commit.
const maxLine = 64 << 20
