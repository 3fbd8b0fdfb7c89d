package publish

import (
	"fmt"
	"log/slog"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/internal/githubapi"
)

// publisher publishes reports on one pull request: its check runs go on the
// head commit, its comment on the pull request.
type publisher struct {
	client  *github.Client
	owner   string
	repo    string
	headSHA string
	pr      int
	author  string
	details string
	maxAnn  int
	clock   githubapi.Clock
	log     *slog.Logger
}

// Target says where to publish.
type Target struct {
	Client  *github.Client // from NewClient
	Owner   string
	Repo    string
	HeadSHA string // the commit the check runs go on
	PR      int    // the pull request the comment goes on; 0: no comment
	// CommentAuthor is the login the token posts as. The comment is found
	// again only among the comments of this author, for the Action
	// "github-actions[bot]", for an App "<app-slug>[bot]".
	CommentAuthor string
	// DetailsURL is the link of every check run, for example the page of
	// the Actions run. Empty: none.
	DetailsURL string
	// MaxAnnotations is the most annotations a check run gets; <= 0 means
	// DefaultMaxAnnotations.
	MaxAnnotations int
	Clock          githubapi.Clock // nil: RealClock; times of the check runs
	Log            *slog.Logger
}

// newPublisher checks the target and returns its publisher.
func newPublisher(t Target) (*publisher, error) {
	var missing []string
	if t.Client == nil {
		missing = append(missing, "client")
	}
	if t.Owner == "" {
		missing = append(missing, "owner")
	}
	if t.Repo == "" {
		missing = append(missing, "repo")
	}
	if t.HeadSHA == "" {
		missing = append(missing, "head sha")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("publish: missing %v", missing)
	}
	p := &publisher{
		client: t.Client, owner: t.Owner, repo: t.Repo, headSHA: t.HeadSHA, pr: t.PR,
		author: t.CommentAuthor, details: t.DetailsURL, maxAnn: t.MaxAnnotations,
		clock: t.Clock, log: t.Log,
	}
	if p.clock == nil {
		p.clock = githubapi.RealClock{}
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	return p, nil
}

func ptr[T any](v T) *T { return &v }
