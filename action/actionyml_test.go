package action

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/publish"
)

// imageRE is the prebuilt image: by the major tag on main, by digest on
// a release commit (.github/workflows/release.yml).
var imageRE = regexp.MustCompile(`^docker://ghcr\.io/formula-code/template-verify(:v[0-9]+|@sha256:[0-9a-f]{64})$`)

// TestActionYAML keeps action.yml and the code in step: the same inputs
// with the same defaults, the same outputs, and the Docker entry.
func TestActionYAML(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Name   string
		Inputs map[string]struct {
			Description string
			Default     string
		}
		Outputs map[string]struct{ Description string }
		Runs    struct {
			Using string
			Image string
			Args  []string
		}
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	var read []string
	if _, err := readInputs(func(k string) string { read = append(read, k); return "" }); err != nil {
		t.Fatal(err)
	}
	var declared []string
	for k, in := range a.Inputs {
		declared = append(declared, k)
		if in.Description == "" {
			t.Errorf("input %s has no description", k)
		}
	}
	sort.Strings(read)
	sort.Strings(declared)
	if fmt.Sprint(read) != fmt.Sprint(declared) {
		t.Errorf("inputs read %v, declared %v", read, declared)
	}
	for k, want := range map[string]string{"fail-on": DefaultFailOn, "config": config.Path, "comment-mode": string(publish.DefaultCommentMode), "report": "", "github-token": "${{ github.token }}"} {
		if got := a.Inputs[k].Default; got != want {
			t.Errorf("input %s default %q, want %q", k, got, want)
		}
	}
	outs := []string{"conclusion", "comment-url", "report-json"}
	for k, o := range a.Outputs {
		if !slices.Contains(outs, k) || o.Description == "" {
			t.Errorf("output %s", k)
		}
	}
	if len(a.Outputs) != len(outs) {
		t.Errorf("outputs %v, want %v", a.Outputs, outs)
	}
	if a.Runs.Using != "docker" || !imageRE.MatchString(a.Runs.Image) || fmt.Sprint(a.Runs.Args) != "[action]" {
		t.Errorf("runs %+v", a.Runs)
	}
}
