package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/app"
	"github.com/formula-code/template-verify/internal/fakegithub"
)

// github records check runs and comments through the fake GitHub's REST
// API, as the replicas do, so that the count reads what it records.
type github struct {
	t  *testing.T
	gh *fakegithub.Server
}

func (g github) do(method, path string, body any) map[string]any {
	g.t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		g.t.Fatal(err)
	}
	req, err := http.NewRequest(method, g.gh.URL+path, bytes.NewReader(b))
	if err != nil {
		g.t.Fatal(err)
	}
	req.Header.Set("Authorization", "token demo")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode >= 300 {
		g.t.Fatalf("%s %s: %d %v %v", method, path, resp.StatusCode, out, err)
	}
	return out
}

// run makes a check run on head and, unless status is open, completes
// it with conclusion.
func (g github) run(head, name, conclusion string) {
	g.t.Helper()
	c := g.do(http.MethodPost, "/repos/"+full+"/check-runs", map[string]any{"name": name, "head_sha": head, "status": "in_progress"})
	if conclusion == "open" {
		return
	}
	g.do(http.MethodPatch, fmt.Sprintf("/repos/%s/check-runs/%v", full, c["id"]), map[string]any{
		"name": name, "status": "completed", "conclusion": conclusion,
		"output": map[string]any{"title": "t " + conclusion, "summary": "s " + conclusion},
	})
}

// set is one verification's publication: the App's run, the render
// check's and the gate's, each completed with conclusion.
func (g github) set(head, conclusion string) {
	for _, n := range []string{app.RunName, "template-verify / render", gateName} {
		g.run(head, n, conclusion)
	}
}

func (g github) comment(pr int) {
	g.do(http.MethodPost, fmt.Sprintf("/repos/%s/issues/%d/comments", full, pr), map[string]any{"body": "template-verify: passed"})
}

// The count finds each kind of fault in a recorded fake-GitHub state: a
// clean state of two pull requests (each a superseded head cancelled
// and a final head published once) with one fault added. A counter that
// missed one would print 0 for it and pass.
func TestCount(t *testing.T) {
	const (
		old0, fin0 = "0000000000000000000000000000000000000a00", "0000000000000000000000000000000000000f00"
		old1, fin1 = "0000000000000000000000000000000000000a01", "0000000000000000000000000000000000000f01"
	)
	clean := "heads 2, verified once 2, second check-run sets 0, second gates 0, second comments 0, left open 0, false failures 0, lost 0"
	for _, tc := range []struct {
		name     string
		fault    func(g github)
		verified map[string]int // the stub's finished verifications, when not once a final head
		want     string
	}{
		{"clean", func(github) {}, nil, clean},
		{"a second set of check runs", func(g github) { g.set(fin1, "success") }, nil,
			"heads 2, verified once 1, second check-run sets 1, second gates 1, second comments 0, left open 0, false failures 0, lost 0"},
		{"a second check's run alone", func(g github) { g.run(fin1, "template-verify / render", "success") }, nil,
			"heads 2, verified once 1, second check-run sets 1, second gates 0, second comments 0, left open 0, false failures 0, lost 0"},
		{"a second App run alone", func(g github) { g.run(fin0, app.RunName, "success") }, nil,
			"heads 2, verified once 1, second check-run sets 1, second gates 0, second comments 0, left open 0, false failures 0, lost 0"},
		{"a second gate", func(g github) { g.run(fin0, gateName, "success") }, nil,
			"heads 2, verified once 1, second check-run sets 0, second gates 1, second comments 0, left open 0, false failures 0, lost 0"},
		{"a second comment", func(g github) { g.comment(101) }, nil,
			"heads 2, verified once 1, second check-run sets 0, second gates 0, second comments 1, left open 0, false failures 0, lost 0"},
		{"a superseded head's run left open", func(g github) { g.run(old0, "template-verify / render", "open") }, nil,
			"heads 2, verified once 2, second check-run sets 0, second gates 0, second comments 0, left open 1, false failures 0, lost 0"},
		{"a superseded head failed", func(g github) { g.run(old1, gateName, "failure") }, nil,
			"heads 2, verified once 2, second check-run sets 0, second gates 0, second comments 0, left open 0, false failures 1, lost 0"},
		{"a verified head concluded failure in a second set", func(g github) { g.set(fin0, "failure") }, nil,
			"heads 2, verified once 1, second check-run sets 1, second gates 1, second comments 0, left open 0, false failures 1, lost 0"},
		{"verified twice", func(github) {}, map[string]int{fin0: 2, fin1: 1},
			"heads 2, verified once 1, second check-run sets 0, second gates 0, second comments 0, left open 0, false failures 0, lost 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := github{t: t, gh: fakegithub.New(t)}
			g.gh.AddPull(full, fakegithub.Pull{Number: 100, HeadSHA: fin0, HeadRef: "f0", BaseRef: "main", Author: "dev"})
			g.gh.AddPull(full, fakegithub.Pull{Number: 101, HeadSHA: fin1, HeadRef: "f1", BaseRef: "main", Author: "dev"})
			g.run(old0, app.RunName, "cancelled")
			g.run(old1, app.RunName, "cancelled")
			g.set(fin0, "success")
			g.set(fin1, "success")
			g.comment(100)
			g.comment(101)
			tc.fault(g)
			verified := tc.verified
			if verified == nil {
				verified = map[string]int{fin0: 1, fin1: 1}
			}
			got := count(record{
				runs:     g.gh.CheckRuns(),
				comments: map[int][]fakegithub.Comment{100: g.gh.Comments(full, 100), 101: g.gh.Comments(full, 101)},
				pulls:    map[string]int{old0: 100, fin0: 100, old1: 101, fin1: 101},
				finals:   map[string]bool{fin0: true, fin1: true},
				verified: verified,
			})
			if got.line() != tc.want {
				t.Errorf("count\n got %s\nwant %s\nnotes:\n%s", got.line(), tc.want, strings.Join(got.notes, "\n"))
			}
			if got.ok() != (tc.want == clean) {
				t.Errorf("ok() = %v for %s", got.ok(), got.line())
			}
		})
	}
}

