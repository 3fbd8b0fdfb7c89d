package rendercode

import (
	"bufio"
	"bytes"
	"path"
	"slices"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// pytestFiles are the files pytest reads its configuration from, in the
// order it looks for them at the top of the repository, with the section
// that holds it.
var pytestFiles = []struct{ file, section string }{
	{"pytest.ini", "pytest"},
	{"pyproject.toml", "tool.pytest.ini_options"},
	{"tox.ini", "pytest"},
	{"setup.cfg", "tool:pytest"},
}

// maxConfigFile bounds a pytest configuration file that is read.
const maxConfigFile = 256 << 10

// pytestConfig is what decides which files pytest collects as tests.
type pytestConfig struct {
	File        string   // the file it comes from; "" for pytest's defaults
	TestPaths   []string // folders (or files) to collect from; empty: all
	PythonFiles []string // globs of file names
}

// defaultPythonFiles is pytest's python_files default.
var defaultPythonFiles = []string{"test_*.py", "*_test.py"}

// readPytestConfig reads the first pytest configuration file of files
// (top-level paths to their text) as pytest does: pytest.ini always wins,
// the others only when they have pytest's section.
func readPytestConfig(files map[string][]byte) pytestConfig {
	for _, pf := range pytestFiles {
		data, ok := files[pf.file]
		if !ok || len(data) > maxConfigFile {
			continue
		}
		var opts map[string][]string
		var found bool
		if pf.file == "pyproject.toml" {
			opts, found = tomlOptions(data)
		} else {
			opts, found = iniSection(data, pf.section)
		}
		if !found && pf.file != "pytest.ini" {
			continue
		}
		c := pytestConfig{File: pf.file, TestPaths: opts["testpaths"], PythonFiles: opts["python_files"]}
		if len(c.PythonFiles) == 0 {
			c.PythonFiles = defaultPythonFiles
		}
		return c
	}
	return pytestConfig{PythonFiles: defaultPythonFiles}
}

// isTest reports whether pytest collects the file p (a repository path)
// as a test module when it runs without arguments.
func (c pytestConfig) isTest(p string) bool {
	if !strings.HasSuffix(p, ".py") {
		return false
	}
	base := path.Base(p)
	globs := c.PythonFiles
	if len(globs) == 0 {
		globs = defaultPythonFiles
	}
	if !slices.ContainsFunc(globs, func(g string) bool { ok, _ := path.Match(g, base); return ok }) {
		return false
	}
	if len(c.TestPaths) == 0 {
		return true
	}
	return slices.ContainsFunc(c.TestPaths, func(tp string) bool {
		tp = strings.TrimSuffix(strings.TrimPrefix(tp, "./"), "/")
		if tp == "." || tp == "" || tp == p {
			return true
		}
		if strings.ContainsAny(tp, "*?[") {
			ok, _ := path.Match(tp, path.Dir(p))
			return ok
		}
		return strings.HasPrefix(p, tp+"/")
	})
}

// iniSection returns the options of section in an ini file, each split
// on white space as pytest splits its list options; a value may go on in
// indented lines.
func iniSection(data []byte, section string) (map[string][]string, bool) {
	opts := map[string][]string{}
	found, in := false, false
	key := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxConfigFile)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, ";"):
			continue
		case strings.HasPrefix(trimmed, "[") && strings.HasSuffix(trimmed, "]"):
			in = strings.TrimSpace(trimmed[1:len(trimmed)-1]) == section
			found = found || in
			key = ""
		case !in:
		case line[0] == ' ' || line[0] == '\t':
			if key != "" {
				opts[key] = append(opts[key], strings.Fields(trimmed)...)
			}
		default:
			k, v, ok := strings.Cut(trimmed, "=")
			if !ok {
				k, v, ok = strings.Cut(trimmed, ":")
			}
			if !ok {
				key = ""
				continue
			}
			key = strings.TrimSpace(k)
			opts[key] = strings.Fields(v)
		}
	}
	return opts, found
}

// tomlOptions returns [tool.pytest.ini_options] of a pyproject.toml.
func tomlOptions(data []byte) (map[string][]string, bool) {
	var doc struct {
		Tool struct {
			Pytest struct {
				IniOptions map[string]any `toml:"ini_options"`
			} `toml:"pytest"`
		} `toml:"tool"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil || doc.Tool.Pytest.IniOptions == nil {
		return nil, false
	}
	opts := map[string][]string{}
	for k, v := range doc.Tool.Pytest.IniOptions {
		switch x := v.(type) {
		case string:
			opts[k] = strings.Fields(x)
		case []any:
			for _, e := range x {
				if s, ok := e.(string); ok {
					opts[k] = append(opts[k], s)
				}
			}
		}
	}
	return opts, true
}
