package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/formula-code/template-verify/report"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestDemoJSONMatchesTheSchema: `demo --format json` (good and bad; the
// report of the runs TestDemoGolden reads, written as JSON) is valid
// against report/schema/report.schema.json, carries schema_version,
// and every figure whose value has a number has it typed in numbers.
func TestDemoJSONMatchesTheSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs every check on the example; skipped with -short")
	}
	t.Parallel()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(report.JSONSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("report.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	standalone := regexp.MustCompile(`(^|[\s(])[0-9]+(\.[0-9]+)?($|[\s,;)])`)
	cases := []struct {
		name string
		bad  bool
		code int
	}{
		{"good", false, exitPass},
		{"bad", true, exitFail},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := demoOutput(t, tc.bad, "json")
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, errOut)
			}
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(out)))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(v); err != nil {
				t.Errorf("the demo's JSON does not match the schema: %v", err)
			}
			var rep struct {
				SchemaVersion int `json:"schema_version"`
				Results       []struct {
					Check   string `json:"check"`
					Figures []struct {
						Label   string             `json:"label"`
						Value   string             `json:"value"`
						Numbers map[string]float64 `json:"numbers"`
					} `json:"figures"`
				} `json:"results"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.SchemaVersion != report.SchemaVersion {
				t.Errorf("schema_version %d", rep.SchemaVersion)
			}
			figures := 0
			for _, r := range rep.Results {
				for _, f := range r.Figures {
					figures++
					if standalone.MatchString(f.Value) && len(f.Numbers) == 0 {
						t.Errorf("%s figure %q = %q has no typed numbers", r.Check, f.Label, f.Value)
					}
				}
			}
			if figures == 0 {
				t.Error("the demo's JSON has no figures")
			}
		})
	}
}
