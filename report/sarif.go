package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

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
	// OmittedResults counts the results over MaxSARIFResults left out.
	OmittedResults int `json:"omittedResults,omitempty"`
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
	ShortDescription sarifMessage `json:"shortDescription"`
	HelpURI          string       `json:"helpUri"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
	// RelatedLocations are the findings that share the result's cause
	// (as the comment's "also seen in"); the message links to them by id.
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

type sarifLocation struct {
	ID               int           `json:"id,omitempty"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          *sarifMessage `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine,omitempty"`
}

// SARIFOptions are what the SARIF log takes beyond the report.
type SARIFOptions struct {
	// ToolVersion goes to tool.driver.version.
	ToolVersion string
	// DocsURL is the absolute URL of the folder of the check pages
	// (docs/checks/ of template-verify's repository), ending in "/"; each
	// rule's helpUri is DocsURL + check + ".md". Empty: DocsURL(ToolVersion).
	DocsURL string
}

// DocsURL is the folder of the check pages in template-verify's
// repository at the tag of a released version (v1.2.3), else on main.
// SARIF's helpUri is an absolute URI (the schema's format "uri"; it has no
// uriBaseId), so no relative form is possible.
func DocsURL(toolVersion string) string {
	ref := "main"
	if releaseTag.MatchString(toolVersion) {
		ref = toolVersion
	}
	return toolURI + "/blob/" + ref + "/docs/checks/"
}

// releaseTag matches a released version, not a pseudo-version or a
// development build.
var releaseTag = regexp.MustCompile(`^v\d+\.\d+\.\d+$`)

// srcRoot is the uriBaseId of every file: the root of the checkout, as
// code scanning resolves it.
const srcRoot = "%SRCROOT%"

// MaxSARIFResults is how many results a run keeps: code scanning shows at
// most 5,000 a run and rejects a file over 25,000. Over it, the most
// severe are kept and the run's properties say how many were left out.
const MaxSARIFResults = 5000

// checkSummaries are the rules' short descriptions, one a check; each
// check has its page under docs/checks/.
var checkSummaries = map[string]string{
	"render":      "Renders each changed template at base and head for every variable set and runs bash -n on rendered shell scripts.",
	"restore":     "Runs the restore step of the rendered test.sh in fixture git repositories against agent edits and compares with a model of the policy.",
	"pytest":      "Runs the repository's pytest suites for the changed paths and the template's pytest runner on fixture projects.",
	"sync":        "Compares the copies of a list or text that must stay equal at base and head.",
	"names":       "Lists the names a changed template reads that no variable set defines.",
	"taint":       "Finds names read after a shell template sources a file the agent can write.",
	"description": "Reads the pull request's description against the house format.",
	"archive":     "Compares each changed archive member by member and runs bash -n on changed shell members.",
	"ledger":      "Lists the pull requests merged into a release branch with the gate's check run at their merged heads.",
}

// SARIF returns the report as a SARIF 2.1.0 log with one run, as GitHub
// code scanning takes it: a rule per check (its id is the check's name,
// with a short description and its page as helpUri), and a result per
// finding with the rule, a level (failure: error, warning: warning,
// notice: note), the message, the file and line, and a fingerprint. A
// check that failed, timed out or did not run without a finding of
// failure level gets one result of its own, so that a log whose run
// failed is never empty. A result without a file of its own (code
// scanning rejects a file with one) points at line 1 of the first changed
// template, else of the configuration file.
func (r *Report) SARIF(o SARIFOptions) ([]byte, error) {
	r = r.quieted()
	docs := o.DocsURL
	if docs == "" {
		docs = DocsURL(o.ToolVersion)
	}
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:           "template-verify",
			Version:        o.ToolVersion,
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
	fallback := r.sarifFallback()
	heads, folded := causeGroups(r)
	seen := map[string]int{}
	add := func(res sarifResult) {
		res.PartialFingerprints = sarifFingerprint(res, seen)
		run.Results = append(run.Results, res)
	}
	for i, res := range r.Results {
		summary, ok := checkSummaries[res.Check]
		if !ok {
			summary = fmt.Sprintf("The %s check of template-verify.", res.Check)
		}
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID:               res.Check,
			ShortDescription: sarifMessage{Text: summary},
			HelpURI:          docs + url.PathEscape(res.Check) + ".md",
		})
		run.Properties.Checks = append(run.Properties.Checks, sarifCheckStatus{Check: res.Check, Conclusion: res.Conclusion, Title: res.Title})
		for fi, f := range res.Findings {
			at := findingAt{i, fi}
			if folded[at] {
				continue
			}
			sr := sarifResult{
				RuleID:    res.Check,
				RuleIndex: i,
				Level:     sarifLevel(f.Level),
				Message:   sarifMessage{Text: sarifText(f)},
				Locations: sarifLocations(f, fallback),
			}
			sr.PartialFingerprints = sarifFingerprint(sr, seen)
			if c := heads[at]; c != nil {
				sarifRelate(&sr, c, fallback)
			}
			run.Results = append(run.Results, sr)
		}
		if level, ok := checkLevel(res); ok {
			add(sarifResult{
				RuleID:    res.Check,
				RuleIndex: i,
				Level:     level,
				Message:   sarifMessage{Text: fmt.Sprintf("%s: %s: %s", res.Check, Word(res.Conclusion), res.Title)},
				Locations: sarifLocations(checks.Finding{}, fallback),
			})
		}
	}
	if n := len(run.Results); n > MaxSARIFResults {
		slices.SortStableFunc(run.Results, func(a, b sarifResult) int { return sarifRank(a.Level) - sarifRank(b.Level) })
		run.Results = run.Results[:MaxSARIFResults]
		run.Properties.OmittedResults = n - MaxSARIFResults
	}
	b, err := json.MarshalIndent(sarifLog{Schema: sarifSchemaURI, Version: SARIFVersion, Runs: []sarifRun{run}}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("report: encode SARIF: %w", err)
	}
	return b, nil
}

