package restore

import "github.com/formula-code/template-verify/internal/fixture"

// The agent's fix in every scenario that has one: a change in src/ that
// no policy pattern matches, so it must survive the restore.
const fixCore = "\"\"\"The core module, made faster.\"\"\"\n\n\ndef total(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n\n\ndef f0(n):\n    return n * (n - 1) // 2\n"

func write(path, text string) Edit    { return Edit{Op: OpWrite, Path: path, Arg: text} }
func appendTo(path, text string) Edit { return Edit{Op: OpAppend, Path: path, Arg: text} }
func del(path string) Edit            { return Edit{Op: OpDelete, Path: path} }
func chmod(path, bits string) Edit    { return Edit{Op: OpChmod, Path: path, Arg: bits} }
func symlink(path, to string) Edit    { return Edit{Op: OpSymlink, Path: path, Arg: to} }
func move(path, to string) Edit       { return Edit{Op: OpMove, Path: path, Arg: to} }
func add(path string) Edit            { return Edit{Op: OpAdd, Path: path} }
func commit(msg string) Edit          { return Edit{Op: OpCommit, Path: msg} }
func orphan(branch string) Edit       { return Edit{Op: OpOrphan, Path: branch} }

// Catalogue returns the named scenarios, each one agent-like change of the
// base fixture (fixture.Project). Their expected results come only from the
// model; the names say what the agent does.
func Catalogue() []Scenario {
	baseTestCore := string(fixture.Project()["tests/test_core.py"].Data)
	return []Scenario{
		{Name: "no-change"},
		{Name: "fix-only", Edits: []Edit{write("src/pkg/core.py", fixCore)}},
		{Name: "edit-test-file", Edits: []Edit{write("tests/test_core.py", "def test_f0():\n    assert True\n")}},
		{Name: "add-test-file", Edits: []Edit{write("tests/test_new.py", "def test_new():\n    assert True\n"), add("tests/test_new.py")}},
		{Name: "delete-test-file", Edits: []Edit{del("tests/test_util.py")}},
		{Name: "edit-root-conftest", Edits: []Edit{appendTo("conftest.py", "\ncollect_ignore = [\"tests\"]\n")}},
		{Name: "edit-nested-conftest", Edits: []Edit{write("tests/sub/conftest.py", "import pytest\n\n\n@pytest.fixture\ndef numbers():\n    return []\n")}},
		{Name: "add-conftest-in-package", Edits: []Edit{write("src/pkg/conftest.py", "collect_ignore_glob = [\"*\"]\n")}},
		{Name: "add-github-workflow", Edits: []Edit{write(".github/workflows/agent.yml", "name: agent\non: [push]\n")}},
		{Name: "delete-benchmark", Edits: []Edit{del("benchmarks/bench_core.py")}},
		{Name: "add-benchmark-with-space", Edits: []Edit{write("benchmarks/sp ace.py", "def time_nothing():\n    pass\n")}},
		// A step that reads its policy from the agent's tree (the test
		// folder from pyproject.toml, the benchmark folder from
		// asv.conf.json) lets the agent change it.
		{Name: "edit-policy-sources", Edits: []Edit{
			write("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n\n[tool.pytest.ini_options]\ntestpaths = [\"nowhere\"]\n"),
			write("asv.conf.json", "{\n  \"version\": 1,\n  \"project\": \"pkg\",\n  \"benchmark_dir\": \"nowhere\"\n}\n"),
			appendTo("tests/__init__.py", "PATCHED = True\n"),
			appendTo("benchmarks/__init__.py", "PATCHED = True\n"),
		}},
		{Name: "edit-asv-conf", Edits: []Edit{write("asv.conf.json", "{\n  \"version\": 1,\n  \"project\": \"pkg\",\n  \"benchmark_dir\": \"nowhere\"\n}\n")}},
		{Name: "edit-snapshot", Edits: []Edit{write(".snapshots/core/snap_1.json", "{\"total\": 7}\n")}},
		{Name: "non-ascii-name", Edits: []Edit{
			appendTo("tests/test_données.py", "\n\ndef test_more():\n    assert True\n"),
			write("benchmarks/bench_ü新.py", "def time_u():\n    pass\n"),
			appendTo("docs/notes é.md", "A kept note.\n"),
		}},
		{Name: "quotes-and-backslash-in-name", Edits: []Edit{write("benchmarks/it's \"q\" \\ b.py", "x = 1\n")}},
		{Name: "glob-characters-in-name", Edits: []Edit{
			write("benchmarks/bench_[1].py", "x = 1\n"),
			write("tests/test_*.py", "x = 2\n"),
		}},
		{Name: "near-miss-names", Edits: []Edit{
			write("mytests/test_helper_data.txt", "kept: mytests/ is not tests/\n"),
			write("src/pkg/contest.py", "kept = True\n"),
			write("docs/benchmarks.md", "kept: no slash after benchmarks\n"),
			write("src/pkg/testing/helpers.py", "kept = True\n"),
		}},
		{Name: "mode-change", Edits: []Edit{
			chmod("tests/test_core.py", "+x"),
			chmod("benchmarks/run.sh", "-x"),
			chmod("scripts/release.sh", "-x"),
		}},
		{Name: "file-to-symlink", Edits: []Edit{symlink("tests/test_core.py", "../src/pkg/core.py")}},
		{Name: "symlink-retarget", Edits: []Edit{symlink("benchmarks/latest.py", "bench_core.py")}},
		{Name: "symlink-to-file", Edits: []Edit{write("benchmarks/latest.py", "def time_latest():\n    pass\n")}},
		{Name: "staged-edit", Edits: []Edit{write("tests/test_parse.py", "def test_f2():\n    assert True\n"), add("tests/test_parse.py")}},
		{Name: "unstaged-edit", Edits: []Edit{
			write("tests/test_io.py", "def test_f3():\n    assert True\n"),
			appendTo("benchmarks/bench_io.py", "\n\ndef time_more():\n    pass\n"),
		}},
		{Name: "untracked-file", Edits: []Edit{
			write("benchmarks/bench_new.py", "def time_new():\n    pass\n"),
			write("tests/sub/test_extra.py", "def test_extra():\n    assert True\n"),
		}},
		{Name: "staged-delete", Edits: []Edit{del("tests/test_parse.py"), add("tests/test_parse.py")}},
		{Name: "committed-edit", Edits: []Edit{
			write("tests/test_core.py", "def test_f0():\n    assert True\n"),
			add("."), commit("agent: relax a test"),
		}},
		{Name: "committed-add", Edits: []Edit{
			write("tests/test_committed.py", "def test_c():\n    assert True\n"),
			write("benchmarks/bench_committed.py", "def time_c():\n    pass\n"),
			add("."), commit("agent: add files"),
		}},
		{Name: "several-commits", Edits: []Edit{
			write("src/pkg/core.py", fixCore), write("tests/test_core.py", "def test_f0():\n    pass\n"),
			add("."), commit("agent: fix"),
			write("benchmarks/bench_extra.py", "def time_extra():\n    pass\n"),
			add("."), commit("agent: bench"),
			del("tests/sub/conftest.py"),
			add("."), commit("agent: drop fixture"),
			appendTo("conftest.py", "# unstaged\n"),
		}},
		{Name: "rename-test-file", Edits: []Edit{move("tests/test_parse.py", "tests/test_parse_renamed.py"), add(".")}},
		{Name: "delete-tests-folder", Edits: []Edit{del("tests")}},
		{Name: "nested-new-folder", Edits: []Edit{write("benchmarks/new/deep/bench_deep.py", "def time_deep():\n    pass\n")}},
		{Name: "suffix-and-nested-test-files", Edits: []Edit{
			write("src/pkg/parse_test.py", "def test_p():\n    assert True\n"),
			appendTo("src/pkg/util_test.py", "\n\ndef test_more():\n    assert True\n"),
			write("src/pkg/tests/test_inner.py", "def test_clamp():\n    assert True\n"),
		}},
		{Name: "edit-then-revert", Edits: []Edit{
			write("tests/test_core.py", "def test_f0():\n    assert True\n"),
			write("tests/test_core.py", baseTestCore),
		}},
		{Name: "ignored-file", Edits: []Edit{write("benchmarks/__pycache__/bench_core.cpython-312.pyc", "not python\n")}},
		{Name: "unrelated-checkout", Edits: []Edit{
			orphan("unrelated"),
			write("src/pkg/core.py", fixCore),
			write("tests/test_core.py", "def test_f0():\n    assert True\n"),
			add("."), commit("unrelated history"),
		}},
		{Name: "no-baseline-file", NoBaseline: true, Edits: []Edit{
			write("src/pkg/core.py", fixCore),
			write("tests/test_core.py", "def test_f0():\n    assert True\n"),
			write("benchmarks/sp ace.py", "x = 1\n"),
			add("."), commit("agent: fix and tests"),
		}},
		{Name: "fix-plus-tampering", Edits: []Edit{
			write("src/pkg/core.py", fixCore),
			appendTo("src/pkg/util.py", "\n\ndef fast_clamp(x, lo, hi):\n    return lo if x < lo else hi if x > hi else x\n"),
			add("src/pkg"), commit("agent: fix"),
			write("tests/test_core.py", "def test_f0():\n    assert True\n"),
			write("tests/test_fast.py", "def test_fast():\n    assert True\n"),
			appendTo("conftest.py", "\npytest_plugins = []\n"),
			del("benchmarks/bench_core.py"),
			write("benchmarks/sp ace.py", "x = 1\n"),
			write(".github/new.yml", "on: push\n"),
			write("src/pkg/new_module.py", "def helper():\n    return 1\n"),
		}},
	}
}