// A final head with no verdict is lost: its App run queued (left open),
// or only cancelled, or never made.
func TestCountLost(t *testing.T) {
	const fin = "0000000000000000000000000000000000000f00"
	for _, tc := range []struct {
		name string
		make func(g github)
		want string
	}{
		{"queued", func(g github) { g.run(fin, app.RunName, "open") },
			"heads 1, verified once 0, second check-run sets 0, second gates 0, second comments 0, left open 1, false failures 0, lost 1"},
		{"cancelled", func(g github) { g.run(fin, app.RunName, "cancelled") },
			"heads 1, verified once 0, second check-run sets 0, second gates 0, second comments 0, left open 0, false failures 0, lost 1"},
		{"never made", func(github) {},
			"heads 1, verified once 0, second check-run sets 0, second gates 0, second comments 0, left open 0, false failures 0, lost 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := github{t: t, gh: fakegithub.New(t)}
			tc.make(g)
			got := count(record{runs: g.gh.CheckRuns(), pulls: map[string]int{fin: 100}, finals: map[string]bool{fin: true}, verified: map[string]int{fin: 1}})
			if got.line() != tc.want || got.ok() {
				t.Errorf("count\n got %s (ok %v)\nwant %s", got.line(), got.ok(), tc.want)
			}
		})
	}
}

// The stubs' record counts the verifications that ran to the end; a
// start without its done (a kill during the pace) does not count.
func TestStubRecord(t *testing.T) {
	file := t.TempDir() + "/stub.log"
	for _, l := range []string{"start 0 aaa", "start 1 bbb", "done 0 aaa", "start 2 bbb", "done 2 bbb", "start 0 aaa", "done 0 aaa"} {
		if err := appendLine(file, l); err != nil {
			t.Fatal(err)
		}
	}
	done, lines, err := stubRecord(file)
	if err != nil {
		t.Fatal(err)
	}
	if done["aaa"] != 2 || done["bbb"] != 1 || len(lines) != 7 || lines[1] != (stubLine{"start", 1, "bbb"}) {
		t.Errorf("done %v, lines %v", done, lines)
	}
}
