package config

import (
	"maps"
	"time"
)

// Patterns protected by the restore step of the datasmith test.sh: the
// measurement setup (seed PR "discard agent edits to the measurement setup")
// and the test files (seed PR "restore step also matches test files").
var (
	MeasurementPatterns = []string{
		`(^|/)benchmarks?/`,
		`(^|/)asv\.conf`,
		`(^|/)\.snapshots/`,
		`(^|/)conftest\.py$`,
		`(^|/)\.github/`,
	}
	TestFilePatterns = []string{
		`(^|/)tests?/`,
		`(^|/)test_[^/]*\.py$`,
		`(^|/)[^/]*_test\.py$`,
	}
)

// Derivation is what a configuration without a config file read from the
// repository's Python render code (package internal/rendercode).
type Derivation struct {
	// RenderFiles are the Python files that build a jinja2.Environment or
	// render a template.
	RenderFiles []string
	// Roots are the loader roots found, resolved or not in a group.
	Roots []string
	// Notes say what could not be read or resolved.
	Notes []string
	// Fallback is true when the render code gives no group, so the
	// built-in datasmith groups below apply.
	Fallback bool
}

// Default returns the built-in configuration. A repository without
// .github/template-verify.yml gets it with the groups, the pytest suite and
// the restore template derived from its render code (verify.LoadConfigAt);
// the groups below apply only when that finds none. They fit the datasmith layout: the harbor task
// templates (StrictUndefined, keep_trailing_newline) and the prompt
// templates (trim_blocks, lstrip_blocks, default undefined).
func Default() *Config {
	return &Config{
		Version: 1,
		Source:  "(defaults)",
		Groups: []Group{
			{
				Name: "harbor",
				Root: "src/datasmith/harbor_adapter/template",
				Jinja: Jinja{
					StrictUndefined:     true,
					KeepTrailingNewline: true,
				},
				// Each template gets what harbor_adapter/utils.py passes to
				// it (render_test_sh, render_run_setup_sh, render_dockerfile,
				// render_solution_sh); the first match wins.
				Templates: []Template{
					{Path: "**/test.sh", Vars: harborVars(map[string]any{
						"base_commit":   "0123456789abcdef0123456789abcdef01234567",
						"rounds":        5,
						"restore_paths": "benchmarks",
						"render_env":    map[string]any{},
					}), Matrix: map[string][]any{"run_pytest": {true, false}, "rounds": {5, nil}}},
					{Path: "**/setup.sh", Vars: harborVars(map[string]any{
						"rounds":               5,
						"extra_setup_commands": "",
						"harbor_agent_name":    "oracle",
						"render_env":           map[string]any{},
					})},
					{Path: "**/Dockerfile", Vars: map[string]any{
						"base_image":    "python:3.12-slim",
						"numba_threads": 2,
						"lsv_rounds":    5,
						// environment/Dockerfile reads it under StrictUndefined.
						"restore_paths": "benchmarks/ tests/ conftest.py",
					}},
					{Path: "**/solve.sh", Vars: map[string]any{
						"solution_patch": "diff --git a/src/example.py b/src/example.py\n--- a/src/example.py\n+++ b/src/example.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
					}},
					// A template production does not render yet: the
					// variables any harbor template gets.
					{Path: "**", Vars: harborVars(map[string]any{"rounds": 5})},
				},
				// The adapter copies these verbatim (TEST_HELPERS,
				// entrypoint.sh) or fills instruction.md by plain string
				// replacement: they are not Jinja templates.
				Copy: []string{"**/*.py", "**/entrypoint.sh", "**/instruction.md"},
			},
			{
				Name: "prompts",
				Root: "src/datasmith/github/templates",
				Jinja: Jinja{
					TrimBlocks:   true,
					LstripBlocks: true,
				},
				// github/render.py renders issues.md.j2 with the issue
				// objects (IssueExpanded), then final.md.j2 with its output
				// as the string issues.
				Templates: []Template{
					{Path: "**/issues.md.j2", Vars: map[string]any{
						"issues": []any{map[string]any{
							"number":           1,
							"title":            "parse() is slow",
							"url":              "https://example.invalid/issues/1",
							"description":      "It takes 2 s.",
							"comments":         []any{"Seen on 1.2 too."},
							"cross_references": []any{"#2"},
						}},
					}},
					{Path: "**/*.j2", Vars: map[string]any{
						"repo_description":     "A small example library.",
						"initial_observations": "The slow path is in parse().",
						"issues":               "# Issue #1: parse() is slow\nDescription:\nIt takes 2 s.\n",
					}},
				},
			},
		},
		Restore: &Restore{
			Template: "harbor:tests/test.sh",
			Section:  &Section{Start: `^# ── Restore`, End: `^# ── `},
			Paths: RestorePaths{
				Repo:        "/workspace/repo",
				BaselineSHA: "/opt/fc_baseline_sha",
				Logs:        "/logs/artifacts",
			},
			Patterns: append(append([]string{}, MeasurementPatterns...), TestFilePatterns...),
			Report:   "/logs/artifacts/protected_restore.json",
			Random:   Random{Count: 16, Seed: 1},
			// datasmith's test.sh restores against the rendered
			// {{ base_commit }} when /opt/fc_baseline_sha is absent.
			Fallback: FallbackBaseCommit,
		},
		Pytest: &Pytest{
			Suites: []Suite{{
				Name:  "docker",
				Files: []string{"tests/docker"},
				Triggers: []string{
					"src/datasmith/harbor_adapter/template/**",
					"src/datasmith/github/templates/**",
					"tests/docker/**",
				},
				Env: map[string]string{"PYTHONPATH": "src"},
			}},
			Timeout: Duration{20 * time.Minute},
		},
		Gate:        Gate{Branches: []string{"release/*", "main"}},
		Archive:     DefaultArchive(),
		Ledger:      DefaultLedger(),
		Sync:        DefaultSync(),
		Names:       &Names{},
		Taint:       &Taint{},
		Description: &Description{},
		Checks: Checks{Timeouts: map[string]Duration{
			"render":  {2 * time.Minute},
			"restore": {5 * time.Minute},
			"pytest":  {30 * time.Minute},
			"sync":    {2 * time.Minute},
			"names":   {2 * time.Minute},
		}},
	}
}

// harborVars is what every harbor template gets (the task's identity),
// with more on top.
func harborVars(more map[string]any) map[string]any {
	vars := map[string]any{
		"owner":        "example-owner",
		"repo":         "example-repo",
		"issue_number": 1,
		"task_id":      "example-owner__example-repo__1",
	}
	maps.Copy(vars, more)
	return vars
}
