package junit

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/internal/safefile"
)

// Outcome is the result of one test case.
type Outcome string

const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"  // a <failure> element: the test body failed
	Error   Outcome = "error"   // an <error> element: setup, teardown or collection failed
	Skipped Outcome = "skipped" // a <skipped> element, also xfail
)

// Bad reports whether the outcome counts as a failing test.
func (o Outcome) Bad() bool { return o == Failed || o == Error }

// Case is one <testcase>.
type Case struct {
	Classname string
	Name      string
	// File is the file attribute (xunit1), relative to pytest's rootdir;
	// empty when pytest did not write it.
	File string
	// Line is the 1-based line of the test definition; pytest writes it
	// 0-based, and 0 here means unknown.
	Line    int
	Time    float64
	Outcome Outcome
	// Message is the message attribute of the failure, error or skipped
	// element; Text is its body (for a failure: the traceback).
	Message string
	Text    string
	// SystemOut and SystemErr hold captured output, when pytest wrote it.
	SystemOut string
	SystemErr string
}

// CollectionError reports whether the case stands for a test module that
// pytest could not collect (for example, an import error).
func (c Case) CollectionError() bool {
	return c.Outcome == Error && c.Classname == "" && c.Message == "collection failure"
}

// Suite is one <testsuite> with the counts pytest wrote on it.
type Suite struct {
	Name                             string
	Tests, Failures, Errors, Skipped int
	Time                             float64
	Cases                            []Case
}

// Report is a whole JUnit file.
type Report struct {
	Suites []Suite
}

// Cases returns the cases of every suite in file order.
func (r *Report) Cases() []Case {
	var out []Case
	for _, s := range r.Suites {
		out = append(out, s.Cases...)
	}
	return out
}

// Counts are outcome totals computed from the test cases.
type Counts struct {
	Passed, Failed, Errors, Skipped int
}

// Total is the number of test cases.
func (c Counts) Total() int { return c.Passed + c.Failed + c.Errors + c.Skipped }

// String writes the counts as pytest's summary line does, for example
// "1 failed, 22 passed, 1 skipped, 2 errors"; "no tests" when empty.
func (c Counts) String() string {
	var parts []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, strconv.Itoa(n)+" "+many)
		}
	}
	add(c.Failed, "failed", "failed")
	add(c.Passed, "passed", "passed")
	add(c.Skipped, "skipped", "skipped")
	add(c.Errors, "error", "errors")
	if len(parts) == 0 {
		return "no tests"
	}
	return strings.Join(parts, ", ")
}

// Counts totals the outcomes of every case.
func (r *Report) Counts() Counts {
	var c Counts
	for _, tc := range r.Cases() {
		switch tc.Outcome {
		case Passed:
			c.Passed++
		case Failed:
			c.Failed++
		case Error:
			c.Errors++
		case Skipped:
			c.Skipped++
		}
	}
	return c
}

// MaxFileSize is the largest JUnit file ParseFile reads.
const MaxFileSize = 32 << 20

// ParseFile reads and parses the JUnit file at path. Code from a pull
// request could have written it: it is read with safefile, so a symlink,
// a FIFO or a device is refused (safefile.ErrNotRegular) and a file past
// MaxFileSize too (safefile.ErrTooLarge). A missing file gives an error
// that matches fs.ErrNotExist.
func ParseFile(path string) (*Report, error) {
	data, err := safefile.Read(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("junit: %w", err)
	}
	return Parse(path, data)
}

// Parse parses JUnit XML; name is the file name used in errors. The root
// element may be <testsuites> or a single <testsuite>.
func Parse(name string, data []byte) (*Report, error) {
	var root xmlNode
	dec := xml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			if len(bytes.TrimSpace(data)) == 0 {
				return nil, fmt.Errorf("junit: %s: the file is empty", name)
			}
			return nil, fmt.Errorf("junit: %s: the file has no XML element", name)
		}
		var se *xml.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("junit: %s:%d: %s: %w", name, se.Line, se.Msg, err)
		}
		return nil, fmt.Errorf("junit: %s: %w", name, err)
	}
	var suites []xmlSuite
	switch root.XMLName.Local {
	case "testsuites":
		suites = root.Suites
	case "testsuite":
		suites = []xmlSuite{{Attrs: root.Attrs, Cases: root.Cases}}
	default:
		return nil, fmt.Errorf("junit: %s: the root element is <%s>, want <testsuites> or <testsuite>", name, root.XMLName.Local)
	}
	rep := &Report{}
	for i, xs := range suites {
		s, err := xs.convert()
		if err != nil {
			return nil, fmt.Errorf("junit: %s: testsuite %d: %w", name, i+1, err)
		}
		rep.Suites = append(rep.Suites, s)
	}
	return rep, nil
}
