package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidSignature(t *testing.T) {
	t.Parallel()
	secret, body := []byte("s3cret"), []byte(`{"a":1}`)
	good := Sign(secret, body)
	tests := []struct {
		name   string
		secret []byte
		body   []byte
		header string
		want   bool
	}{
		{"good", secret, body, good, true},
		{"other body", secret, []byte(`{"a":2}`), good, false},
		{"other secret", []byte("x"), body, good, false},
		{"empty secret", nil, body, Sign(nil, body), false},
		{"upper-case hex", secret, body, "sha256=" + strings.ToUpper(strings.TrimPrefix(good, "sha256=")), true},
		{"no prefix", secret, body, strings.TrimPrefix(good, "sha256="), false},
		{"short", secret, body, good[:20], false},
		{"empty", secret, body, "", false},
	}
	for _, tt := range tests {
		if got := validSignature(tt.secret, tt.body, tt.header); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestParseCommand(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"/template-verify":                       true,
		"  /template-verify  ":                   true,
		"LGTM\n/template-verify run\n":           true,
		"/template-verify\tnow":                  true,
		"/template-verifyx":                      false,
		"please /template-verify":                false,
		"> /template-verify":                     false,
		"```\n/template-verify\n```":             false,
		"```\ncode\n```\n/template-verify":       true,
		"":                                       false,
		"/TEMPLATE-VERIFY":                       false,
		"~~~\n/template-verify\n~~~\nno command": false,
	}
	for body, want := range tests {
		if got := parseCommand(body); got != want {
			t.Errorf("parseCommand(%q) = %v, want %v", body, got, want)
		}
	}
}

// TestDecodeSharedFixtures decodes every shared payload as GitHub sends
// it, with the event of its folder.
func TestDecodeSharedFixtures(t *testing.T) {
	t.Parallel()
	want := map[string]string{ // file -> "ok", "ignored" or "error"
		"pull_request/opened.payload.json":                               "ok",
		"pull_request/synchronize.payload.json":                          "ok",
		"pull_request/reopened.payload.json":                             "ok",
		"pull_request/ready_for_review.with-installation.payload.json":   "ok",
		"pull_request/labeled.payload.json":                              "ignored",
		"pull_request/closed.payload.json":                               "ignored",
		"pull_request/converted_to_draft.with-installation.payload.json": "ignored",
		"check_suite/requested.payload.json":                             "ok",
		"check_suite/rerequested.payload.json":                           "ok",
		"check_run/rerequested.payload.json":                             "ok",
		"check_run/created.payload.json":                                 "ignored",
		"check_run/completed.payload.json":                               "ignored",
		"check_run/requested_action.payload.json":                        "ignored", // its identifier is not ours
		"issue_comment/created.payload.json":                             "ignored",
		"issue_comment/created.with-installation.payload.json":           "ignored", // on an issue
		"installation/created.payload.json":                              "ignored",
		"ping/with-app_id.payload.json":                                  "ignored",
	}
	for file, w := range want {
		b, err := os.ReadFile(filepath.Join(fixturesDir, file))
		if err != nil {
			t.Fatal(err)
		}
		j, err := decodeEvent(filepath.Dir(file), b)
		got := "ok"
		switch {
		case errors.Is(err, ErrIgnored):
			got = "ignored"
		case err != nil:
			got = "error"
		}
		if got != w {
			t.Errorf("%s: %s (%v), want %s", file, got, err, w)
			continue
		}
		if got == "ok" && (j.Installation == 0 || j.Owner == "" || j.HeadSHA == "") {
			t.Errorf("%s: incomplete job %+v", file, j)
		}
	}
}

func TestDecodeEdits(t *testing.T) {
	t.Parallel()
	h := &harness{t: t}
	h.repo = fixtureRepo{base: strings.Repeat("b", 40)}
	h.git = nil
	p := fixture(t, "pull_request/synchronize.payload.json")
	obj(p, "pull_request", "head", "repo")["full_name"] = "someone/Hello-World"
	j, err := decodeEvent("pull_request", mustJSON(p))
	if err != nil || !j.Fork || j.PR != 2 || j.Author != "Codertocat" || j.BaseRef != "master" {
		t.Fatalf("fork pull: %+v %v", j, err)
	}
	cs := fixture(t, "check_suite/requested.payload.json")
	obj(cs, "check_suite")["pull_requests"] = []any{}
	j, err = decodeEvent("check_suite", mustJSON(cs))
	if err != nil || j.PR != 0 || !j.needsPull() {
		t.Fatalf("check_suite without pull requests: %+v %v", j, err)
	}
	ra := fixture(t, "check_run/requested_action.payload.json")
	obj(ra, "requested_action")["identifier"] = RerunAction
	if j, err = decodeEvent("check_run", mustJSON(ra)); err != nil || !j.Request {
		t.Fatalf("rerun button: %+v %v", j, err)
	}
	ic := fixture(t, "issue_comment/created.with-installation.payload.json")
	obj(ic, "issue")["pull_request"] = map[string]any{"url": "x"}
	obj(ic, "comment")["body"] = "/template-verify"
	if j, err = decodeEvent("issue_comment", mustJSON(ic)); err != nil || !j.Request || j.PR == 0 || j.Sender == "" {
		t.Fatalf("command comment: %+v %v", j, err)
	}
	for _, bad := range []string{`{}`, `[]`, `{"repository":{"full_name":"a/b/c"},"installation":{"id":1}}`, `{"action":"opened","repository":{"full_name":"a/b"}}`, `null`} {
		if _, err := decodeEvent("pull_request", []byte(bad)); err == nil || errors.Is(err, ErrIgnored) {
			t.Errorf("%s: error %v, want a decode error", bad, err)
		}
	}
}
