package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Comment is an issue comment as the server keeps it.
type Comment struct {
	ID        int64
	Repo      string // owner/name
	Issue     int
	Author    string
	Body      string
	CreatedAt time.Time
	UpdatedAt time.Time
	Edits     int
}

type comment = Comment

// AddComment adds a comment by login to an issue or pull request and
// returns its id; the issue need not be known.
func (s *Server) AddComment(repo string, issue int, login, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &comment{ID: s.id(), Repo: repo, Issue: issue, Author: login, Body: body, CreatedAt: s.now(), UpdatedAt: s.now()}
	s.comments = append(s.comments, c)
	return c.ID
}

// Comments returns a copy of the comments of one issue, oldest first.
func (s *Server) Comments(repo string, issue int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments {
		if c.Repo == repo && c.Issue == issue {
			out = append(out, *c)
		}
	}
	return out
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	repo, issue, ok := s.issueOf(r)
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	s.mu.Lock()
	var all []map[string]any
	for _, c := range s.comments {
		if c.Repo == repo && c.Issue == issue {
			all = append(all, s.commentJSON(c))
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, page(s, w, r, all))
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) {
	repo, issue, ok := s.issueOf(r)
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	body, errs := commentBody(r)
	if errs != nil {
		writeInvalid(w, errs)
		return
	}
	s.mu.Lock()
	c := &comment{ID: s.id(), Repo: repo, Issue: issue, Author: tokenFrom(r.Context()).Login, Body: body, CreatedAt: s.now(), UpdatedAt: s.now()}
	s.comments = append(s.comments, c)
	out := s.commentJSON(c)
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) getComment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	c, ok := s.findComment(r)
	var out map[string]any
	if ok {
		out = s.commentJSON(c)
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	c, ok := s.findComment(r)
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	body, errs := commentBody(r)
	if errs != nil {
		writeInvalid(w, errs)
		return
	}
	s.mu.Lock()
	c.Body, c.UpdatedAt = body, s.now()
	c.Edits++
	out := s.commentJSON(c)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// commentBody reads and checks the body of a create or edit request.
func commentBody(r *http.Request) (string, []fieldError) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == nil || *in.Body == "" {
		return "", []fieldError{{Resource: "IssueComment", Field: "body", Code: "missing_field"}}
	}
	// GitHub's own text says characters; the fake counts bytes, the
	// stricter reading (ghcontract.CommentBody).
	if len(*in.Body) > MaxCommentBytes {
		return "", []fieldError{{Resource: "IssueComment", Field: "data", Code: "unprocessable",
			Message: fmt.Sprintf("Body is too long (maximum is %d characters)", MaxCommentBytes)}}
	}
	return *in.Body, nil
}

// issueOf reads the repository and issue number of the path and checks
// that the issue is known. s.mu is not held.
func (s *Server) issueOf(r *http.Request) (string, int, bool) {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err != nil || n <= 0 {
		return "", 0, false
	}
	repo := repoOf(r)
	s.mu.Lock()
	_, ok := s.pulls[pullKey(repo, n)]
	s.mu.Unlock()
	return repo, n, ok
}

// findComment finds the comment of the path's id in the path's
// repository. s.mu is held.
func (s *Server) findComment(r *http.Request) (*comment, bool) {
	id, ok := pathID(r, "id")
	if !ok {
		return nil, false
	}
	for _, c := range s.comments {
		if c.ID == id && c.Repo == repoOf(r) {
			return c, true
		}
	}
	return nil, false
}

// commentJSON is the API form of a comment. s.mu is held.
func (s *Server) commentJSON(c *comment) map[string]any {
	return map[string]any{
		"id":                 c.ID,
		"node_id":            nodeID("IC", c.ID),
		"body":               c.Body,
		"user":               s.userJSON(c.Author),
		"author_association": "NONE",
		"created_at":         c.CreatedAt.UTC().Format(time.RFC3339),
		"updated_at":         c.UpdatedAt.UTC().Format(time.RFC3339),
		"url":                fmt.Sprintf("%s/repos/%s/issues/comments/%d", s.URL, c.Repo, c.ID),
		"html_url":           fmt.Sprintf("%s/%s/pull/%d#issuecomment-%d", s.URL, c.Repo, c.Issue, c.ID),
		"issue_url":          fmt.Sprintf("%s/repos/%s/issues/%d", s.URL, c.Repo, c.Issue),
	}
}

func userType(login string) string {
	if len(login) > 5 && login[len(login)-5:] == "[bot]" {
		return "Bot"
	}
	return "User"
}
