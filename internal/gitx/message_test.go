package gitx_test

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/formula-code/template-verify/internal/gitx"
)

// TestCleanMessageIsGits compares CleanMessage with git stripspace, the
// clean-up git commit -m and -F apply; a message git leaves empty is an
// error.
func TestCleanMessageIsGits(t *testing.T) {
	for _, msg := range []string{
		"one line",
		"one line\n",
		"\n\n  title  \t\n\n\n\nbody\n  indented\t \n\n\n",
		"title\r\n\r\nbody\r\n",
		"form feed\f\nvertical tab\v\n",
		"# not a comment here\n\n",
		"   \n\t\n",
		"a\n\n\nb\n\n\nc",
	} {
		cmd := exec.Command("git", "stripspace")
		cmd.Env = gitx.Env()
		cmd.Stdin = bytes.NewReader([]byte(msg))
		want, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		got, err := gitx.CleanMessage(msg)
		if len(want) == 0 {
			if err == nil {
				t.Errorf("CleanMessage(%q) = %q, want an error: git leaves it empty", msg, got)
			}
			continue
		}
		if err != nil || got != string(want) {
			t.Errorf("CleanMessage(%q) = %q, %v; git stripspace gives %q", msg, got, err, want)
		}
	}
}
