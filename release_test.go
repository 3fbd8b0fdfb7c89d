package templateverify

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestReleaseBuildsCarryTheRevision: the image's Go build has no .git
// (the Dockerfile builds with -buildvcs=false from a copy), so the
// Dockerfile passes its REVISION argument to -X main.revision, and the
// release workflow gives the commit it builds as REVISION. Without them
// "template-verify version" in the released image says "revision unknown".
func TestReleaseBuildsCarryTheRevision(t *testing.T) {
	t.Parallel()
	docker, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^ARG REVISION\b`).Match(docker) {
		t.Error("the Dockerfile has no ARG REVISION")
	}
	if !regexp.MustCompile(`go build [^\n]*(\\\n[^\n]*)*-X main\.revision=\$\{REVISION\}`).Match(docker) {
		t.Error("the Dockerfile's go build does not set -X main.revision=${REVISION}")
	}
	data, err := os.ReadFile(".github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string
				With map[string]string
			}
		}
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if !strings.HasPrefix(s.Uses, "docker/build-push-action@") {
				continue
			}
			found = true
			args := strings.Split(strings.TrimSpace(s.With["build-args"]), "\n")
			for i := range args {
				args[i] = strings.TrimSpace(args[i])
			}
			if !slices.Contains(args, "REVISION=${{ github.sha }}") {
				t.Errorf("the release's image build passes build-args %q, without REVISION=${{ github.sha }}", s.With["build-args"])
			}
		}
	}
	if !found {
		t.Error("release.yml builds no image with docker/build-push-action")
	}
}
