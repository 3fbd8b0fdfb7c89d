package render

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/shparse"
)

// TestPyValuesRule pins the rule of the rendered-value lint: which words
// of a rendered script are Python values.
func TestPyValuesRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		script string
		want   []string // "line what word"
	}{
		{"python run.py --rounds None\n", []string{"1 None None"}},
		{"python run.py --rounds=None --quick True\n", []string{"1 None --rounds=None", "1 True True"}},
		{"ROUNDS=None\nexport FLAG=\"False\"\n", []string{"1 None None", "2 False \"False\""}},
		{"run --only ['tests/a.py', 'tests/b.py']\n", []string{"1 a Python list ['tests/a.py',"}},
		{"run --env \"{'A': 1}\" --x \"['a']\"\n", []string{"1 a Python dict \"{'A': 1}\"", "1 a Python list \"['a']\""}},
		{"x=$(echo None)\n", []string{"1 None None"}},
		{"if [ \"$R\" = None ]; then :; fi\n", []string{"1 None None"}},
		// Text, not values.
		{"echo \"rounds: None\"\n", nil},
		{"echo \"$R None\" ${R:+set}\n", nil},
		{"# rounds None\necho ok  # None\n", nil},
		{"python - <<'EOF'\nx = None\ny = ['a']\nEOF\n", nil},
		{"jq -n '{\"a\": 1}' --argjson l '[\"a\"]'\n", nil},
		{"echo [\"a\", \"b\"] NoneType Nonesuch\n", nil},
		{"[ -n \"$x\" ] && [[ $y == z ]]\n", nil},
	}
	for _, tc := range cases {
		vals, err := pyValues(tc.script)
		if err != nil {
			t.Errorf("%q does not parse: %v", tc.script, err)
			continue
		}
		var got []string
		for _, v := range vals {
			got = append(got, strings.Join([]string{strconv.Itoa(v.line), v.what, v.word}, " "))
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("pyValues(%q) = %q, want %q", tc.script, got, tc.want)
		}
	}
	if _, err := pyValues("if then fi (\n"); err == nil {
		t.Error("a script that does not parse is ok")
	}
}

// pyConfig gives rounds production's values, None among them.
const pyConfig = `version: 1
groups:
  - name: t
    root: tpl
    jinja: {strict_undefined: true, keep_trailing_newline: true}
    matrix: {rounds: [5, null]}
    templates:
      - path: "**"
`

// TestRenderedNoneFails is datasmith 00a1bbe's shape: the template writes
// `--rounds {{ rounds }}` unguarded, production passes rounds=None, and
// bash -n accepts `--rounds None`. The base guards it.
func TestRenderedNoneFails(t *testing.T) {
	t.Parallel()
	needJinja2(t)
	guarded := "#!/usr/bin/env bash\nset -e\n{% if rounds is not none %}python bench.py --rounds {{ rounds }}\n{% else %}python bench.py\n{% endif %}echo done\n"
	unguarded := "#!/usr/bin/env bash\nset -e\npython bench.py --rounds {{ rounds }}\necho done\n"
	cases := []struct {
		name       string
		base, head string
		want       checks.Conclusion
		level      checks.Level
		title      string
	}{
		{"the PR drops the guard", guarded, unguarded, checks.Failure, checks.LevelFailure, "Python value in the rendered script (rounds=null)"},
		{"the base has the same word", unguarded, unguarded + "echo more\n", checks.Success, checks.LevelWarning, "Python value in the rendered script: fails before this change (rounds=null)"},
		{"a list joined at the base, its repr at head",
			"#!/usr/bin/env bash\nrun {{ ['a.py', 'b.py'] | join(' ') }}\n", "#!/usr/bin/env bash\nrun {{ ['a.py', 'b.py'] }}\n",
			checks.Failure, checks.LevelFailure, "Python value in the rendered script (in all 2 variable sets)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := inputConfig(t, pyConfig, map[string]string{"tpl/run.sh": tc.base}, map[string]string{"tpl/run.sh": tc.head}, nil)
			res := runCheck(t, in, true)
			if res.Conclusion != tc.want {
				t.Fatalf("conclusion %s, want %s: %s\n%s", res.Conclusion, tc.want, res.Title, findingsText(res))
			}
			var f *checks.Finding
			for i := range res.Findings {
				if strings.HasPrefix(res.Findings[i].Title, "Python value") {
					f = &res.Findings[i]
				}
			}
			if f == nil {
				t.Fatalf("no Python value finding:\n%s", findingsText(res))
			}
			if f.Level != tc.level || f.Title != tc.title || f.Path != "tpl/run.sh" || f.Line != 3 && f.Line != 2 {
				t.Errorf("finding %s %q at %s:%d, want %s %q", f.Level, f.Title, f.Path, f.Line, tc.level, tc.title)
			}
			if len(res.Findings) != 1 {
				t.Errorf("findings:\n%s", findingsText(res))
			}
		})
	}
}

