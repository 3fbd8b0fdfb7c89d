package main

import (
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/formula-code/template-verify/examples"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
	"github.com/formula-code/template-verify/verify/child"
)

// TestVerifyChildGivesTheReportOfRun: serve's child (this binary's
// hidden verify-child) gives the report that verify.Run gives in this
// process for the same head: every field survives the pipe.
func TestVerifyChildGivesTheReportOfRun(t *testing.T) {
	ctx := context.Background()
	built, err := examples.Build(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	only := []string{"render"}
	want, err := verify.Run(ctx, verify.Options{RepoDir: built.Dir, Base: built.BaseOf(examples.HeadBad), Head: examples.HeadBad, RepoName: "o/r", Only: only})
	if err != nil {
		t.Fatal(err)
	}
	r := &child.Runner{
		Command: []string{os.Args[0], "-test.run=^$", "--", verifyChildCommand},
		Env:     append(os.Environ(), processModeEnv+"=main"),
	}
	got, err := r.Verify(ctx, child.Request{RepoDir: built.Dir, Base: built.BaseOf(examples.HeadBad), Head: examples.HeadBad, RepoName: "o/r", Only: only}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range []*report.Report{want, got} {
		rep.Duration = 0
		for i := range rep.Results {
			rep.Results[i].Duration = 0
		}
	}
	if len(want.Results) == 0 || len(want.Results[0].Findings) == 0 {
		t.Fatalf("the in-process report has no findings to compare: %+v", want.Results)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the child's report differs from verify.Run's:\nchild:   %+v\nprocess: %+v", got, want)
	}
}
