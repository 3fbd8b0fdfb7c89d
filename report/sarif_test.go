package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/sarifcheck"
	"github.com/formula-code/template-verify/plan"
)

// TestSARIFMatchesTheOfficialSchema: the SARIF log of every report fixture
// is valid against the OASIS SARIF 2.1.0 schema and GitHub's upload rules
// (internal/sarifcheck), and the schema refuses a log with a level SARIF
// does not have (so the validation bites).
func TestSARIFMatchesTheOfficialSchema(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtures {
		b, err := fx.make().SARIF(SARIFOptions{ToolVersion: "v1.2.3"})
		if err != nil {
			t.Fatal(err)
		}
		if err := sarifcheck.Validate(b); err != nil {
			t.Errorf("%s: %v", fx.name, err)
		}
	}
	b, err := failingRender().SARIF(SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(b, []byte(`"level": "error"`), []byte(`"level": "failure"`), 1)
	if bytes.Equal(bad, b) {
		t.Fatal("the failing report has no error result to spoil")
	}
	if err := sarifcheck.Schema(bad); err == nil {
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
					ID               string `json:"id"`
					Name             string `json:"name"`
					HelpURI          string `json:"helpUri"`
					ShortDescription struct {
						Text string `json:"text"`
					} `json:"shortDescription"`
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
			PartialFingerprints map[string]string `json:"partialFingerprints"`
			Locations           []struct {
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
	b, err := r.SARIF(SARIFOptions{ToolVersion: "v1.2.3"})
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
		if res.Level == "error" && res.RuleID == rep.Results[1].Check {
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

// TestSARIFCheckResultsPointAtAFile: a result of a check without a file
// of its own (timed out, not run) points at line 1 of the first changed
// template at head, else of the configuration file, else of the default
// configuration path: code scanning rejects a file with a result without
// a location.
func TestSARIFCheckResultsPointAtAFile(t *testing.T) {
	t.Parallel()
	deletedFirst := notRun()
	deletedFirst.Templates = append([]plan.Template{{Path: "gone.j2", OldPath: "gone.j2", Status: plan.Deleted}}, deletedFirst.Templates...)
	noTemplates := notRun()
	noTemplates.Templates = nil
	defaults := notRun()
	defaults.Templates = nil
	defaults.ConfigSource = DefaultsSource
	for _, c := range []struct {
		name string
		rep  *Report
		want string
	}{
		{"a changed template", notRun(), root + "tests/test.sh"},
		{"the first template at head", deletedFirst, root + "tests/test.sh"},
		{"the config file", noTemplates, ".github/template-verify.yml"},
		{"the default config path", defaults, ".github/template-verify.yml"},
	} {
		results := decodeSARIF(t, c.rep).Runs[0].Results
		if len(results) != 2 {
			t.Fatalf("%s: %d results, want one for restore and one for pytest", c.name, len(results))
		}
		for _, res := range results {
			if len(res.Locations) != 1 {
				t.Errorf("%s: %s result has %d locations, want 1", c.name, res.RuleID, len(res.Locations))
				continue
			}
			loc := res.Locations[0].PhysicalLocation
			if loc.ArtifactLocation.URI != c.want || loc.Region == nil || loc.Region.StartLine != 1 {
				t.Errorf("%s: %s result at %s %+v, want %s line 1", c.name, res.RuleID, loc.ArtifactLocation.URI, loc.Region, c.want)
			}
		}
	}
}

// TestSARIFRules: a rule per check with a short description of its own,
// no name that repeats the id, and a helpUri to the check's page, which
// exists under docs/checks; each page has a description. A released
// version links to its tag, any other build to main; DocsURL overrides.
func TestSARIFRules(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("../docs/checks/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("docs/checks: %v %v", pages, err)
	}
	rep := allPass()
	rep.Results = nil
	for _, p := range pages {
		name := strings.TrimSuffix(filepath.Base(p), ".md")
		rep.Results = append(rep.Results, checks.Result{Check: name, Conclusion: checks.Success})
	}
	rules := decodeSARIF(t, rep).Runs[0].Tool.Driver.Rules
	if len(rules) != len(pages) {
		t.Fatalf("%d rules for %d checks", len(rules), len(pages))
	}
	for _, r := range rules {
		if r.Name != "" {
			t.Errorf("rule %s has a name %q", r.ID, r.Name)
		}
		if want := "https://github.com/formula-code/template-verify/blob/v1.2.3/docs/checks/" + r.ID + ".md"; r.HelpURI != want {
			t.Errorf("rule %s: helpUri %s, want %s", r.ID, r.HelpURI, want)
		}
		if _, ok := checkSummaries[r.ID]; !ok || strings.Contains(r.ShortDescription.Text, "check of template-verify") {
			t.Errorf("rule %s: no description of its own: %q", r.ID, r.ShortDescription.Text)
		}
	}
	if len(checkSummaries) != len(pages) {
		t.Errorf("%d check descriptions for %d pages under docs/checks", len(checkSummaries), len(pages))
	}
	for v, want := range map[string]string{
		"v1.2.3": "/blob/v1.2.3/docs/checks/", "v1.2.4-0.20260101000000-abcdefabcdef": "/blob/main/docs/checks/",
		"dev": "/blob/main/docs/checks/", "": "/blob/main/docs/checks/",
	} {
		if got := DocsURL(v); got != "https://github.com/formula-code/template-verify"+want {
			t.Errorf("DocsURL(%q) = %s", v, got)
		}
	}
	b, err := allPass().SARIF(SARIFOptions{ToolVersion: "v1.2.3", DocsURL: "https://ghe.example/x/template-verify/blob/v9/docs/checks/"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"helpUri": "https://ghe.example/x/template-verify/blob/v9/docs/checks/render.md"`)) {
		t.Errorf("DocsURL is not the helpUri's folder:\n%s", b)
	}
}

// TestSARIFFingerprints: every result has a partial fingerprint that does
// not change when the finding's line moves, differs for another message,
// and is not shared by two results.
func TestSARIFFingerprints(t *testing.T) {
	t.Parallel()
	fp := func(r *Report) []string {
		var out []string
		for _, res := range decodeSARIF(t, r).Runs[0].Results {
			v := res.PartialFingerprints["templateVerify/v1"]
			if v == "" {
				t.Fatalf("result %s has no fingerprint: %v", res.RuleID, res.PartialFingerprints)
			}
			out = append(out, v)
		}
		return out
	}
	before := fp(failingRender())
	moved := failingRender()
	moved.Results[0].Findings[0].Line += 10
	if after := fp(moved); after[0] != before[0] {
		t.Errorf("the fingerprint changes with the line: %s, then %s", before[0], after[0])
	}
	twice := failingRender()
	twice.Results[0].Findings[1] = twice.Results[0].Findings[0]
	got := fp(twice)
	if got[0] == got[1] {
		t.Errorf("two equal findings share the fingerprint %s", got[0])
	}
	seen := map[string]bool{}
	for _, v := range before {
		if seen[v] {
			t.Errorf("fingerprint %s twice", v)
		}
		seen[v] = true
	}
}

// TestSARIFResultLimit: a run keeps at most MaxSARIFResults results, the
// most severe first, and says how many it left out.
func TestSARIFResultLimit(t *testing.T) {
	t.Parallel()
	rep := failingRender()
	var many []checks.Finding
	for i := range MaxSARIFResults + 10 {
		many = append(many, checks.Finding{Path: "a.sh", Line: i + 1, Level: checks.LevelNotice, Message: "note"})
	}
	rep.Results[1].Findings = many
	b, err := rep.SARIF(SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.Validate(b); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Runs []struct {
			Results []struct {
				Level string `json:"level"`
			} `json:"results"`
			Properties struct {
				OmittedResults int `json:"omittedResults"`
			} `json:"properties"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	run := out.Runs[0]
	if len(run.Results) != MaxSARIFResults || run.Properties.OmittedResults != 13 {
		t.Fatalf("%d results, %d left out; want %d and 13", len(run.Results), run.Properties.OmittedResults, MaxSARIFResults)
	}
	var errors, warnings int
	for _, r := range run.Results {
		switch r.Level {
		case "error":
			errors++
		case "warning":
			warnings++
		}
	}
	if errors != 2 || warnings != 1 {
		t.Errorf("%d errors and %d warnings kept, want 2 and 1", errors, warnings)
	}
}
