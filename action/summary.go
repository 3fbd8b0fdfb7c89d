package action

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/formula-code/template-verify/internal/markdown"
	"github.com/formula-code/template-verify/report"
)

// summary writes the report to the job summary, within 1 MiB, with a note
// first when the run could not write to GitHub.
func (r *runner) summary(rep *report.Report) {
	note := ""
	if r.readOnly != "" {
		note = "> **Read-only run:** " + r.readOnly + " The report is here, and the findings are annotations of this step.\n\n"
	}
	md, err := rep.MarkdownLimit(MaxSummaryBytes - len(note))
	if err != nil {
		text := rep.Text()
		fence := markdown.Fence(text)
		md = fmt.Sprintf("The report does not render as markdown: %s\n\n%stext\n%s\n%s\n", summaryLine(err.Error()), fence, text, fence)
	}
	r.writeSummary(note + md)
}

func (r *runner) writeSummary(md string) {
	if r.o.Getenv("GITHUB_STEP_SUMMARY") == "" {
		r.log.Warn("GITHUB_STEP_SUMMARY is not set, so there is no job summary")
		return
	}
	if err := safely(func() { r.gha.AddStepSummary(md) }); err != nil {
		r.gha.Warningf("The job summary was not written: %s", err)
	}
}

// outputs writes the JSON report and sets the step outputs.
func (r *runner) outputs(rep *report.Report, commentURL string) {
	r.setOutput("conclusion", string(rep.Overall))
	r.setOutput("comment-url", commentURL)
	data, err := rep.JSON()
	if err == nil {
		err = os.WriteFile(filepath.Join(r.workspace, ReportFile), append(data, '\n'), 0o644)
	}
	if err != nil {
		r.gha.Warningf("The JSON report was not written: %s", err)
		r.setOutput("report-json", "")
		return
	}
	r.setOutput("report-json", ReportFile)
}

func (r *runner) setOutput(name, value string) {
	if r.o.Getenv("GITHUB_OUTPUT") == "" {
		r.log.Warn("GITHUB_OUTPUT is not set, so the output is not set", "output", name, "value", value)
		return
	}
	if err := safely(func() { r.gha.SetOutput(name, value) }); err != nil {
		r.gha.Warningf("The output %s was not set: %s", name, err)
	}
}

// safely runs f and turns a panic (go-githubactions panics when it cannot
// write a file) into an error.
func safely(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	f()
	return nil
}
