package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"
	"unicode/utf8"
)

// GitHub's limits that the server checks.
const (
	MaxOutputBytes        = 65535
	MaxTitleChars         = 255
	MaxAnnotations        = 50
	MaxAnnotationBytes    = 64 << 10
	MaxCommentChars       = 65536
	maxNameChars          = 255
	annotationsPerListMax = 100
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
	writeJSON(w, http.StatusOK, page(s, w, r, as))
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

// validateRun checks a create (create true) or update body like GitHub.
func validateRun(in runInput, create bool) []fieldError {
	var errs []fieldError
	bad := func(field, code, msg string) {
		errs = append(errs, fieldError{Resource: "CheckRun", Field: field, Code: code, Message: msg})
	}
	if create && (in.Name == nil || *in.Name == "") {
		bad("name", "missing_field", "name is missing")
	}
	if in.Name != nil && utf8.RuneCountInString(*in.Name) > maxNameChars {
		bad("name", "custom", "name is too long (maximum is 255 characters)")
	}
	if create && (in.HeadSHA == nil || *in.HeadSHA == "") {
		bad("head_sha", "missing_field", "head_sha is missing")
	}
	if in.Status != nil && !slices.Contains(statuses, *in.Status) {
		bad("status", "invalid", fmt.Sprintf("status %q is not one of %v", *in.Status, statuses))
	}
	if in.Conclusion != nil && !slices.Contains(conclusions, *in.Conclusion) {
		bad("conclusion", "invalid", fmt.Sprintf("conclusion %q is not one of %v", *in.Conclusion, conclusions))
	}
	if in.Status != nil && *in.Status == "completed" && in.Conclusion == nil {
		bad("conclusion", "missing_field", "conclusion is required when status is completed")
	}
	if o := in.Output; o != nil {
		if o.Title == nil {
			bad("output.title", "missing_field", "output.title is missing")
		} else if utf8.RuneCountInString(*o.Title) > MaxTitleChars {
			bad("output.title", "custom", "output.title is too long (maximum is 255 characters)")
		}
		if o.Summary == nil {
			bad("output.summary", "missing_field", "output.summary is missing")
		} else if len(*o.Summary) > MaxOutputBytes {
			bad("output.summary", "custom", fmt.Sprintf("output.summary is too long (%d bytes; maximum is 65535)", len(*o.Summary)))
		}
		if o.Text != nil && len(*o.Text) > MaxOutputBytes {
			bad("output.text", "custom", fmt.Sprintf("output.text is too long (%d bytes; maximum is 65535)", len(*o.Text)))
		}
		if len(o.Annotations) > MaxAnnotations {
			bad("output.annotations", "custom", fmt.Sprintf("only %d annotations are allowed per request; got %d", MaxAnnotations, len(o.Annotations)))
		}
		for i, a := range o.Annotations {
			errs = append(errs, validateAnnotation(i, a)...)
		}
	}
	return errs
}

func validateAnnotation(i int, a Annotation) []fieldError {
	var errs []fieldError
	bad := func(field, msg string) {
		errs = append(errs, fieldError{Resource: "CheckRun", Field: fmt.Sprintf("output.annotations[%d].%s", i, field), Code: "invalid", Message: msg})
	}
	if a.Path == "" {
		bad("path", "path is missing")
	}
	if a.StartLine < 1 {
		bad("start_line", "start_line must be 1 or more")
	}
	if a.EndLine < a.StartLine {
		bad("end_line", "end_line must not be before start_line")
	}
	if !slices.Contains(levels, a.AnnotationLevel) {
		bad("annotation_level", fmt.Sprintf("annotation_level %q is not one of %v", a.AnnotationLevel, levels))
	}
	if a.Message == "" {
		bad("message", "message is missing")
	}
	if len(a.Message) > MaxAnnotationBytes {
		bad("message", "message is too long (maximum is 64 KB)")
	}
	if len(a.RawDetails) > MaxAnnotationBytes {
		bad("raw_details", "raw_details is too long (maximum is 64 KB)")
	}
	if utf8.RuneCountInString(a.Title) > MaxTitleChars {
		bad("title", "title is too long (maximum is 255 characters)")
	}
	return errs
}

// runJSON is the API form of a run. s.mu is held.
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
	return map[string]any{
		"id":           c.ID,
		"name":         c.Name,
		"head_sha":     c.HeadSHA,
		"status":       c.Status,
		"conclusion":   conclusion,
		"started_at":   c.StartedAt.UTC().Format(time.RFC3339),
		"completed_at": completed,
		"details_url":  nullable(c.DetailsURL),
		"external_id":  c.ExternalID,
		"url":          fmt.Sprintf("%s/repos/%s/check-runs/%d", s.URL, c.Repo, c.ID),
		"html_url":     fmt.Sprintf("%s/%s/runs/%d", s.URL, c.Repo, c.ID),
		"output":       output,
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