// TestRenderedNoneNamesTheTemplateLine: the finding names the template
// line and its expression, not the rendered line.
func TestRenderedNoneNamesTheTemplateLine(t *testing.T) {
	t.Parallel()
	needJinja2(t)
	head := "#!/usr/bin/env bash\n{% if rounds %}\n# timed\n{% endif %}\necho start\npython bench.py \\\n  --rounds {{ rounds }}\n"
	in := inputConfig(t, pyConfig, map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\necho start\n"}, map[string]string{"tpl/run.sh": head}, nil)
	res := runCheck(t, in, true)
	if res.Conclusion != checks.Failure || len(res.Findings) != 1 {
		t.Fatalf("conclusion %s, findings:\n%s", res.Conclusion, findingsText(res))
	}
	f := res.Findings[0]
	if f.Line != 7 || !strings.Contains(f.Message, "line 5 of the rendered script, from {{ rounds }}") || !strings.Contains(f.Details, "> ") {
		t.Errorf("finding at line %d: %s\n%s", f.Line, f.Message, f.Details)
	}
}

// TestLiteralNoneInTemplateIsText: a None the template writes as text is
// the author's, not a rendered value.
func TestLiteralNoneInTemplateIsText(t *testing.T) {
	t.Parallel()
	needJinja2(t)
	head := "#!/usr/bin/env bash\necho None {{ rounds is none }}\n"
	in := inputConfig(t, pyConfig, map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\n"}, map[string]string{"tpl/run.sh": head}, nil)
	res := runCheck(t, in, true)
	// `echo None False` and `echo None True`: the booleans come from the
	// expression, None from the text.
	text := findingsText(res)
	if res.Conclusion != checks.Failure || len(res.Findings) != 2 || !strings.Contains(text, "`True`") || !strings.Contains(text, "`False`") || strings.Contains(text, "`None`") {
		t.Fatalf("conclusion %s, findings:\n%s", res.Conclusion, text)
	}
}

// TestPyValuesMillionLevels: the value lint refuses a million levels of
// $( ) with a *shparse.LimitError. Before internal/shparse, mvdan.cc/sh
// parsed it and the test binary died with "fatal error: stack overflow".
func TestPyValuesMillionLevels(t *testing.T) {
	t.Parallel()
	n := 1_000_000
	_, err := pyValues("#!/usr/bin/env bash\necho " + strings.Repeat("$( ", n) + "x" + strings.Repeat(" )", n) + "\n")
	if !shparse.IsLimit(err) || !strings.Contains(err.Error(), "nests more than 200 levels deep at line 2") {
		t.Fatalf("pyValues: %v, want the shell reader's depth limit at line 2", err)
	}
}

// TestRenderedDeepScriptIsAFinding: a template that renders 300 levels
// of $( ) is a failure finding that names the shell reader's limit (a
// million levels stop the render first, at limits.render_memory). Before
// internal/shparse the lint parsed it and found nothing.
func TestRenderedDeepScriptIsAFinding(t *testing.T) {
	t.Parallel()
	needJinja2(t)
	head := "#!/usr/bin/env bash\necho {% for i in range(300) %}$( {% endfor %}x{% for i in range(300) %} ){% endfor %}\n"
	in := inputConfig(t, pyConfig, map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\necho ok\n"}, map[string]string{"tpl/run.sh": head}, nil)
	res := runCheck(t, in, true)
	var f *checks.Finding
	for i := range res.Findings {
		if strings.HasPrefix(res.Findings[i].Title, "The rendered script is past the shell reader's limits") {
			f = &res.Findings[i]
		}
	}
	if f == nil || res.Conclusion != checks.Failure {
		t.Fatalf("conclusion %s, no shell-reader limit finding:\n%s", res.Conclusion, findingsText(res))
	}
	if f.Level != checks.LevelFailure || !strings.Contains(f.Message, "nests more than 200 levels deep at line 2") {
		t.Errorf("finding %s: %s", f.Level, f.Message)
	}
}

// FuzzRenderShellReaders: no rendered script crashes the value lint or
// the reader that names a syntax error's line.
func FuzzRenderShellReaders(f *testing.F) {
	f.Add("#!/usr/bin/env bash\necho " + strings.Repeat("$( ", 3000) + "x" + strings.Repeat(" )", 3000) + "\n")
	f.Add("x=None\n" + strings.Repeat("x=$x$x\n", 40) + "run --rounds None $x\n")
	f.Add("a=(None)\n" + strings.Repeat("a+=(\"${a[@]}\")\n", 40) + "run ['a', None]\n")
	f.Add("if [ x ]; then\n" + strings.Repeat("(", 500) + "\n")
	f.Fuzz(func(t *testing.T, script string) {
		pyValues(script)
		openerLine(script)
	})
}
