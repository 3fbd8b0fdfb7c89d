package fakegithub

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"strconv"
	"strings"
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

// pullJSON is the API form of a pull request. s.mu is held.
func (s *Server) pullJSON(repo string, p *Pull) map[string]any {
	headRepo := p.HeadRepo
	if headRepo == "" {
		headRepo = repo
	}
	author := p.Author
	if author == "" {
		author = "octocat"
	}
	return map[string]any{
		"id":       int64(p.Number) + 1000,
		"number":   p.Number,
		"state":    p.State,
		"user":     map[string]any{"login": author, "type": userType(author)},
		"body":     p.Body,
		"url":      fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, repo, p.Number),
		"html_url": fmt.Sprintf("%s/%s/pull/%d", s.URL, repo, p.Number),
		"head": map[string]any{
			"sha": p.HeadSHA, "ref": p.HeadRef,
			"repo": map[string]any{"id": repoID(headRepo), "full_name": headRepo, "fork": p.Fork},
		},
		"base": map[string]any{
			"sha": p.BaseSHA, "ref": p.BaseRef,
			"repo": map[string]any{"id": repoID(repo), "full_name": repo, "fork": false},
		},
	}
}

// repoID is a repository's id: the same for names that differ only in
// case, as on GitHub, where names are not case-sensitive.
func repoID(fullName string) int64 {
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(fullName)))
	return int64(h.Sum32())
}
