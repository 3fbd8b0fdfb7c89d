package action

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/formula-code/template-verify/report"
)

// summary writes the report to the job summary, within 1 MiB, with a note
// first when the run could not write to GitHub (report.JobSummary).
func (r *runner) summary(rep *report.Report) {
	r.writeSummary(rep.JobSummary(MaxSummaryBytes, r.readOnly, r.readOnly != "" && r.ev.Fork()))
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
	host := ""
	if err == nil {
		host, err = r.writeReport(append(data, '\n'))
	}
	if err != nil {
		r.gha.Warningf("The JSON report was not written: %s", err)
		r.setOutput("report-json", "")
		return
	}
	r.setOutput("report-json", host)
}

// ReportName is the file name of the JSON report, in the folder
// ReportDir of RUNNER_TEMP. It is the file name in the artifact too.
const (
	ReportDir  = "template-verify"
	ReportName = "report.json"
)

// writeReport writes the JSON report under RUNNER_TEMP, outside the
// checkout (whose files the pull request chose), and returns its path
// on the runner. A Docker action does not see RUNNER_TEMP itself: GitHub
// mounts RUNNER_TEMP/_github_home as its HOME, so there it writes to
// HOME and returns the runner's path of that file.
func (r *runner) writeReport(data []byte) (string, error) {
	tmp := r.o.Getenv("RUNNER_TEMP")
	if tmp == "" {
		return "", errors.New("RUNNER_TEMP is not set")
	}
	local, host := filepath.Join(tmp, ReportDir), filepath.Join(tmp, ReportDir)
	if st, err := os.Stat(tmp); err != nil || !st.IsDir() {
		home := r.o.Getenv("HOME")
		if home == "" || r.o.Getenv("GITHUB_ACTIONS") != "true" {
			return "", fmt.Errorf("RUNNER_TEMP %s is not a folder", tmp)
		}
		local, host = filepath.Join(home, ReportDir), filepath.Join(tmp, "_github_home", ReportDir)
	}
	if err := os.MkdirAll(local, 0o755); err != nil {
		return "", fmt.Errorf("make the report folder: %w", err)
	}
	if st, err := os.Lstat(local); err != nil || !st.IsDir() {
		return "", fmt.Errorf("the report folder %s is not a folder (a link?)", local)
	}
	file := filepath.Join(local, ReportName)
	// A new file: never write through a link that was there.
	if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("remove the old report: %w", err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("write the report: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", fmt.Errorf("write the report: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("write the report: %w", err)
	}
	return filepath.Join(host, ReportName), nil
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
