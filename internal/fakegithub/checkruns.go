package fakegithub

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// GitHub's limits that the server checks, in their stricter reading;
// package ghcontract names the source of each.
const (
	MaxOutputBytes     = 65535 // ghcontract.OutputSummary, OutputText
	MaxTitleChars      = 255   // ghcontract.OutputTitle; the annotation title's is in the spec
	MaxAnnotations     = 50    // the spec's maxItems
	MaxAnnotationBytes = 64000 // ghcontract.AnnotationMessage: "64 KB", read as 64,000 bytes
	MaxCommentBytes    = 65536 // ghcontract.CommentBody
	maxNameChars       = 255   // ghcontract.CheckRunName
)

// Annotation is one check-run annotation as GitHub stores it.
type Annotation struct {
	Path            string `json:"path"`
	StartLine       int    `json:"start_line"`
	EndLine         int    `json:"end_line"`
	StartColumn     *int   `json:"start_column,omitempty"`
	EndColumn       *int   `json:"end_column,omitempty"`
	AnnotationLevel string `json:"annotation_level"`
	Message         string `json:"message"`
	Title           string `json:"title,omitempty"`
	RawDetails      string `json:"raw_details,omitempty"`
}

// CheckRun is a check run as the server keeps it.
type CheckRun struct {
	ID          int64
	Repo        string // owner/name
	Name        string
	HeadSHA     string
	Status      string
	Conclusion  string
	DetailsURL  string
	ExternalID  string
	StartedAt   time.Time
	CompletedAt time.Time
	Title       string
	Summary     string
	Text        string
	Annotations []Annotation
	// AppID and AppSlug are the App that made the run: the App of the
	// token (Token.AppID), else the App of NewApp, else GitHub Actions.
	AppID   int64
	AppSlug string
}

type checkRun = CheckRun

// runInput is the body of a create or update request; nil means absent.
type runInput struct {
	Name        *string      `json:"name"`
	HeadSHA     *string      `json:"head_sha"`
	DetailsURL  *string      `json:"details_url"`
	ExternalID  *string      `json:"external_id"`
	Status      *string      `json:"status"`
	Conclusion  *string      `json:"conclusion"`
	StartedAt   *time.Time   `json:"started_at"`
	CompletedAt *time.Time   `json:"completed_at"`
	Output      *outputInput `json:"output"`
}

type outputInput struct {
	Title       *string      `json:"title"`
	Summary     *string      `json:"summary"`
	Text        *string      `json:"text"`
	Annotations []Annotation `json:"annotations"`
}

var (
	statuses    = []string{"queued", "in_progress", "completed"}
	conclusions = []string{"action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out"}
	levels      = []string{"notice", "warning", "failure"}
)

// CheckRuns returns a copy of every check run, in order of creation.
func (s *Server) CheckRuns() []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CheckRun
	for _, id := range s.runOrder {
		c := *s.runs[id]
		c.Annotations = slices.Clone(c.Annotations)
		out = append(out, c)
	}
	return out
}

func (s *Server) createCheckRun(w http.ResponseWriter, r *http.Request) {
	var in runInput
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	errs := validateRun(in, true)
	if len(errs) > 0 {
		writeInvalid(w, errs)
		return
	}
	s.mu.Lock()
	c := &checkRun{ID: s.id(), Repo: repoOf(r), Status: "queued", StartedAt: s.now()}
	c.AppID, c.AppSlug = s.appOf(tokenFrom(r.Context()))
	s.apply(c, in)
	s.runs[c.ID] = c
	s.runOrder = append(s.runOrder, c.ID)
	body := s.runJSON(c)
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, body)
}

