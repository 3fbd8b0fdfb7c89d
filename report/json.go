package report

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/formula-code/template-verify/checks"
)

// jsonReport fixes the field order of the JSON output.
type jsonReport struct {
	Overall   checks.Conclusion `json:"overall"`
	Repo      string            `json:"repo"`
	Base      jsonRev           `json:"base"`
	Head      jsonRev           `json:"head"`
	MergeBase string            `json:"merge_base"`
	Templates []jsonTemplate    `json:"templates"`
	Results   []checks.Result   `json:"results"`
	Notes     []string          `json:"notes"`
	Command   string            `json:"command"`
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
		Overall:   r.Overall,
		Repo:      r.Repo,
		Base:      jsonRev{Rev: r.BaseRev, Sha: r.Base},
		Head:      jsonRev{Rev: r.HeadRev, Sha: r.Head},
		MergeBase: r.MergeBase,
		Templates: []jsonTemplate{},
		Results:   r.Results,
		Notes:     r.Notes,
		Command:   r.Command,
	}
	for _, t := range r.Templates {
		jt := jsonTemplate{Group: t.Group, Path: t.Path, Status: string(t.Status), Via: t.Via}
		if t.OldPath != t.Path {
			jt.OldPath = t.OldPath
		}
		out.Templates = append(out.Templates, jt)
	}
	if out.Results == nil {
		out.Results = []checks.Result{}
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
