package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// CompileSchema compiles JSONSchema for the tests.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(JSONSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("report.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestJSONGoldensMatchTheSchema: every JSON golden of the report is
// valid against report/schema/report.schema.json, and the schema refuses
// a report without schema_version or with a figure number as prose.
func TestJSONGoldensMatchTheSchema(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	files, err := filepath.Glob("testdata/*.json.golden")
	if err != nil || len(files) == 0 {
		t.Fatalf("no JSON goldens: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	good, err := allPass().JSON()
	if err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		name string
		edit func(m map[string]any)
	}{
		{"no schema_version", func(m map[string]any) { delete(m, "schema_version") }},
		{"figure number as prose", func(m map[string]any) {
			f := m["results"].([]any)[0].(map[string]any)["figures"].([]any)[0].(map[string]any)
			f["numbers"] = map[string]any{"pass": "37 of 37"}
		}},
		{"unknown conclusion", func(m map[string]any) { m["overall"] = "green" }},
	}
	for _, tc := range bad {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		tc.edit(m)
		b, _ := json.Marshal(m)
		v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if s.Validate(v) == nil {
			t.Errorf("%s: the schema accepts it", tc.name)
		}
	}
}
