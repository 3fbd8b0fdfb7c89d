package render

import (
	"maps"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
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
	head = maps.Clone(head)
	if head == nil {
		head = map[string]string{}
	}
	for name, target := range links {
		head[name] = checktest.Link(target)
	}
	r := checktest.Repo(t, checktest.WithConfig(base, cfgText), head)
	return checktest.Input(t, r.Repo, checktest.Base, checktest.Head, checktest.Config(t, cfgText), nil)
}
