package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
)

const tarPath = "data/tasks-00000.tar"

// fixture commits base and head archives and returns the check's input.
func fixture(t *testing.T, cfg *config.Config, files func(r *gittest.Repo, head bool)) *checks.Input {
	t.Helper()
	r := gittest.New(t)
	r.Write(map[string]string{"README.md": "datasets\n"})
	files(r, false)
	base := r.Commit("base")
	files(r, true)
	head := r.Commit("head")
	return checktest.Input(t, r.Repo, base, head, cfg, nil)
}

func writeBytes(t *testing.T, r *gittest.Repo, path string, data []byte) {
	t.Helper()
	full := filepath.Join(r.Dir(), path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// lfs stores data as a Git LFS object of the repository and writes its
// pointer at path; store false leaves the object out, as a clone without
// lfs: true does.
func lfs(t *testing.T, r *gittest.Repo, path string, data []byte, store bool) {
	t.Helper()
	sum := sha256.Sum256(data)
	oid := hex.EncodeToString(sum[:])
	if store {
		obj := filepath.Join(r.Dir(), ".git", "lfs", "objects", oid[:2], oid[2:4], oid)
		writeBytes(t, r, strings.TrimPrefix(obj, r.Dir()+"/"), data)
	}
	writeBytes(t, r, path, fmt.Appendf(nil, "version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n", oid, len(data)))
}

func TestCheck(t *testing.T) {
	t.Parallel()
	broken := func(es []entry) []entry {
		es[0].body += "if [ -n \"$x\" ]; then\n" // no fi
		return es
	}
	tests := []struct {
		name        string
		cfg         func(c *config.Config)
		pre         string // pre_existing
		files       func(t *testing.T, r *gittest.Repo, head bool)
		want        checks.Conclusion
		title       string
		summary     []string
		findings    map[checks.Level]int
		findingText string
	}{
		{
			name: "a dataset edit: every test.sh gets one edit",
			files: func(t *testing.T, r *gittest.Repo, head bool) {
				writeBytes(t, r, tarPath, makeTar(t, dataset(9, 2, 10, head), false))
			},
			want:     checks.Success,
			title:    "9 members changed, 1 distinct diff after masking",
			summary:  []string{"the same 27 members at base and head in the same order with the same mode/mtime/owner", "9 members changed (all `test.sh`), 1 distinct diff after masking.", "No other member of the archive changed.", "Every changed shell member passes `bash -n` (9)."},
			findings: map[checks.Level]int{checks.LevelNotice: 1},
		},
		{
			name: "in Git LFS, gzipped",
			files: func(t *testing.T, r *gittest.Repo, head bool) {
				lfs(t, r, "data/tasks-00001.tar.gz", makeTar(t, dataset(4, 1, 10, head), true), true)
			},
			want:  checks.Success,
			title: "4 members changed, 1 distinct diff after masking",
		},
		{
			name: "the Git LFS object is not in the clone",
			files: func(t *testing.T, r *gittest.Repo, head bool) {
				lfs(t, r, tarPath, makeTar(t, dataset(4, 1, 10, head), false), !head)
			},
			want:  checks.NotRun,
			title: "An archive could not be read",
		},
		{
			name: "a changed test.sh fails bash -n",
			files: func(t *testing.T, r *gittest.Repo, head bool) {
				es := dataset(3, 1, 10, head)
				if head {
					es = broken(es)
				}
				writeBytes(t, r, tarPath, makeTar(t, es, false))
			},
			want:        checks.Failure,
			findings:    map[checks.Level]int{checks.LevelFailure: 1, checks.LevelNotice: 2},
			findingText: "bash -n rejects tasks/owner__repo-0/tests/test.sh at line 26: syntax error: unexpected end of file",
		},
		{
			name: "bash -n fails before this change",
			files: func(t *testing.T, r *gittest.Repo, head bool) {
				writeBytes(t, r, tarPath, makeTar(t, broken(dataset(3, 1, 10, head)), false))
			},
			want:        checks.Success,
			findings:    map[checks.Level]int{checks.LevelWarning: 1, checks.LevelNotice: 1},
			findingText: "The base's member fails the same way",
		},
		{
			name: "bash -n fails before this change, pre_existing: fail",
			pre:  config.PreExistingFail,
			files: func(t *testing.T, r *gittest.Repo, head bool) {
				writeBytes(t, r, tarPath, makeTar(t, broken(dataset(3, 1, 10, head)), false))
			},
			want:     checks.Failure,
			findings: map[checks.Level]int{checks.LevelFailure: 1, checks.LevelNotice: 1},
		},
		{
			name: "a member's mode and mtime change",
			files: func(t *testing.T, r *gittest.Repo, head bool) {
				es := dataset(3, 1, 10, false)
				if head {
					es[1].mode = 0o600
					es[3].mtime = epoch.AddDate(1, 0, 0)
				}
				writeBytes(t, r, tarPath, makeTar(t, es, false))
			},
			want:        checks.Failure,
			findings:    map[checks.Level]int{checks.LevelFailure: 2},
			findingText: "1 member changes its mode. Example: tasks/owner__repo-0/file0.txt, 0644 -> 0600.",
		},
		{
			name: "archive.allow makes a mode change a warning",
			cfg:  func(c *config.Config) { c.Archive.Allow = []string{"mode"} },
			files: func(t *testing.T, r *gittest.Repo, head bool) {
				es := dataset(3, 1, 10, false)
				if head {
					es[1].mode = 0o600
				}
				writeBytes(t, r, tarPath, makeTar(t, es, false))
			},
			want:     checks.Success,
			findings: map[checks.Level]int{checks.LevelWarning: 1},
			summary:  []string{"in the same order with the same mtime/owner."},
		},
		{
			name: "no archive changed",
			files: func(t *testing.T, r *gittest.Repo, head bool) {
				if head {
					r.Write(map[string]string{"README.md": "other\n", "other/x.tar": "not named by the config"})
				}
			},
			want:  checks.Skipped,
			title: "No archive changed",
		},
		{
			name: "zstd",
			files: func(t *testing.T, r *gittest.Repo, head bool) {
				var z bytes.Buffer
				zw, err := zstd.NewWriter(&z)
				if err != nil {
					t.Fatal(err)
				}
				zw.Write(makeTar(t, dataset(2, 1, 10, head), false))
				zw.Close()
				writeBytes(t, r, "data/tasks.tar.zst", z.Bytes())
			},
			want:  checks.Success,
			title: "2 members changed, 1 distinct diff after masking",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := config.Default()
			cfg.PreExisting = tt.pre
			if tt.cfg != nil {
				tt.cfg(cfg)
			}
			in := fixture(t, cfg, func(r *gittest.Repo, head bool) { tt.files(t, r, head) })
			res := New().Run(context.Background(), in)
			if res.Conclusion != tt.want || tt.title != "" && res.Title != tt.title {
				t.Fatalf("%s %q; want %s %q\nsummary: %s\nfindings: %+v\nnotes: %v", res.Conclusion, res.Title, tt.want, tt.title, res.Summary, res.Findings, res.Notes)
			}
			for _, s := range tt.summary {
				if !strings.Contains(res.Summary, s) {
					t.Errorf("summary lacks %q:\n%s", s, res.Summary)
				}
			}
			if tt.findings != nil {
				got := map[checks.Level]int{}
				for _, f := range res.Findings {
					got[f.Level]++
				}
				if fmt.Sprint(got) != fmt.Sprint(tt.findings) {
					t.Errorf("findings by level %v; want %v: %+v", got, tt.findings, res.Findings)
				}
			}
			if tt.findingText != "" {
				found := false
				for _, f := range res.Findings {
					found = found || strings.Contains(f.Message, tt.findingText)
				}
				if !found {
					t.Errorf("no finding says %q: %+v", tt.findingText, res.Findings)
				}
			}
		})
	}
}

// The head's config cannot hide an archive change: the base's paths still
// count, and a kind is allowed only when the base allows it too.
func TestHeadConfigCannotHideAChange(t *testing.T) {
	t.Parallel()
	head := config.Default()
	head.Archive.Paths = []string{"nothing/*.tar"}
	head.Archive.Allow = []string{"mode"}
	in := fixture(t, head, func(r *gittest.Repo, isHead bool) {
		es := dataset(3, 1, 10, false)
		if isHead {
			es[1].mode = 0o600
		}
		writeBytes(t, r, tarPath, makeTar(t, es, false))
	})
	in.BaseConfig = config.Default()
	if !New().HasWork(in.Plan, in.BaseConfig, in.Config) {
		t.Error("HasWork is false")
	}
	res := New().Run(context.Background(), in)
	if res.Conclusion != checks.Failure {
		t.Fatalf("%s %q: %+v", res.Conclusion, res.Title, res.Findings)
	}
}
