package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeErrorsNameFileAndLine(t *testing.T) {
	cases := []struct {
		name     string
		yaml     string
		wantLine int
		wantMsg  string
	}{
		{"unknown top-level key", "version: 1\ngrups: []\n", 2, `unknown key "grups" (did you mean "groups"?); the keys here are version, groups, restore,`},
		{"unknown nested key", "groups:\n  - name: a\n    root: r\n    templates: [{path: x}]\n    jinja:\n      strict: true\n", 6, `unknown key "strict"`},
		{"wrong type", "version: one\n", 1, "cannot unmarshal"},
		{"wrong type in list", "gate:\n  branches: {a: b}\n", 2, "cannot unmarshal"},
		{"bad duration", "checks:\n  timeouts:\n    render: soon\n", 3, "bad duration"},
		{"bad version", "version: 7\n", 1, "version 7 is not supported"},
		{"group without name", "groups:\n  - root: r\n    templates: [{path: x}]\n", 2, "needs a name"},
		{"duplicate group", "groups:\n  - {name: a, root: r, templates: [{path: x}]}\n  - {name: a, root: s, templates: [{path: x}]}\n", 3, "used twice"},
		{"empty matrix", "groups:\n  - name: a\n    root: r\n    templates:\n      - path: x\n        matrix:\n          k: []\n", 7, "has no values"},
		{"search without the root", "groups:\n  - name: a\n    root: r\n    search: [s, t]\n    templates: [{path: x}]\n", 4, "must hold the root \"r\""},
		{"search folder outside the repository", "groups:\n  - name: a\n    root: r\n    search: [r, ../up]\n    templates: [{path: x}]\n", 4, "not a clean path"},
		{"bad glob", "groups:\n  - name: a\n    root: r\n    templates:\n      - path: \"[\"\n", 5, "not a valid glob"},
		{"bad restore regexp", "restore:\n  template: harbor:tests/test.sh\n  section: {start: a, end: b}\n  patterns:\n    - ok\n    - \"(\"\n", 6, "not a valid regular expression"},
		{"restore without section or command", "restore:\n  template: harbor:tests/test.sh\n", 1, "give a section"},
		{"restore with unknown group", "restore:\n  template: nope:test.sh\n  command: x\n", 2, "names group \"nope\""},
		{"runner without template", "pytest:\n  runner:\n    command: x\n", 2, "needs a template"},
		{"bad pre_existing", "version: 1\npre_existing: ignore\n", 2, "not warn or fail"},
		{"bad refusal_exit", "restore:\n  template: harbor:tests/test.sh\n  command: x\n  refusal_exit: one\n", 4, "not any, zero or nonzero"},
		{"bad fallback", "restore:\n  template: harbor:tests/test.sh\n  command: x\n  fallback: head\n", 4, "not refuse or base_commit"},
		{"bad released glob", "restore:\n  template: harbor:tests/test.sh\n  command: x\n  released: [\"tests/[\"]\n", 4, "restore.released \"tests/[\" is not a path or a valid glob"},
		{"released not a list", "restore:\n  template: harbor:tests/test.sh\n  command: x\n  released: tests/\n", 4, ""},
		{"syntax error", "version: 1\n  bad: indent\n", 2, ""},
		{"top level list", "- a\n- b\n", 1, "must be a mapping"},
		{"tab indentation", "version: 1\ngroups:\n\t- name: a\n", 3, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(".github/template-verify.yml", []byte(tc.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v is not a *config.Error", err, err)
			}
			if ce.File != ".github/template-verify.yml" {
				t.Errorf("file = %q", ce.File)
			}
			if ce.Line != tc.wantLine {
				t.Errorf("line = %d, want %d (%v)", ce.Line, tc.wantLine, err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tc.wantMsg)
			}
			if !strings.HasPrefix(err.Error(), ".github/template-verify.yml:") {
				t.Errorf("error %q does not start with the file name", err)
			}
		})
	}
}

// TestDecodeUnknownKeySuggests: an unknown key at any depth names the
// nearest key of its place and the keys the place takes, and shows no Go
// type name; two unknown keys are both named.
func TestDecodeUnknownKeySuggests(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want string
	}{
		{"gate:\n  branchez: [a]\n", `c.yml:2: unknown key "branchez" (did you mean "branches"?); the keys here are branches (docs/configuration.md)`},
		{"pre_exisitng: warn\n", `c.yml:1: unknown key "pre_exisitng" (did you mean "pre_existing"?)`},
		{"groups:\n  - name: a\n    root: r\n    templates: [{path: x, varz: []}]\n", `unknown key "varz" (did you mean "vars"?)`},
		{"gate:\n  branchez: [a]\nchecks:\n  timeoutz: {}\n", `line 2: unknown key "branchez" (did you mean "branches"?)`},
		{"gate:\n  branchez: [a]\nchecks:\n  timeoutz: {}\n", `line 4: unknown key "timeoutz" (did you mean "timeouts"?)`},
		{"zzzzzz: 1\n", `unknown key "zzzzzz"; the keys here are version,`},
	} {
		_, err := Decode("c.yml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.yaml, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "config.") || strings.Contains(err.Error(), "not found in type") {
			t.Errorf("%q: the error shows a Go type: %v", c.yaml, err)
		}
	}
}

