package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/plan"
)

// SchemaVersion is the version of the JSON report's layout, described by
// report/schema/report.schema.json. It grows when a field changes
// meaning or goes away; new fields keep it.
const SchemaVersion = 1

// JSONSchema is report/schema/report.schema.json, the JSON Schema (draft
// 2020-12) of the JSON report.
//
//go:embed schema/report.schema.json
var JSONSchema []byte

// jsonReport fixes the field order of the JSON output.
type jsonReport struct {
	SchemaVersion int               `json:"schema_version"`
	Overall       checks.Conclusion `json:"overall"`
	Repo          string            `json:"repo"`
	Base          jsonRev           `json:"base"`
	Head          jsonRev           `json:"head"`
	MergeBase     string            `json:"merge_base"`
	Templates     []jsonTemplate    `json:"templates"`
	Results       []jsonResult      `json:"results"`
	Notes         []string          `json:"notes"`
	Command       string            `json:"command"`
}

// jsonResult is a checks.Result whose figures carry their numbers and
// whose changes carry the report's words.
type jsonResult struct {
	checks.Result
	Figures []jsonFigure `json:"figures,omitempty"` // shadows Result.Figures
	Changes []jsonChange `json:"changes,omitempty"` // shadows Result.Changes
}

// jsonChange is a checks.Change with the words of the comment (markdown):
// the bold line, Effect and Before.
type jsonChange struct {
	checks.Change
	Headline string `json:"headline"`
	Effect   string `json:"effect"`
	Before   string `json:"before"`
}

func jsonChangeOf(c checks.Change) jsonChange {
	w := wordChange(c)
	return jsonChange{Change: c, Headline: w.Headline, Effect: w.Effect, Before: w.Before}
}

// jsonFigure is a checks.Figure with the numbers of its value, typed:
// "37 of 37 pass" also gives {"pass": 37, "total": 37}.
type jsonFigure struct {
	checks.Figure
	Numbers map[string]float64 `json:"numbers,omitempty"`
}

type jsonRev struct {
	Rev string `json:"rev"`
	Sha string `json:"sha"`
}

type jsonTemplate struct {
	Group   string   `json:"group"`
	Path    string   `json:"path"`
	OldPath string   `json:"old_path,omitempty"` // only when it differs from path
	Status  string   `json:"status"`
	Via     []string `json:"via,omitempty"`
}

