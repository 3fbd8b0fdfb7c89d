package templates

import (
	"strings"
	"testing"
	"text/template"
)

var stubs = template.FuncMap{
	"include": func(string, any) (string, error) { return "", nil },
	"indent":  func(int, string) string { return "" },
	"paras":   func(...string) string { return "" },
}

func TestParseDefinesEverySection(t *testing.T) {
	t.Parallel()
	set, err := Parse(stubs)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{Comment, "purpose", "how-it-works", "changes", "change", "verification", "check", "figures", "tables", "table", "findings", "notes", "block", "details"} {
		if set.Lookup(name) == nil {
			t.Errorf("no template %q", name)
		}
	}
}

// TestFilesOnlyDefine checks that no file writes text outside a define:
// such text would be lost, since the report runs named templates only.
func TestFilesOnlyDefine(t *testing.T) {
	t.Parallel()
	files, err := FS.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".tmpl") {
			continue
		}
		one, err := template.New("").Funcs(stubs).ParseFS(FS, f.Name())
		if err != nil {
			t.Fatalf("%s: %v", f.Name(), err)
		}
		var b strings.Builder
		if err := one.ExecuteTemplate(&b, f.Name(), nil); err != nil {
			t.Fatalf("%s: %v", f.Name(), err)
		}
		if strings.TrimSpace(b.String()) != "" {
			t.Errorf("%s writes text outside a define: %q", f.Name(), b.String())
		}
	}
}

func TestParseNeedsFuncs(t *testing.T) {
	t.Parallel()
	if _, err := Parse(nil); err == nil || !strings.Contains(err.Error(), "parse the embedded comment templates") {
		t.Fatalf("Parse without functions: err = %v", err)
	}
}