// MaxSARIFRelated is the most related locations a result gets: GitHub
// keeps the first 1,000 of a result.
const MaxSARIFRelated = 1000

// maxSARIFAlso is how many findings of a cause a result's message links
// to before "and N more".
const maxSARIFAlso = 10

// sarifRelate gives the result of cause c a related location for each
// finding that shares its root, and ends its message with links to them,
// "Also seen in: [pytest: tests/x.py:3](1), …", as the comment's bullet
// does. The fingerprint, made before, does not depend on them.
func sarifRelate(sr *sarifResult, c *cause, fallback string) {
	var links []string
	for i, s := range c.also {
		if i == MaxSARIFRelated {
			break
		}
		loc := sarifLocations(s.finding, fallback)[0]
		loc.ID = i + 1
		loc.Message = &sarifMessage{Text: s.check + ": " + sarifText(s.finding)}
		sr.RelatedLocations = append(sr.RelatedLocations, loc)
		if i < maxSARIFAlso {
			links = append(links, fmt.Sprintf("[%s](%d)", sarifLinkText(s.check+": "+s.label), loc.ID))
		}
	}
	also := " Also seen in: " + strings.Join(links, ", ")
	if n := len(c.also) - len(links); n > 0 {
		also += fmt.Sprintf(" and %d more", n)
	}
	sr.Message.Text += also + "."
}

// sarifLinkText escapes the text of a link in a SARIF message: a
// backslash, "[" and "]" get a backslash.
func sarifLinkText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`).Replace(s)
}

// sarifFallback is the file a result without one points at: the first
// changed template at head (else at base), else the configuration file
// (its default path when the run used the defaults).
func (r *Report) sarifFallback() string {
	for _, t := range r.Templates {
		if t.AtHead() && t.Path != "" {
			return t.Path
		}
	}
	for _, t := range r.Templates {
		if t.Path != "" {
			return t.Path
		}
	}
	if r.ConfigSource != "" && r.ConfigSource != DefaultsSource {
		return r.ConfigSource
	}
	return ".github/template-verify.yml"
}

// sarifFingerprint is the result's partial fingerprint: a hash of its
// rule, file, and message, without the line, so that code scanning keeps
// one alert for one problem when lines above it move. seen counts the
// hashes so far: a second result with the same hash gets its number.
func sarifFingerprint(res sarifResult, seen map[string]int) map[string]string {
	h := sha256.New()
	file := ""
	if len(res.Locations) > 0 {
		file = res.Locations[0].PhysicalLocation.ArtifactLocation.URI
	}
	for _, part := range []string{res.RuleID, file, res.Message.Text} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	sum := hex.EncodeToString(h.Sum(nil))[:32]
	seen[sum]++
	if n := seen[sum]; n > 1 {
		sum += ":" + strconv.Itoa(n)
	}
	return map[string]string{"templateVerify/v1": sum}
}

// sarifRank orders SARIF levels from the most severe.
func sarifRank(level string) int {
	switch level {
	case "error":
		return 0
	case "warning":
		return 1
	}
	return 2
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
// URI reference under %SRCROOT%, so a space is %20), and the lines when it
// has them (SARIF's lines are 1-based, as the finding's). A finding
// without a file points at line 1 of fallback.
func sarifLocations(f checks.Finding, fallback string) []sarifLocation {
	path, line, end := f.Path, f.Line, f.EndLine
	if path == "" {
		path, line, end = fallback, 1, 0
	}
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: (&url.URL{Path: path}).String(), URIBaseID: srcRoot}}}
	if line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: line}
		if end > line {
			loc.PhysicalLocation.Region.EndLine = end
		}
	}
	return []sarifLocation{loc}
}
