package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/internal/githubapi"
)

// decodePullGoGithub is the job of a pull_request payload decoded
// through go-github's PullRequestEvent, with decodeEvent's checks in
// decodeEvent's order, as decodeEvent did before it read only the fields
// it uses: the reference the slim decode is held to.
func decodePullGoGithub(body []byte) (*Job, error) {
	var e github.PullRequestEvent
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, err
	}
	owner, name, ok := strings.Cut(e.Repo.GetFullName(), "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, errors.New("no repository owner/name")
	}
	switch e.GetAction() {
	case "opened", "synchronize", "reopened", "ready_for_review":
	default:
		return nil, fmt.Errorf("%w: pull_request %q", ErrIgnored, e.GetAction())
	}
	pr := e.PullRequest
	if pr.GetNumber() <= 0 || pr.GetHead().GetSHA() == "" || e.Installation.GetID() <= 0 {
		return nil, errors.New("no number, head or installation")
	}
	base := pr.GetBase().GetRepo()
	if base == nil {
		base = e.Repo
	}
	return &Job{Event: "pull_request", Action: e.GetAction(), Owner: owner, Repo: name, CloneURL: e.Repo.GetCloneURL(),
		Sender: e.Sender.GetLogin(), Installation: e.Installation.GetID(),
		PR: pr.GetNumber(), HeadSHA: pr.GetHead().GetSHA(), BaseSHA: pr.GetBase().GetSHA(), BaseRef: pr.GetBase().GetRef(),
		Author: pr.GetUser().GetLogin(), HeadRef: pr.GetHead().GetRef(), Body: pr.GetBody(),
		Fork: githubapi.IsFork(base, pr.GetHead().GetRepo())}, nil
}

// sameAsGoGithub fails when decodeEvent's answer for body differs from
// the go-github reference's: a job the reference makes must come out the
// same, and a payload the reference ignores must be ignored. Where the
// reference refuses a body, decodeEvent may take it: go-github also
// checks the types of the fields the App does not read.
func sameAsGoGithub(t *testing.T, name string, body []byte) {
	t.Helper()
	got, err := decodeEvent("pull_request", body)
	want, werr := decodePullGoGithub(body)
	switch {
	case werr == nil && err != nil:
		t.Errorf("%s: decodeEvent: %v; go-github: %+v", name, err, want)
	case werr == nil:
		// retried is the queue's bookkeeping of an attempt, not decoded.
		if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Job{})); d != "" {
			t.Errorf("%s: the job differs from go-github's (-go-github +decodeEvent):\n%s", name, d)
		}
	case errors.Is(werr, ErrIgnored) && !errors.Is(err, ErrIgnored):
		t.Errorf("%s: go-github's decode ignores it (%v); decodeEvent: %+v, %v", name, werr, got, err)
	}
}

// TestPullRequestEventDecodesAsGoGithub: every pull_request payload of
// GitHub's examples, and edits of them that change what the App reads
// (a fork, a null body, no base repository, a missing head), give the
// job go-github's full decode gives.
func TestPullRequestEventDecodesAsGoGithub(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(fixturesDir, "pull_request", "*.json"))
	if err != nil || len(files) < 5 {
		t.Fatalf("pull_request fixtures: %d, %v", len(files), err)
	}
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sameAsGoGithub(t, filepath.Base(file), body)
	}
	edits := map[string]func(p map[string]any){
		"fork by name":      func(p map[string]any) { obj(p, "pull_request", "head", "repo")["full_name"] = "someone/Hello-World" },
		"fork by id":        func(p map[string]any) { obj(p, "pull_request", "head", "repo")["id"] = 1 },
		"fork flag":         func(p map[string]any) { obj(p, "pull_request", "head", "repo")["fork"] = true },
		"head repo deleted": func(p map[string]any) { obj(p, "pull_request", "head")["repo"] = nil },
		"no base repo":      func(p map[string]any) { delete(obj(p, "pull_request", "base"), "repo") },
		"base repo not the repository": func(p map[string]any) {
			obj(p, "pull_request", "base", "repo")["full_name"] = "upstream/Hello-World"
		},
		"null body":           func(p map[string]any) { obj(p, "pull_request")["body"] = nil },
		"no head sha":         func(p map[string]any) { delete(obj(p, "pull_request", "head"), "sha") },
		"no pull request":     func(p map[string]any) { delete(p, "pull_request") },
		"no installation":     func(p map[string]any) { delete(p, "installation") },
		"action closed":       func(p map[string]any) { p["action"] = "closed" },
		"number a string":     func(p map[string]any) { obj(p, "pull_request")["number"] = "2" },
		"sender without name": func(p map[string]any) { delete(obj(p, "sender"), "login") },
	}
	for name, edit := range edits {
		p := fixture(t, "pull_request/synchronize.payload.json")
		p["installation"] = map[string]any{"id": 7}
		edit(p)
		sameAsGoGithub(t, name, mustJSON(p))
	}
}

// FuzzPullRequestEventDecodesAsGoGithub holds the slim decode to
// go-github's on any body. Its seeds are GitHub's example deliveries (up
// to 28 KB), which Go minimizes for up to 60 s each with no execs counted;
// shorten that:
//
//	go test -run XXX -fuzz FuzzPullRequestEventDecodesAsGoGithub -fuzzminimizetime 2s ./app
func FuzzPullRequestEventDecodesAsGoGithub(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixturesDir, "pull_request", "*.json"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"action":"opened","pull_request":{"number":1,"head":{"sha":"a","repo":null},"base":{}},"repository":{"full_name":"a/b"},"installation":{"id":1}}`))
	f.Fuzz(func(t *testing.T, body []byte) { sameAsGoGithub(t, "fuzz", body) })
}

// BenchmarkDecodePullRequest is the decode of GitHub's example
// synchronize delivery (about 28 KB) by decodeEvent and by go-github's
// full PullRequestEvent, which decodeEvent used before; every delivery is
// decoded before the webhook answers:
//
//	go test -run XXX -bench DecodePullRequest -benchmem ./app
func BenchmarkDecodePullRequest(b *testing.B) {
	p := fixture(b, "pull_request/synchronize.payload.json")
	p["installation"] = map[string]any{"id": 7}
	body := mustJSON(p)
	for _, c := range []struct {
		name   string
		decode func([]byte) (*Job, error)
	}{
		{"decodeEvent", func(body []byte) (*Job, error) { return decodeEvent("pull_request", body) }},
		{"go-github", decodePullGoGithub},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := c.decode(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