// JSON renders the report as stable machine output: fixed field order,
// indent 2, no HTML escaping, no trailing newline. Lists are [] rather than
// null when empty. Conclusions keep their values: a check that did not run
// is "not_run".
func (r *Report) JSON() ([]byte, error) {
	out := jsonReport{
		SchemaVersion: SchemaVersion,
		Overall:       r.Overall,
		Repo:          r.Repo,
		Base:          jsonRev{Rev: r.BaseRev, Sha: r.Base},
		Head:          jsonRev{Rev: r.HeadRev, Sha: r.Head},
		MergeBase:     r.MergeBase,
		Templates:     []jsonTemplate{},
		Results:       []jsonResult{},
		Notes:         r.Notes,
		Command:       r.Command,
	}
	for _, t := range r.Templates {
		jt := jsonTemplate{Group: t.Group, Path: t.Path, Status: string(t.Status), Via: t.Via}
		if t.OldPath != t.Path {
			jt.OldPath = t.OldPath
		}
		out.Templates = append(out.Templates, jt)
	}
	for _, res := range r.Results {
		jr := jsonResult{Result: res}
		for _, f := range res.Figures {
			jr.Figures = append(jr.Figures, jsonFigure{Figure: f, Numbers: FigureNumbers(f.Value)})
		}
		for _, c := range res.Changes {
			jr.Changes = append(jr.Changes, jsonChangeOf(c))
		}
		out.Results = append(out.Results, jr)
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("encode the report as JSON: %w", err)
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

var (
	// figureSegments split a figure value into clauses.
	figureSegments = regexp.MustCompile(`[,;()]| and | for |: `)
	numberToken    = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	keyJunk        = regexp.MustCompile(`[^a-z0-9]+`)
)

// FigureNumbers reads the numbers of a figure's value, each named by the
// words after it in its clause ("18 renders" -> renders: 18), or before
// it when none follow ("seed 1" -> seed: 1); "A of B words" gives
// words: A and total: B; the unit "s" is "seconds". Numbers glued to
// letters or with two dots (Jinja2, 3.1.6) are not numbers. A value
// without numbers gives nil.
func FigureNumbers(value string) map[string]float64 {
	out := map[string]float64{}
	put := func(key string, v float64) {
		key = strings.Trim(keyJunk.ReplaceAllString(strings.ToLower(key), "_"), "_")
		switch key {
		case "":
			key = "count"
		case "s":
			key = "seconds"
		}
		name := key
		for i := 2; ; i++ {
			if _, dup := out[name]; !dup {
				break
			}
			name = key + "_" + strconv.Itoa(i)
		}
		out[name] = v
	}
	for _, seg := range figureSegments.Split(value, -1) {
		toks := strings.Fields(seg)
		lastNum := -1 // index of the previous number token in toks
		for i := 0; i < len(toks); i++ {
			if !numberToken.MatchString(toks[i]) {
				continue
			}
			v, _ := strconv.ParseFloat(toks[i], 64)
			// "A of B words"
			if i+2 < len(toks) && toks[i+1] == "of" && numberToken.MatchString(toks[i+2]) {
				b, _ := strconv.ParseFloat(toks[i+2], 64)
				words := wordsUntilNumber(toks[i+3:])
				put(strings.Join(words, " "), v)
				put("total", b)
				lastNum = i + 2
				i += 2
				continue
			}
			words := wordsUntilNumber(toks[i+1:])
			if len(words) == 0 {
				words = toks[lastNum+1 : i]
			}
			put(strings.Join(words, " "), v)
			lastNum = i
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// wordsUntilNumber returns the leading words of toks up to a number or
// the word "of".
func wordsUntilNumber(toks []string) []string {
	for i, t := range toks {
		if numberToken.MatchString(t) || t == "of" {
			return toks[:i]
		}
	}
	return toks
}

// ParseJSON reads a report back from the output of JSON. It checks only
// the JSON itself: the caller validates what it trusts (check names, the
// head sha) and computes Overall again where the bytes come from
// elsewhere. The words JSON adds (a figure's numbers, a change's headline)
// are dropped, since the report computes them again. Links, Duration and
// ConfigSource and a template's group-relative paths are not in the
// JSON, so they stay empty. A decoding error
// wraps the one of encoding/json, for the caller to place by offset.
func ParseJSON(data []byte) (*Report, error) {
	var in jsonReport
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("decode the JSON report: %w", err)
	}
	r := &Report{
		Repo: in.Repo, BaseRev: in.Base.Rev, Base: in.Base.Sha, HeadRev: in.Head.Rev, Head: in.Head.Sha,
		MergeBase: in.MergeBase, Overall: in.Overall, Command: in.Command,
	}
	if len(in.Notes) > 0 {
		r.Notes = in.Notes
	}
	for _, t := range in.Templates {
		old := t.OldPath
		if old == "" {
			old = t.Path
		}
		r.Templates = append(r.Templates, plan.Template{Group: t.Group, Path: t.Path, OldPath: old, Status: plan.Status(t.Status), Via: t.Via})
	}
	for _, jr := range in.Results {
		res := jr.Result
		res.Figures, res.Changes = nil, nil
		for _, f := range jr.Figures {
			res.Figures = append(res.Figures, f.Figure)
		}
		for _, c := range jr.Changes {
			res.Changes = append(res.Changes, c.Change)
		}
		r.Results = append(r.Results, res)
	}
	return r, nil
}
