package render

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

// TestDumpWritesEveryRender: with DumpDir, the check writes each side and
// variable set of each template to SIDE/TEMPLATE/SET, and an index; a
// failed render has an index entry with its error and no file.
func TestDumpWritesEveryRender(t *testing.T) {
	t.Parallel()
	in := input(t, map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\necho {{ name }}\n"},
		map[string]string{"tpl/run.sh": "#!/usr/bin/env bash\necho {{ name }} {{ flag }}\n{% if not flag %}{{ missing }}{% endif %}\n"})
	c := New()
	c.Python = noPython
	dir := t.TempDir()
	DumpTo([]checks.Check{c}, dir)
	res := c.Run(t.Context(), in)
	if res.Conclusion != checks.Failure {
		t.Fatalf("conclusion %s: %s", res.Conclusion, findingsText(res))
	}
	for file, want := range map[string]string{
		"base/tpl/run.sh/flag=true":  "#!/usr/bin/env bash\necho world\n",
		"base/tpl/run.sh/flag=false": "#!/usr/bin/env bash\necho world\n",
		"head/tpl/run.sh/flag=true":  "#!/usr/bin/env bash\necho world True\n\n",
	} {
		got, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", file, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "head/tpl/run.sh/flag=false")); err == nil {
		t.Error("a failed render has a file")
	}
	data, err := os.ReadFile(filepath.Join(dir, DumpIndex))
	if err != nil {
		t.Fatal(err)
	}
	var idx dumpIndex
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	if idx.Engine != "gonja" || len(idx.Renders) != 4 {
		t.Fatalf("index %s", data)
	}
	for _, e := range idx.Renders {
		failed := e.Side == "head" && e.Set == "flag=false"
		if failed != (e.File == "") || failed != strings.Contains(e.Error, "missing") || e.Vars["name"] != "world" || e.Template != "tpl/run.sh" || !e.Jinja["strict_undefined"] {
			t.Errorf("entry %+v", e)
		}
	}
}

func TestDumpNameAndVars(t *testing.T) {
	t.Parallel()
	used := map[string]bool{}
	for _, c := range []struct{ set, want string }{
		{"rounds=5,run_pytest=true", "head/t/a.sh/rounds=5,run_pytest=true"},
		{"default (base config)", "head/t/a.sh/default__base_config_"},
		{"path=a/b c", "head/t/a.sh/path=a_b_c"},
		{"path=a_b c", "head/t/a.sh/path=a_b_c-2"},
		{"..", "head/t/a.sh/..-5ec1f7e700f3"}, // with a hash: never the parent folder
		{"x=ü", "head/t/a.sh/x=_"},
	} {
		got, err := dumpName("head", "t/a.sh", c.set, used)
		if err != nil || got != c.want {
			t.Errorf("dumpName(%q) = %q, %v; want %q", c.set, got, err, c.want)
		}
	}
	if long, _ := dumpName("head", "t/a.sh", strings.Repeat("k", 300), used); len(filepath.Base(long)) > 100 {
		t.Errorf("a long set name stays long: %s", long)
	}
	if _, err := dumpName("head", "../a.sh", "default", used); err == nil {
		t.Error("a template path outside the folder is written")
	}
	data, err := json.Marshal(pyVars(map[string]any{"i": 5, "f": 5.0, "g": 0.5, "n": nil, "l": []any{1.0, "a"}}))
	if err != nil || string(data) != `{"f":5.0,"g":0.5,"i":5,"l":[1.0,"a"],"n":null}` {
		t.Errorf("pyVars = %s, %v", data, err)
	}
}
