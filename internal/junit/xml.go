package junit

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

type xmlNode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Suites  []xmlSuite `xml:"testsuite"`
	Cases   []xmlCase  `xml:"testcase"`
}

type xmlSuite struct {
	Attrs []xml.Attr `xml:",any,attr"`
	Cases []xmlCase  `xml:"testcase"`
}

type xmlResult struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

type xmlCase struct {
	Classname string      `xml:"classname,attr"`
	Name      string      `xml:"name,attr"`
	File      string      `xml:"file,attr"`
	Line      string      `xml:"line,attr"`
	Time      string      `xml:"time,attr"`
	Failures  []xmlResult `xml:"failure"`
	Errors    []xmlResult `xml:"error"`
	Skipped   []xmlResult `xml:"skipped"`
	SystemOut []string    `xml:"system-out"`
	SystemErr []string    `xml:"system-err"`
}

func attr(attrs []xml.Attr, name string) string {
	for _, a := range attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (xs xmlSuite) convert() (Suite, error) {
	s := Suite{Name: attr(xs.Attrs, "name")}
	ints := []struct {
		key string
		dst *int
	}{{"tests", &s.Tests}, {"failures", &s.Failures}, {"errors", &s.Errors}, {"skipped", &s.Skipped}}
	for _, f := range ints {
		v := attr(xs.Attrs, f.key)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return s, fmt.Errorf("attribute %s=%q is not a count", f.key, v)
		}
		*f.dst = n
	}
	if v := attr(xs.Attrs, "time"); v != "" {
		t, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return s, fmt.Errorf("attribute time=%q is not a number", v)
		}
		s.Time = t
	}
	for i, xc := range xs.Cases {
		c, err := xc.convert()
		if err != nil {
			return s, fmt.Errorf("testcase %d (%s): %w", i+1, xc.Name, err)
		}
		s.Cases = append(s.Cases, c)
	}
	return s, nil
}

func (xc xmlCase) convert() (Case, error) {
	c := Case{
		Classname: xc.Classname,
		Name:      xc.Name,
		File:      xc.File,
		Outcome:   Passed,
		SystemOut: strings.Join(xc.SystemOut, "\n"),
		SystemErr: strings.Join(xc.SystemErr, "\n"),
	}
	if xc.Name == "" {
		return c, fmt.Errorf("testcase has no name")
	}
	if xc.Line != "" {
		n, err := strconv.Atoi(xc.Line)
		if err != nil || n < 0 {
			return c, fmt.Errorf("attribute line=%q is not a line number", xc.Line)
		}
		c.Line = n + 1 // pytest writes 0-based lines
	}
	if xc.Time != "" {
		t, err := strconv.ParseFloat(xc.Time, 64)
		if err != nil {
			return c, fmt.Errorf("attribute time=%q is not a number", xc.Time)
		}
		c.Time = t
	}
	// A failed test with a teardown error has both elements: the failure
	// says more about the test.
	var res []xmlResult
	switch {
	case len(xc.Failures) > 0:
		c.Outcome, res = Failed, xc.Failures
	case len(xc.Errors) > 0:
		c.Outcome, res = Error, xc.Errors
	case len(xc.Skipped) > 0:
		c.Outcome, res = Skipped, xc.Skipped
	}
	if len(res) > 0 {
		c.Message = res[0].Message
		texts := make([]string, 0, len(res))
		for _, r := range res {
			texts = append(texts, strings.TrimSpace(r.Text))
		}
		c.Text = strings.Join(texts, "\n")
	}
	return c, nil
}
