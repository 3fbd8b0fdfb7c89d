package pytestlog

import "strings"

// Result holds the three marker buckets and the failure count. The JSON
// names match the keys of parse_pytest_log.
type Result struct {
	// Failed holds stripped lines that begin with "FAILED".
	Failed []string `json:"failed"`
	// Errors holds stripped lines that match ^E\s+, without their first two
	// characters (the E and one white-space character); more white space
	// may remain at the start.
	Errors []string `json:"errors"`
	// Assertions holds the other stripped lines that contain
	// "AssertionError".
	Assertions []string `json:"assertions"`
	// FailureCount is the size of the first non-empty bucket in the order
	// Failed, Assertions, Errors; it is not a total.
	FailureCount int `json:"failure_count"`
}

// Parse applies the rules to every line of log. For each stripped line the
// first matching rule wins:
//  1. it begins with "FAILED": the whole line goes to Failed;
//  2. it matches ^E\s+: the line without its first two characters goes to
//     Errors;
//  3. it contains "AssertionError": the whole line goes to Assertions.
//
// All matches are case-sensitive and duplicates are kept.
func Parse(log string) Result {
	var r Result
	for _, raw := range Lines(log) {
		line := Strip(raw)
		switch {
		case strings.HasPrefix(line, "FAILED"):
			r.Failed = append(r.Failed, line)
		case isErrorLine(line):
			r.Errors = append(r.Errors, dropErrorPrefix(line))
		case strings.Contains(line, "AssertionError"):
			r.Assertions = append(r.Assertions, line)
		}
	}
	r.FailureCount = failureCount(r)
	return r
}

// failureCount is len(failed) or len(assertions) or len(errors).
func failureCount(r Result) int {
	switch {
	case len(r.Failed) > 0:
		return len(r.Failed)
	case len(r.Assertions) > 0:
		return len(r.Assertions)
	default:
		return len(r.Errors)
	}
}

// isErrorLine reports whether line matches ^E\s+ with Python's \s.
func isErrorLine(line string) bool {
	if !strings.HasPrefix(line, "E") {
		return false
	}
	r, _ := decodeRune(line[1:])
	return IsSpace(r)
}

// dropErrorPrefix removes the E and the one white-space character after it,
// as Python's line[2:] removes two code points.
func dropErrorPrefix(line string) string {
	_, size := decodeRune(line[1:])
	return line[1+size:]
}
