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

// TestReleaseAttachesBinaries: the release workflow builds the CLI for
// linux amd64 and arm64 (at least) with the version and the revision
// (-X main.revision), checks that the built binary names its revision,
// writes SHA256SUMS of the binaries, and publishes them on the tag's
// GitHub release.
func TestReleaseAttachesBinaries(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(".github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string
				Run  string
			}
		}
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	var build, publish string
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			switch {
			case strings.Contains(s.Run, "go build") && strings.Contains(s.Run, "./cmd/template-verify"):
				build = s.Run
			case strings.Contains(s.Run, "gh release create"):
				publish = s.Run
			}
		}
	}
	if build == "" {
		t.Fatal("release.yml has no step that builds ./cmd/template-verify")
	}
	for _, want := range []string{"linux/amd64", "linux/arm64", "-X main.revision=$GITHUB_SHA", "-X main.version=v$VERSION", "CGO_ENABLED=0", "sha256sum", "SHA256SUMS", `version | tee /dev/stderr | grep -q "revision ${GITHUB_SHA:0:12}"`} {
		if !strings.Contains(build, want) {
			t.Errorf("the binaries' build step lacks %q:\n%s", want, build)
		}
	}
	if publish == "" {
		t.Fatal("release.yml publishes no GitHub release")
	}
	for _, want := range []string{`"v$VERSION"`, "dist/template-verify-*", "dist/SHA256SUMS", "--verify-tag"} {
		if !strings.Contains(publish, want) {
			t.Errorf("the release step lacks %q:\n%s", want, publish)
		}
	}
	if strings.Index(string(data), "gh release create") < strings.Index(string(data), "git push origin \"refs/tags/v$VERSION\"") {
		t.Error("the release is created before its tag is pushed")
	}
}
