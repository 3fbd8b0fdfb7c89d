package report

import (
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/formula-code/template-verify/checks"
)

// SARIFVersion is the version of the Static Analysis Results Interchange
// Format that SARIF writes: the format of GitHub code scanning and of
// reviewdog's -f=sarif input.
const SARIFVersion = "2.1.0"

// sarifSchemaURI is the schema a SARIF log names in "$schema".
const sarifSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

// toolURI is the page of the tool in tool.driver.informationUri.
const toolURI = "https://github.com/formula-code/template-verify"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool       `json:"tool"`
	Results    []sarifResult   `json:"results"`
	Properties sarifProperties `json:"properties"`
}

// sarifProperties is the property bag of the run: what was verified and
// the overall conclusion, which SARIF has no field for.
type sarifProperties struct {
	Repo      string             `json:"repo,omitempty"`
	Base      string             `json:"base,omitempty"`
	Head      string             `json:"head,omitempty"`
	MergeBase string             `json:"mergeBase,omitempty"`
	Overall   checks.Conclusion  `json:"overall"`
	Checks    []sarifCheckStatus `json:"checks"`
}

type sarifCheckStatus struct {
	Check      string            `json:"check"`
	Conclusion checks.Conclusion `json:"conclusion"`
	Title      string            `json:"title"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	Name             string       `json:"name"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine,omitempty"`
}

// SARIF returns the report as a SARIF 2.1.0 log with one run: a rule per
// check (its id is the check's name), and a result per finding with the
// rule, a level (failure: error, warning: warning, notice: note), the
// message, and the file and line when the finding has them. A check that
// failed, timed out or did not run without a finding of failure level
// gets one result of its own, without a location, so that a log whose
// run failed is never empty. toolVersion goes to tool.driver.version.
func (r *Report) SARIF(toolVersion string) ([]byte, error) {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:           "template-verify",
			Version:        toolVersion,
			InformationURI: toolURI,
			Rules:          []sarifRule{},
		}},
		Results: []sarifResult{},
		Properties: sarifProperties{
			Repo:      r.Repo,
			Base:      r.Base,
			Head:      r.Head,
			MergeBase: r.MergeBase,
			Overall:   r.Overall,
			Checks:    []sarifCheckStatus{},
		},
	}
	for i, res := range r.Results {
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID:               res.Check,
			Name:             res.Check,
			ShortDescription: sarifMessage{Text: fmt.Sprintf("The %s check of template-verify.", res.Check)},
		})
		run.Properties.Checks = append(run.Properties.Checks, sarifCheckStatus{Check: res.Check, Conclusion: res.Conclusion, Title: res.Title})
		for _, f := range res.Findings {
			run.Results = append(run.Results, sarifResult{
				RuleID:    res.Check,
				RuleIndex: i,
				Level:     sarifLevel(f.Level),
				Message:   sarifMessage{Text: sarifText(f)},
				Locations: sarifLocations(f),
			})
		}
		if level, ok := checkLevel(res); ok {
			run.Results = append(run.Results, sarifResult{
				RuleID:    res.Check,
				RuleIndex: i,
				Level:     level,
				Message:   sarifMessage{Text: fmt.Sprintf("%s: %s: %s", res.Check, Word(res.Conclusion), res.Title)},
			})
		}
	}
	b, err := json.MarshalIndent(sarifLog{Schema: sarifSchemaURI, Version: SARIFVersion, Runs: []sarifRun{run}}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("report: encode SARIF: %w", err)
	}
	return b, nil
}

// sarifLevel maps a finding's level to SARIF's result.level.
func sarifLevel(l checks.Level) string {
	switch l {
	case checks.LevelFailure:
		return "error"
	case checks.LevelWarning:
		return "warning"
	}
	return "note"
}

// checkLevel is the level of the result a check gets for itself: error
// when it failed or timed out without a failure finding, warning when it
// did not run or was cancelled; ok is false when the check needs none.
func checkLevel(res checks.Result) (level string, ok bool) {
	switch {
	case res.Conclusion.Failed() || res.Conclusion == checks.TimedOut:
		if res.Failures() > 0 {
			return "", false
		}
		return "error", true
	case res.Conclusion == checks.NotRun || res.Conclusion == checks.Cancelled:
		return "warning", true
	}
	return "", false
}

// sarifText is the message of a finding: its title, then the message.
func sarifText(f checks.Finding) string {
	if f.Title == "" {
		return f.Message
	}
	return f.Title + ": " + f.Message
}

// sarifLocations is the location of a finding: the file (as a relative
// URI reference, so a space is %20), and the lines when it has them (SARIF's lines are 1-based, as the finding's).
func sarifLocations(f checks.Finding) []sarifLocation {
	if f.Path == "" {
		return nil
	}
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: (&url.URL{Path: f.Path}).String()}}}
	if f.Line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
		if f.EndLine > f.Line {
			loc.PhysicalLocation.Region.EndLine = f.EndLine
		}
	}
	return []sarifLocation{loc}
}
