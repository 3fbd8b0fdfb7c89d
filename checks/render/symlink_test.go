package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/plan"
)

// TestSymlinkAndEscapes: a template that is a symbolic link is a failure
// and is never followed; include, import and extends with "..", an
// absolute path or a symbolic link read nothing outside the template tree.
func TestSymlinkAndEscapes(t *testing.T) {
	t.Setenv("TV_FAKE_SECRET", "s3cr3t-value")
	in := inputWithLinks(t, map[string]string{"tpl/good.txt": "good\n"}, map[string]string{
		"tpl/inc_parent.txt":    "{% include '../../../../../../etc/passwd' %}\n",
		"tpl/inc_abs.txt":       "{% include '/etc/passwd' %}\n",
		"tpl/inc_link.txt":      "{% include 'environ.txt' %}\n",
		"tpl/import_parent.txt": "{% import '../secret.j2' as s %}\n",
		"tpl/extends_abs.txt":   "{% extends '/proc/self/environ' %}\n",
	}, map[string]string{"tpl/environ.txt": "/proc/self/environ", "tpl/up.txt": "../../../../etc/passwd"})
	res := runCheck(t, in, true)
	text := findingsText(res)
	for _, ch := range res.Changes {
		text += ch.Diff
	}
	if strings.Contains(text, "s3cr3t-value") || strings.Contains(text, "root:x:0:0") {
		t.Fatalf("a file outside the template tree was read:\n%s", text)
	}
	want := map[string]string{
		"tpl/environ.txt":       "is a symbolic link (git mode 120000) to \"/proc/self/environ\"",
		"tpl/up.txt":            "is a symbolic link (git mode 120000) to \"../../../../etc/passwd\"",
		"tpl/inc_parent.txt":    "not found",
		"tpl/inc_abs.txt":       "not found",
		"tpl/inc_link.txt":      "not found",
		"tpl/import_parent.txt": "not found",
		"tpl/extends_abs.txt":   "not found",
	}
	for file, msg := range want {
		found := false
		for _, f := range res.Findings {
			if f.Path == file && f.Level == checks.LevelFailure && strings.Contains(f.Message, msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("no failure finding for %s with %q:\n%s", file, msg, findingsText(res))
		}
	}
}

// inputWithLinks is input with symbolic links (name -> target) added at head.
func inputWithLinks(t *testing.T, base, head, links map[string]string) *checks.Input {
	t.Helper()
	return inputConfig(t, testConfig, base, head, links)
}

// inputConfig is inputWithLinks with another config.
func inputConfig(t *testing.T, cfgText string, base, head, links map[string]string) *checks.Input {
	t.Helper()
	r := gittest.New(t)
	r.Write(map[string]string{".github/template-verify.yml": cfgText})
	r.Write(base)
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	r.Write(head)
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(r.Dir(), name)); err != nil {
			t.Fatal(err)
		}
	}
	r.Git("add", "-A")
	r.Commit("head")
	cfg, err := config.Decode(".github/template-verify.yml", []byte(cfgText))
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Build(context.Background(), r.Repo, cfg, "main", "pr")
	if err != nil {
		t.Fatal(err)
	}
	return &checks.Input{Repo: r.Dir(), Plan: p, Config: cfg, WorkDir: t.TempDir()}
}