func (s *Server) updateCheckRun(w http.ResponseWriter, r *http.Request) {
	var in runInput
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	s.mu.Lock()
	c, ok := s.findRun(r)
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	if errs := validateRun(in, false); len(errs) > 0 {
		writeInvalid(w, errs)
		return
	}
	s.mu.Lock()
	s.apply(c, in)
	body := s.runJSON(c)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) getCheckRun(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	c, ok := s.findRun(r)
	var body map[string]any
	if ok {
		body = s.runJSON(c)
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) listAnnotations(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	c, ok := s.findRun(r)
	var as []Annotation
	if ok {
		as = slices.Clone(c.Annotations)
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	out := []map[string]any{}
	for _, a := range page(s, w, r, as) {
		out = append(out, annotationJSON(s.URL, repoOf(r), a))
	}
	writeJSON(w, http.StatusOK, out)
}

// annotationJSON is a check-annotation: every field, null when not given.
func annotationJSON(base, repo string, a Annotation) map[string]any {
	opt := func(p *int) any {
		if p == nil {
			return nil
		}
		return *p
	}
	return map[string]any{
		"path": a.Path, "start_line": a.StartLine, "end_line": a.EndLine,
		"start_column": opt(a.StartColumn), "end_column": opt(a.EndColumn),
		"annotation_level": a.AnnotationLevel, "message": a.Message,
		"title": nullable(a.Title), "raw_details": nullable(a.RawDetails),
		"blob_href": fmt.Sprintf("%s/%s/blob/HEAD/%s", base, repo, a.Path),
	}
}

// listRunsForRef answers GET /repos/{o}/{r}/commits/{ref}/check-runs for
// a full head sha, with the check_name filter.
func (s *Server) listRunsForRef(w http.ResponseWriter, r *http.Request) {
	repo, ref, name := repoOf(r), r.PathValue("ref"), r.URL.Query().Get("check_name")
	s.mu.Lock()
	var all []map[string]any
	for _, id := range s.runOrder {
		c := s.runs[id]
		if c.Repo == repo && c.HeadSHA == ref && (name == "" || c.Name == name) {
			all = append(all, s.runJSON(c))
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(all), "check_runs": page(s, w, r, all)})
}

// findRun finds the run of the path's id in the path's repository. s.mu
// is held.
func (s *Server) findRun(r *http.Request) (*checkRun, bool) {
	id, ok := pathID(r, "id")
	if !ok {
		return nil, false
	}
	c, ok := s.runs[id]
	if !ok || c.Repo != repoOf(r) {
		return nil, false
	}
	return c, true
}

// apply changes a run like GitHub: given fields replace, annotations
// append, a conclusion completes the run. s.mu is held.
func (s *Server) apply(c *checkRun, in runInput) {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&c.Name, in.Name)
	set(&c.HeadSHA, in.HeadSHA)
	set(&c.DetailsURL, in.DetailsURL)
	set(&c.ExternalID, in.ExternalID)
	set(&c.Status, in.Status)
	if in.StartedAt != nil {
		c.StartedAt = *in.StartedAt
	}
	if in.Conclusion != nil {
		c.Conclusion = *in.Conclusion
		c.Status = "completed"
	}
	if c.Status == "completed" && c.CompletedAt.IsZero() {
		c.CompletedAt = s.now()
	}
	if in.CompletedAt != nil {
		c.CompletedAt = *in.CompletedAt
	}
	if o := in.Output; o != nil {
		set(&c.Title, o.Title)
		set(&c.Summary, o.Summary)
		set(&c.Text, o.Text)
		c.Annotations = append(c.Annotations, o.Annotations...)
	}
}

// appOf is the App whose token t is. s.mu is held.
func (s *Server) appOf(t Token) (int64, string) {
	switch {
	case t.AppID != 0:
		return t.AppID, cmp.Or(t.AppSlug, fmt.Sprintf("app-%d", t.AppID))
	case s.app != nil:
		return s.app.id, strings.TrimSuffix(s.AppLogin, "[bot]")
	}
	return GitHubActionsAppID, GitHubActionsSlug
}

// suiteID is the check suite of a head commit and App: one per pair, as
// on GitHub. s.mu is held.
func (s *Server) suiteID(c *checkRun) int64 {
	key := fmt.Sprintf("%s %s %d", c.Repo, c.HeadSHA, c.AppID)
	if s.suites == nil {
		s.suites = map[string]int64{}
	}
	if id, ok := s.suites[key]; ok {
		return id
	}
	// A count of its own, so that run and comment ids stay 1, 2, 3...
	id := int64(900000 + len(s.suites) + 1)
	s.suites[key] = id
	return id
}

// runJSON is the API form of a run: a check-run. Its pull_requests are
// the open pull requests of the same repository whose head is the run's
// commit (GitHub leaves out those from forks). s.mu is held.
func (s *Server) runJSON(c *checkRun) map[string]any {
	var conclusion, completed any
	if c.Conclusion != "" {
		conclusion = c.Conclusion
	}
	if !c.CompletedAt.IsZero() {
		completed = c.CompletedAt.UTC().Format(time.RFC3339)
	}
	output := map[string]any{
		"title":             nullable(c.Title),
		"summary":           nullable(c.Summary),
		"text":              nullable(c.Text),
		"annotations_count": len(c.Annotations),
		"annotations_url":   fmt.Sprintf("%s/repos/%s/check-runs/%d/annotations", s.URL, c.Repo, c.ID),
	}
	prs := []any{}
	for _, p := range s.sortedPulls(c.Repo) {
		if p.HeadSHA == c.HeadSHA && p.State == "open" && (p.HeadRepo == "" || strings.EqualFold(p.HeadRepo, c.Repo)) {
			prs = append(prs, s.pullMinimal(c.Repo, p))
		}
	}
	return map[string]any{
		"id":            c.ID,
		"node_id":       nodeID("CR", c.ID),
		"name":          c.Name,
		"head_sha":      c.HeadSHA,
		"status":        c.Status,
		"conclusion":    conclusion,
		"started_at":    c.StartedAt.UTC().Format(time.RFC3339),
		"completed_at":  completed,
		"details_url":   nullable(c.DetailsURL),
		"external_id":   c.ExternalID,
		"url":           fmt.Sprintf("%s/repos/%s/check-runs/%d", s.URL, c.Repo, c.ID),
		"html_url":      fmt.Sprintf("%s/%s/runs/%d", s.URL, c.Repo, c.ID),
		"output":        output,
		"check_suite":   map[string]any{"id": s.suiteID(c)},
		"app":           s.appJSON(c.AppID, c.AppSlug),
		"pull_requests": prs,
	}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func repoOf(r *http.Request) string {
	return r.PathValue("owner") + "/" + r.PathValue("repo")
}
