package rendercode

import (
	"testing"
)

// TestPytestConfigDecidesTests: the files pytest collects as tests follow
// its configuration file (pytest.ini first, then the others only with
// pytest's section), not a fixed test_*.py rule.
func TestPytestConfigDecidesTests(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		yes   []string
		no    []string
	}{
		{"no config: pytest's defaults", nil,
			[]string{"tests/test_a.py", "a_test.py", "deep/x/test_b.py"}, []string{"tests/check_a.py", "tests/helper.py"}},
		{"pytest.ini testpaths and python_files", map[string]string{"pytest.ini": "[pytest]\ntestpaths = spec\n  more\npython_files = check_*.py\n"},
			[]string{"spec/check_a.py", "more/x/check_b.py"}, []string{"spec/test_a.py", "other/check_a.py"}},
		{"pyproject.toml ini_options", map[string]string{"pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = [\"t\"]\npython_files = [\"*_spec.py\"]\n"},
			[]string{"t/a_spec.py"}, []string{"t/test_a.py", "a_spec.py"}},
		{"pyproject without the section falls to tox.ini", map[string]string{"pyproject.toml": "[tool.black]\nline-length = 99\n", "tox.ini": "[tox]\nenvlist = py3\n[pytest]\ntestpaths = it\n"},
			[]string{"it/test_a.py"}, []string{"tests/test_a.py"}},
		{"setup.cfg tool:pytest", map[string]string{"setup.cfg": "[metadata]\nname = x\n[tool:pytest]\npython_files = tests.py test_*.py\n"},
			[]string{"app/tests.py", "test_x.py"}, []string{"x_test.py"}},
		{"pytest.ini without a section still wins", map[string]string{"pytest.ini": "", "setup.cfg": "[tool:pytest]\ntestpaths = only\n"},
			[]string{"tests/test_a.py"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string][]byte{}
			for k, v := range c.files {
				files[k] = []byte(v)
			}
			cfg := readPytestConfig(files)
			for _, p := range c.yes {
				if !cfg.isTest(p) {
					t.Errorf("%s is not a test under %+v", p, cfg)
				}
			}
			for _, p := range c.no {
				if cfg.isTest(p) {
					t.Errorf("%s is a test under %+v", p, cfg)
				}
			}
		})
	}
}
