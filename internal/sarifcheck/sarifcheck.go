// Package sarifcheck validates a SARIF log as GitHub code scanning takes
// it: against the OASIS SARIF 2.1.0 JSON schema (embedded, see SOURCE),
// with formats asserted, and against the rules GitHub documents for an
// upload ("SARIF support for code scanning" and "SARIF results exceed
// limits" in GitHub's docs). Only tests import it.
package sarifcheck

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed sarif-schema-2.1.0.json
var schemaJSON []byte

// The hard limits of a code scanning upload: a file over one of them is
// rejected whole.
const (
	MaxRuns               = 20
	MaxResultsPerRun      = 25000
	MaxRulesPerRun        = 25000
	MaxLocationsPerResult = 1000
	// MaxRelatedPerResult: GitHub keeps the first 1,000 related locations
	// of a result; this tool promises to send no more.
	MaxRelatedPerResult = 1000
)

var (
	compileOnce sync.Once
	compiled    *jsonschema.Schema
	compileErr  error
)

func schema() (*jsonschema.Schema, error) {
	compileOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			compileErr = fmt.Errorf("sarifcheck: read the schema: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
			compileErr = fmt.Errorf("sarifcheck: add the schema: %w", err)
			return
		}
		compiled, compileErr = c.Compile("sarif-schema-2.1.0.json")
	})
	return compiled, compileErr
}

// Schema validates b against the SARIF 2.1.0 schema.
func Schema(b []byte) error {
	s, err := schema()
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("sarifcheck: not JSON: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("sarifcheck: schema: %w", err)
	}
	return nil
}

// log is the part of a SARIF log that GitHub's rules are about.
type log struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Rules []struct {
					ID               string `json:"id"`
					Name             string `json:"name"`
					HelpURI          string `json:"helpUri"`
					ShortDescription *struct {
						Text string `json:"text"`
					} `json:"shortDescription"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID              string            `json:"ruleId"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
			Locations           []location        `json:"locations"`
			RelatedLocations    []location        `json:"relatedLocations"`
		} `json:"results"`
	} `json:"runs"`
}

// location is a result's location or related location.
type location struct {
	ID               *int `json:"id"`
	PhysicalLocation *struct {
		ArtifactLocation *struct {
			URI string `json:"uri"`
		} `json:"artifactLocation"`
		Region *struct {
			StartLine int `json:"startLine"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

// GitHub checks what code scanning needs beyond the schema, and what this
// tool promises its readers: at most MaxRuns runs, MaxResultsPerRun
// results and MaxRulesPerRun rules a run; every result has a rule of its
// run, one to MaxLocationsPerResult locations and at most
// MaxRelatedPerResult related locations (each with an id), each a
// relative file URI in the repository with a line of 1 or more, and
// partial fingerprints;
// every rule has a short description, an absolute https helpUri, and no
// name that only repeats its id. It returns every broken rule, joined.
func GitHub(b []byte) error {
	var l log
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("sarifcheck: not a SARIF log: %w", err)
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if len(l.Runs) == 0 || len(l.Runs) > MaxRuns {
		bad("%d runs, want 1 to %d", len(l.Runs), MaxRuns)
	}
	for i, run := range l.Runs {
		rules := map[string]bool{}
		if n := len(run.Tool.Driver.Rules); n > MaxRulesPerRun {
			bad("run %d: %d rules, over %d", i, n, MaxRulesPerRun)
		}
		for _, r := range run.Tool.Driver.Rules {
			rules[r.ID] = true
			if r.ShortDescription == nil || r.ShortDescription.Text == "" {
				bad("rule %s: no shortDescription", r.ID)
			}
			if r.Name != "" && r.Name == r.ID {
				bad("rule %s: its name repeats the id", r.ID)
			}
			if u, err := url.Parse(r.HelpURI); err != nil || u.Scheme != "https" || u.Host == "" {
				bad("rule %s: helpUri %q is not an absolute https URL", r.ID, r.HelpURI)
			}
		}
		if n := len(run.Results); n > MaxResultsPerRun {
			bad("run %d: %d results, over %d", i, n, MaxResultsPerRun)
		}
		for j, res := range run.Results {
			where := fmt.Sprintf("run %d result %d (%s)", i, j, res.RuleID)
			if !rules[res.RuleID] {
				bad("%s: no rule %q in the run", where, res.RuleID)
			}
			if len(res.PartialFingerprints) == 0 {
				bad("%s: no partialFingerprints", where)
			}
			if n := len(res.Locations); n == 0 || n > MaxLocationsPerResult {
				bad("%s: %d locations, want 1 to %d", where, n, MaxLocationsPerResult)
			}
			for _, loc := range res.Locations {
				checkLocation(where, loc, bad)
			}
			if n := len(res.RelatedLocations); n > MaxRelatedPerResult {
				bad("%s: %d related locations, over %d", where, n, MaxRelatedPerResult)
			}
			ids := map[int]bool{}
			for _, loc := range res.RelatedLocations {
				switch {
				case loc.ID == nil:
					bad("%s: a related location without an id for the message to link to", where)
				case ids[*loc.ID]:
					bad("%s: related location id %d twice", where, *loc.ID)
				default:
					ids[*loc.ID] = true
				}
				checkLocation(where+" related", loc, bad)
			}
		}
	}
	return errors.Join(errs...)
}

// checkLocation checks that loc names a relative file in the repository
// and, when it has a region, a line of 1 or more.
func checkLocation(where string, loc location, bad func(format string, args ...any)) {
	p := loc.PhysicalLocation
	if p == nil || p.ArtifactLocation == nil || p.ArtifactLocation.URI == "" {
		bad("%s: a location without a file", where)
		return
	}
	if u, err := url.Parse(p.ArtifactLocation.URI); err != nil || u.IsAbs() || u.Host != "" || len(u.Path) > 0 && u.Path[0] == '/' {
		bad("%s: file %q is not a relative URI in the repository", where, p.ArtifactLocation.URI)
	}
	if p.Region != nil && p.Region.StartLine < 1 {
		bad("%s: startLine %d", where, p.Region.StartLine)
	}
}

// Validate is Schema, then GitHub.
func Validate(b []byte) error {
	if err := Schema(b); err != nil {
		return err
	}
	return GitHub(b)
}
