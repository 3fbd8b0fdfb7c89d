package main

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/formula-code/template-verify/internal/gitx"
)

// The delivery ids have GitHub's UUID form (the App refuses others) and
// are the same for the same name: a redelivery reuses its id.
func TestUUID(t *testing.T) {
	form := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	for _, name := range []string{"", "d-1", "d-2"} {
		if id := uuid(name); !form.MatchString(id) || id != uuid(name) {
			t.Errorf("uuid(%q) = %q", name, id)
		}
	}
	if uuid("d-1") == uuid("d-2") {
		t.Error("two names, one id")
	}
}

// pullBody sets the fields the App reads from a synchronize payload.
func TestPullBody(t *testing.T) {
	raw := []byte(`{"repository":{"owner":{}},"pull_request":{"head":{"repo":{}},"base":{"repo":{}},"user":{}}}`)
	b, err := pullBody(raw, "synchronize", 7, "h1", "b1", "http://git", 3)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Action string `json:"action"`
		Number int    `json:"number"`
		Repo   struct {
			FullName string `json:"full_name"`
			CloneURL string `json:"clone_url"`
		} `json:"repository"`
		PR struct {
			Head struct{ SHA string }      `json:"head"`
			Base struct{ SHA, Ref string } `json:"base"`
			User struct{ Login string }    `json:"user"`
		} `json:"pull_request"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if p.Action != "synchronize" || p.Number != 7 || p.Repo.FullName != full || p.Repo.CloneURL != "http://git/"+repoName ||
		p.PR.Head.SHA != "h1" || p.PR.Base.SHA != "b1" || p.PR.Base.Ref != "main" || p.PR.User.Login != "dev" {
		t.Errorf("payload %s", b)
	}
}

// makeRepo makes n heads, each a commit on the base with its own file.
func TestMakeRepo(t *testing.T) {
	dir := t.TempDir()
	base, heads, err := makeRepo(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(heads) != 3 || base == "" {
		t.Fatalf("base %q heads %v", base, heads)
	}
	r := gitx.Repo{Dir: dir}
	for i, h := range heads {
		data, ok, err := r.ReadFile(context.Background(), h, "templates/a/test.sh")
		if err != nil || !ok || string(data) != "echo head "+string(rune('0'+i))+"\n" {
			t.Errorf("head %d: %q %v %v", i, data, ok, err)
		}
	}
}
