package checks_test

import (
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
)

func TestIsShell(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	cases := []struct {
		entry       config.Template
		rel, output string
		want        bool
	}{
		{config.Template{}, "tests/test.sh", "", true},
		{config.Template{}, "run.bash", "", true},
		{config.Template{}, "run", "#!/usr/bin/env bash\necho\n", true},
		{config.Template{}, "run", "#!/bin/sh\n", true},
		{config.Template{}, "run.py", "#!/usr/bin/env python3\n", false},
		{config.Template{}, "README", "bash\n", false},
		{config.Template{Shell: &no}, "tests/test.sh", "#!/bin/bash\n", false},
		{config.Template{Shell: &yes}, "Dockerfile", "FROM x\n", true},
	}
	for _, c := range cases {
		if got := checks.IsShell(c.entry, c.rel, c.output); got != c.want {
			t.Errorf("IsShell(%+v, %q, %q) = %v, want %v", c.entry, c.rel, c.output, got, c.want)
		}
	}
}
