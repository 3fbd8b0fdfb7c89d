package app

import (
	"errors"
	"fmt"
	"time"
)

// Job states in the store.
const (
	// StateAccepted: the delivery is stored; the announcer has not seen it.
	StateAccepted = "accepted"
	// StateQueued: the queued check run exists; a worker takes it next.
	StateQueued = "queued"
	// StateRunning: a worker runs it. At start-up this means the process
	// stopped during the run.
	StateRunning = "running"
	// StatePublish: the verification finished and publishing it failed;
	// Unpublished holds what to publish. A worker publishes it again
	// later, and at the next start.
	StatePublish = "publish"
)

// MaxAttempts is how many times a job may start and not end (the process
// died during the run) before it is concluded as failure instead of run
// again: a template that kills the process must not crash-loop the
// server.
const MaxAttempts = 3

// Job is one accepted delivery that may lead to a verification.
type Job struct {
	Delivery     string `json:"delivery"`
	Event        string `json:"event"`
	Action       string `json:"action"`
	Installation int64  `json:"installation"`
	Owner        string `json:"owner"`
	Repo         string `json:"repo"`
	CloneURL     string `json:"clone_url"`
	PR           int    `json:"pr"`
	HeadSHA      string `json:"head_sha"`
	BaseSHA      string `json:"base_sha"`
	BaseRef      string `json:"base_ref"`
	// HeadRef is the pull request's head branch (the release ledger
	// applies to a release branch merging into main).
	HeadRef string `json:"head_ref,omitempty"`
	Fork    bool   `json:"fork"`
	Author  string `json:"author"`
	// Body is the pull request's description, for the description check.
	Body   string `json:"body,omitempty"`
	Sender string `json:"sender"`
	// Request is true when a person asked for the run: a comment command,
	// a re-run button or a re-request. The sender then needs write access.
	Request bool `json:"request"`

	State    string    `json:"state"`
	Accepted time.Time `json:"accepted"`
	// RiverID is the River job of the verification (0 before).
	RiverID int64 `json:"river_id,omitempty"`
	// RunID is the "template-verify" check run made when the job was
	// announced.
	RunID int64 `json:"run_id"`
	// CheckRunIDs are the per-check runs of the current attempt.
	CheckRunIDs []int64 `json:"check_run_ids"`
	// Attempts counts the runs that started and did not end; a stop of
	// the server (not a crash) gives its attempt back.
	Attempts int `json:"attempts"`
	// Unpublished is the finished verification of a job in StatePublish.
	Unpublished *Unpublished `json:"unpublished,omitempty"`

	// retried is true when River runs the announce job again: an earlier
	// attempt may have made the App's run and died before storing its id.
	retried bool
}

// FullName is owner/repo.
func (j *Job) FullName() string { return j.Owner + "/" + j.Repo }

// PRKey names the pull request: owner/repo#n.
func (j *Job) PRKey() string { return fmt.Sprintf("%s/%s#%d", j.Owner, j.Repo, j.PR) }

// needsPull reports whether the announcer must read the pull request
// from the API to know its head, base and author.
func (j *Job) needsPull() bool {
	return j.PR == 0 || j.HeadSHA == "" || j.BaseSHA == "" || j.Author == "" || j.BaseRef == ""
}

// verifyMaxAttempts is River's attempt limit of a verification job. The
// App counts the runs the process did not survive itself (Job.Attempts,
// MaxAttempts), so River's limit only stops a job that errs without end.
const verifyMaxAttempts = 100

// deliveryTTL is how long the App remembers a delivery id, a body hash
// and the newest head of a pull request, and River a completed job (so
// that a head ran is not run again by a late delivery).
const deliveryTTL = 7 * 24 * time.Hour

// errDuplicate is returned by admit for a delivery id or a body already
// seen.
var errDuplicate = errors.New("duplicate delivery")

// errSameHead is returned when a job of the same pull-request head waits,
// runs or ran. It wraps errDuplicate.
var errSameHead = fmt.Errorf("%w: the same head", errDuplicate)

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