func TestDecodeNotUTF8(t *testing.T) {
	_, err := Decode("c.yml", []byte("version: 1\nx: \xff\xfe\n"))
	if err == nil || !strings.Contains(err.Error(), "c.yml") || !strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("got %v", err)
	}
}

func TestDecodeKeepsDefaultsForKeysNotSet(t *testing.T) {
	cfg, err := Decode("c.yml", []byte("gate:\n  branches: [release/x]\nchecks:\n  timeouts:\n    render: 5s\n"))
	if err != nil {
		t.Fatal(err)
	}
	def := Default()
	if diff := cmp.Diff(def.Groups, cfg.Groups); diff != "" {
		t.Errorf("groups differ from defaults (-want +got):\n%s", diff)
	}
	if got := cfg.Gate.Branches; !cmp.Equal(got, []string{"release/x"}) {
		t.Errorf("branches = %v", got)
	}
	if got := cfg.Timeout("render"); got != 5*time.Second {
		t.Errorf("render timeout = %v", got)
	}
	if got := cfg.Timeout("restore"); got != def.Timeout("restore") {
		t.Errorf("restore timeout = %v, want the default %v", got, def.Timeout("restore"))
	}
	if cfg.Restore == nil || cfg.Restore.Explicit {
		t.Errorf("restore should be the non-explicit default, got %+v", cfg.Restore)
	}
}

func TestDecodeReplacesNamedBlocksWhole(t *testing.T) {
	cfg, err := Decode("c.yml", []byte("restore:\n  template: harbor:tests/test.sh\n  command: ./restore.py\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Restore
	if !r.Explicit {
		t.Error("restore from a file must be explicit")
	}
	if r.Section != nil || len(r.Patterns) != 0 || r.Paths.Repo != "" {
		t.Errorf("restore kept default values it did not name: %+v", r)
	}
}

func TestDecodeEmptyFileIsDefaults(t *testing.T) {
	for _, src := range []string{"", "# only a comment\n"} {
		cfg, err := Decode("c.yml", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if len(cfg.Groups) != 2 {
			t.Errorf("%q: %d groups", src, len(cfg.Groups))
		}
	}
}

func TestDefaultsValidate(t *testing.T) {
	// The defaults go through the same validation as a file.
	cfg, err := Decode("c.yml", []byte("version: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Restore.Template != "harbor:tests/test.sh" {
		t.Errorf("restore template = %q", cfg.Restore.Template)
	}
}

// A file with its own groups keeps the default restore block: the restore
// check looks for the step in those groups, instead of being turned off
// unseen.
func TestOwnGroupsKeepTheRestoreDefault(t *testing.T) {
	cfg, err := Decode("c.yml", []byte("groups:\n  - {name: mine, root: t, templates: [{path: '**'}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Restore == nil || cfg.Restore.Explicit || cfg.Disabled("restore") {
		t.Errorf("default restore block: %+v", cfg.Restore)
	}
	// With a group named harbor the default restore block still applies.
	cfg, err = Decode("c.yml", []byte("groups:\n  - {name: harbor, root: t, templates: [{path: '**'}]}\n"))
	if err != nil || cfg.Restore == nil {
		t.Fatalf("restore %+v err %v", cfg.Restore, err)
	}
}

func TestVerdictSettingsDefaults(t *testing.T) {
	cfg, err := Decode(Path, []byte("pytest:\n  runner:\n    template: harbor:tests/pytest_runner.py\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Pytest.Runner
	got := []string{r.RunCommand(), r.ResultFile(), r.RegressedKey(), r.TestsRanKey(), r.RunEnv()["T_BENCH_TASK_LOGS_PATH"]}
	want := []string{"{python} {runner} --base {base}", "{logs}/test_results.json", "regression.regressed", "results.summary.total", "{logs}"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("runner defaults (-want +got):\n%s", d)
	}
	// datasmith's test.sh falls back to the rendered base_commit when
	// /opt/fc_baseline_sha is absent.
	if cfg.Restore.RefusalExitRule() != RefusalExitAny || !cfg.Restore.FallsBackToBaseCommit() {
		t.Errorf("restore defaults: refusal_exit %q, fallback %q", cfg.Restore.RefusalExitRule(), cfg.Restore.Fallback)
	}
	strict, err := Decode(Path, []byte("pre_existing: fail\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		base, head *Config
		want       bool
	}{
		{"default warns", nil, cfg, false},
		{"head alone", nil, strict, true},
		{"the base decides: the head cannot relax it", strict, cfg, true},
		{"the base decides: the head cannot make it strict", cfg, strict, false},
	}
	for _, c := range cases {
		if got := PreExistingFails(c.base, c.head); got != c.want {
			t.Errorf("%s: PreExistingFails = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRestoreReleasedDecodes: restore.released is a list of paths,
// folders and globs that the head's step may stop protecting.
func TestRestoreReleasedDecodes(t *testing.T) {
	t.Parallel()
	cfg, err := Decode(Path, []byte("restore:\n  template: harbor:tests/test.sh\n  command: x\n  released: [tests/old/, \"benchmarks/*.py\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Restore.Released; len(got) != 2 || got[0] != "tests/old/" || got[1] != "benchmarks/*.py" {
		t.Errorf("released = %q", got)
	}
}
