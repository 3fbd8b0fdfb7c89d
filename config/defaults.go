package config

import "time"

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

// Default returns the configuration used when the repository has no
// .github/template-verify.yml. It fits the datasmith layout: the harbor task
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
				Vars: map[string]any{
					"owner":                "example-owner",
					"repo":                 "example-repo",
					"issue_number":         1,
					"task_id":              "example-owner__example-repo-1",
					"base_commit":          "0123456789abcdef0123456789abcdef01234567",
					"extra_setup_commands": "",
					"base_image":           "python:3.12-slim",
					"numba_threads":        1,
					"lsv_rounds":           3,
					"restore_paths":        []any{"benchmarks"},
				},
				Matrix: map[string][]any{
					"run_pytest": {true, false},
					"rounds":     {5, nil},
				},
				Templates: []Template{{Path: "**"}},
			},
			{
				Name: "prompts",
				Root: "src/datasmith/github/templates",
				Jinja: Jinja{
					TrimBlocks:   true,
					LstripBlocks: true,
				},
				Vars: map[string]any{
					"repo_description":     "A small example library.",
					"initial_observations": "The slow path is in parse().",
					"issues":               []any{map[string]any{"number": 1, "title": "parse() is slow", "body": "It takes 2 s."}},
				},
				Templates: []Template{{Path: "**/*.j2"}},
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
		Gate:    Gate{Branches: []string{"release/*", "main"}},
		Archive: DefaultArchive(),
		Ledger:  DefaultLedger(),
		Checks: Checks{Timeouts: map[string]Duration{
			"render":  {2 * time.Minute},
			"restore": {5 * time.Minute},
			"pytest":  {30 * time.Minute},
		}},
	}
}
