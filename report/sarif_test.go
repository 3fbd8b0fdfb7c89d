package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/formula-code/template-verify/checks"
)

// compileSARIFSchema compiles the official SARIF 2.1.0 schema, vendored in
// testdata/sarif (see its SOURCE file), with formats asserted.
func compileSARIFSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/sarif/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validateSARIF(t *testing.T, s *jsonschema.Schema, b []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(v)
}

// TestSARIFMatchesTheOfficialSchema: the SARIF log of every report fixture
// is valid against the OASIS SARIF 2.1.0 schema, and the schema refuses a
// log with a level SARIF does not have (so the validation bites).
func TestSARIFMatchesTheOfficialSchema(t *testing.T) {
	t.Parallel()
	s := compileSARIFSchema(t)
	for _, fx := range fixtures {
		b, err := fx.make().SARIF("v1.2.3")
		if err != nil {
			t.Fatal(err)
		}
		if err := validateSARIF(t, s, b); err != nil {
			t.Errorf("%s: %v", fx.name, err)
		}
	}
	b, err := failingRender().SARIF("")
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(b, []byte(`"level": "error"`), []byte(`"level": "failure"`), 1)
	if bytes.Equal(bad, b) {
		t.Fatal("the failing report has no error result to spoil")
	}
	if err := validateSARIF(t, s, bad); err == nil {
		t.Error("the schema accepts a result with level \"failure\"")
	}
}

type sarifOut struct {
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name    string `json:"name"`
				Version string `json:"version"`
				Rules   []struct {
					ID string `json:"id"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region *struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
		Properties struct {
			Overall string `json:"overall"`
		} `json:"properties"`
	} `json:"runs"`
}

func decodeSARIF(t *testing.T, r *Report) sarifOut {
	t.Helper()
	b, err := r.SARIF("v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	var out sarifOut
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Version != "2.1.0" || len(out.Runs) != 1 {
		t.Fatalf("version %q with %d runs, want 2.1.0 with one", out.Version, len(out.Runs))
	}
	return out
}

// TestSARIFResults: a rule per check, a result per finding with its rule,
// level, message, file and line, and a result of its own for a check that
// did not run; a passing report has no error.
func TestSARIFResults(t *testing.T) {
	t.Parallel()
	rep := failingRender()
	run := decodeSARIF(t, rep).Runs[0]
	if run.Tool.Driver.Name != "template-verify" || run.Tool.Driver.Version != "v1.2.3" {
		t.Errorf("driver %q %q", run.Tool.Driver.Name, run.Tool.Driver.Version)
	}
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); got != "render,restore,pytest" {
		t.Errorf("rules %s, want render,restore,pytest", got)
	}
	var errors, warnings int
	for _, res := range run.Results {
		if run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result of %s points at rule %d", res.RuleID, res.RuleIndex)
		}
		switch res.Level {
		case "error":
			errors++
			if res.RuleID != "render" || len(res.Locations) != 1 {
				t.Errorf("error result %+v, want a render finding with a location", res)
				continue
			}
			loc := res.Locations[0].PhysicalLocation
			if !strings.HasSuffix(loc.ArtifactLocation.URI, "tests/test.sh") || loc.Region == nil || (loc.Region.StartLine != 57 && loc.Region.StartLine != 12) {
				t.Errorf("location %+v, want tests/test.sh line 57 or 12", loc)
			}
		case "warning":
			warnings++
			if res.RuleID != "pytest" || !strings.Contains(res.Message.Text, "not run") {
				t.Errorf("warning %+v, want the pytest check that did not run", res)
			}
		}
	}
	if errors != 2 || warnings != 1 {
		t.Errorf("%d errors and %d warnings, want 2 and 1", errors, warnings)
	}
	if run.Properties.Overall != string(checks.Failure) {
		t.Errorf("overall %q", run.Properties.Overall)
	}

	// A check that failed with no finding of failure level still shows.
	rep = allPass()
	rep.Results[1].Conclusion = checks.TimedOut
	rep.Results[1].Title = "timed out after 10m"
	found := false
	for _, res := range decodeSARIF(t, rep).Runs[0].Results {
		if res.Level == "error" && res.RuleID == rep.Results[1].Check && len(res.Locations) == 0 {
			found = true
		}
	}
	if !found {
		t.Error("a timed-out check without findings has no error result")
	}
	for _, res := range decodeSARIF(t, allPass()).Runs[0].Results {
		if res.Level == "error" || res.Level == "warning" {
			t.Errorf("a passing report has a %s: %+v", res.Level, res)
		}
	}
}
