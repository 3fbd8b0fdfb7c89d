package app

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecodeEvent: any body and event give a job or an error, never a
// panic, and a job always names its repository and installation.
func FuzzDecodeEvent(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixturesDir, "*", "*.json"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(filepath.Base(filepath.Dir(file)), b)
		}
	}
	f.Fuzz(func(t *testing.T, event string, body []byte) {
		j, err := decodeEvent(event, body)
		if err != nil {
			if j != nil {
				t.Fatal("a job with an error")
			}
			return
		}
		if j.Owner == "" || j.Repo == "" || j.Installation <= 0 {
			t.Fatalf("incomplete job %+v", j)
		}
		if j.Event == "pull_request" && (j.PR <= 0 || j.HeadSHA == "") {
			t.Fatalf("pull request job without number or head: %+v", j)
		}
		if j.Event == "issue_comment" && !j.Request {
			t.Fatalf("comment job that is not a request: %+v", j)
		}
	})
}

// FuzzParseCommand: a body that has the command on its own first line
// always counts; the parser never panics.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/template-verify", "> /template-verify", "```\n/template-verify\n```", "x /template-verify", "/template-verify run"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		got := parseCommand(body)
		if parseCommand(CommandWord+"\n"+body) != true {
			t.Fatal("the command on the first line did not count")
		}
		if !got && parseCommand(body+"\n") {
			t.Fatal("a trailing newline changed the answer")
		}
	})
}
