package templateverify

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestReadmeWorkflowIsTheExample: the workflow file of the README's quick
// start is examples/workflows/template-verify.yml without its comments,
// as the README says.
func TestReadmeWorkflowIsTheExample(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "### Workflow file\n")
	if !ok {
		t.Fatal("README.md has no section \"Workflow file\"")
	}
	_, rest, ok = strings.Cut(rest, "```yaml\n")
	block, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("the README's section \"Workflow file\" has no yaml block")
	}
	example, err := os.ReadFile("examples/workflows/template-verify.yml")
	if err != nil {
		t.Fatal(err)
	}
	var inReadme, inExample any
	if err := yaml.Unmarshal([]byte(block), &inReadme); err != nil {
		t.Fatalf("README workflow: %v", err)
	}
	if err := yaml.Unmarshal(example, &inExample); err != nil {
		t.Fatalf("example workflow: %v", err)
	}
	if !reflect.DeepEqual(inReadme, inExample) {
		t.Errorf("the README's workflow differs from examples/workflows/template-verify.yml:\nREADME:  %v\nexample: %v", inReadme, inExample)
	}
}

// workflow is the part of a workflow file that decides the token's
// permissions.
type workflow struct {
	Permissions any
	Jobs        map[string]struct {
		Permissions any
		Steps       []struct {
			Uses string
		}
	}
}

// TestExampleWorkflowsMayCheckOut: a job that runs actions/checkout has
// contents: read. A workflow that lists permissions gets none that it
// does not list, and without contents the checkout of a private
// repository fails.
func TestExampleWorkflowsMayCheckOut(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("examples/workflows/*.yml")
	if err != nil || len(files) < 2 {
		t.Fatalf("example workflows %v: %v", files, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var w workflow
		if err := yaml.Unmarshal(data, &w); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for name, job := range w.Jobs {
			perms := w.Permissions
			if job.Permissions != nil {
				perms = job.Permissions
			}
			for _, s := range job.Steps {
				if strings.HasPrefix(s.Uses, "actions/checkout@") && !mayRead(perms) {
					t.Errorf("%s: job %s runs %s without contents: read (permissions %v)", f, name, s.Uses, perms)
				}
			}
		}
	}
}

// mayRead reports whether a permissions value (nil: the repository's
// default token, a map, or read-all / write-all) lets the token read the
// repository's contents.
func mayRead(perms any) bool {
	switch p := perms.(type) {
	case nil:
		return true
	case string:
		return p == "read-all" || p == "write-all"
	case map[string]any:
		return p["contents"] == "read" || p["contents"] == "write"
	}
	return false
}

func TestMayRead(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		perms any
		want  bool
	}{
		{nil, true},
		{"read-all", true},
		{map[string]any{"checks": "write", "contents": "read"}, true},
		{map[string]any{"checks": "write", "actions": "read"}, false},
		{map[string]any{}, false},
		{map[string]any{"contents": "none"}, false},
	} {
		if got := mayRead(c.perms); got != c.want {
			t.Errorf("mayRead(%v) = %v, want %v", c.perms, got, c.want)
		}
	}
}
