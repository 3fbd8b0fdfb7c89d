package fakegithub

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Pull is a pull request as the server keeps it.
type Pull struct {
	Number  int
	HeadSHA string
	HeadRef string
	BaseSHA string
	BaseRef string
	// HeadRepo is the full name of the head repository; empty: the same
	// repository as the base.
	HeadRepo string
	Fork     bool
	State    string // empty: open
	// Author is the login of the pull request's user; empty: "octocat".
	Author string
	Body   string
	// Title of the pull request; empty: "Update the templates".
	Title string
	// CreatedAt is when it was opened; zero: when AddPull added it.
	CreatedAt time.Time
}

func pullKey(repo string, n int) string { return repo + "#" + strconv.Itoa(n) }

// AddPull adds a pull request to repo (owner/name). Its number is also an
// issue that takes comments.
func (s *Server) AddPull(repo string, p Pull) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.State == "" {
		p.State = "open"
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = s.now()
	}
	s.pulls[pullKey(repo, p.Number)] = &p
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("number"))
	repo := repoOf(r)
	s.mu.Lock()
	p, ok := s.pulls[pullKey(repo, n)]
	var out map[string]any
	if ok && err == nil {
		out = s.pullJSON(repo, p)
	}
	s.mu.Unlock()
	if out == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// pullsForCommit answers GET /repos/{o}/{r}/commits/{sha}/pulls: the open
// pull requests whose head is the commit.
func (s *Server) pullsForCommit(w http.ResponseWriter, r *http.Request) {
	repo, sha := repoOf(r), r.PathValue("sha")
	s.mu.Lock()
	var all []map[string]any
	for _, p := range s.sortedPulls(repo) {
		if p.HeadSHA == sha {
			all = append(all, s.pullJSON(repo, p))
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, page(s, w, r, all))
}

// sortedPulls lists the pulls of repo by number. s.mu is held.
func (s *Server) sortedPulls(repo string) []*Pull {
	var out []*Pull
	for k, p := range s.pulls {
		if k == pullKey(repo, p.Number) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *Pull) int { return a.Number - b.Number })
	return out
}

// pullJSON is the API form of a pull request: a pull-request, which is
// also every field of the pull-request-simple that lists give. s.mu is
// held.
func (s *Server) pullJSON(repo string, p *Pull) map[string]any {
	headRepo := p.HeadRepo
	if headRepo == "" {
		headRepo = repo
	}
	author := cmp.Or(p.Author, "octocat")
	title := cmp.Or(p.Title, "Update the templates")
	var body any
	if p.Body != "" {
		body = p.Body
	}
	id := int64(p.Number) + 1000
	api := fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, repo, p.Number)
	issue := fmt.Sprintf("%s/repos/%s/issues/%d", s.URL, repo, p.Number)
	html := fmt.Sprintf("%s/%s/pull/%d", s.URL, repo, p.Number)
	created := p.CreatedAt.UTC().Format(time.RFC3339)
	var closed any
	if p.State == "closed" {
		closed = created
	}
	side := func(full, ref, sha string, fork bool) map[string]any {
		owner, _, _ := strings.Cut(full, "/")
		return map[string]any{"label": owner + ":" + ref, "ref": ref, "sha": sha, "user": s.userJSON(owner), "repo": s.repoJSON(full, fork)}
	}
	link := func(u string) map[string]any { return map[string]any{"href": u} }
	return map[string]any{
		"id": id, "node_id": nodeID("PR", id), "number": p.Number, "state": p.State, "locked": false, "draft": false,
		"title": title, "user": s.userJSON(author), "body": body, "author_association": "CONTRIBUTOR",
		"url": api, "html_url": html, "issue_url": issue, "diff_url": html + ".diff", "patch_url": html + ".patch",
		"commits_url": api + "/commits", "review_comments_url": api + "/comments",
		"review_comment_url": fmt.Sprintf("%s/repos/%s/pulls/comments{/number}", s.URL, repo),
		"comments_url":       issue + "/comments", "statuses_url": fmt.Sprintf("%s/repos/%s/statuses/%s", s.URL, repo, p.HeadSHA),
		"created_at": created, "updated_at": created, "closed_at": closed, "merged_at": nil,
		"merge_commit_sha": nil, "assignee": nil, "assignees": []any{}, "requested_reviewers": []any{}, "requested_teams": []any{},
		"labels": []any{}, "milestone": nil, "auto_merge": nil, "active_lock_reason": nil,
		"head": side(headRepo, p.HeadRef, p.HeadSHA, p.Fork),
		"base": side(repo, p.BaseRef, p.BaseSHA, false),
		"_links": map[string]any{
			"self": link(api), "html": link(html), "issue": link(issue), "comments": link(issue + "/comments"),
			"review_comments": link(api + "/comments"), "review_comment": link(fmt.Sprintf("%s/repos/%s/pulls/comments{/number}", s.URL, repo)),
			"commits": link(api + "/commits"), "statuses": link(fmt.Sprintf("%s/repos/%s/statuses/%s", s.URL, repo, p.HeadSHA)),
		},
		"merged": false, "mergeable": nil, "rebaseable": nil, "mergeable_state": "unknown", "merged_by": nil,
		"maintainer_can_modify": false, "comments": 0, "review_comments": 0, "commits": 1, "additions": 1, "deletions": 1, "changed_files": 1,
	}
}

// pullMinimal is the pull-request-minimal of a check run's
// pull_requests. s.mu is held.
func (s *Server) pullMinimal(repo string, p *Pull) map[string]any {
	side := func(full, ref, sha string) map[string]any {
		return map[string]any{"ref": ref, "sha": sha, "repo": map[string]any{"id": repoID(full), "url": s.URL + "/repos/" + full, "name": full[strings.Index(full, "/")+1:]}}
	}
	return map[string]any{
		"id": int64(p.Number) + 1000, "number": p.Number, "url": fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, repo, p.Number),
		"head": side(repo, p.HeadRef, p.HeadSHA), "base": side(repo, p.BaseRef, p.BaseSHA),
	}
}

// repoID is a repository's id: the same for names that differ only in
// case, as on GitHub, where names are not case-sensitive.
func repoID(fullName string) int64 {
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(fullName)))
	return int64(h.Sum32())
}
