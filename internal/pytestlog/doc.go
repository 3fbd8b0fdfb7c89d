// Package pytestlog extracts marker lines from captured pytest text, with the
// exact semantics of parse_pytest_log in the datasmith tooling.
//
// It is a lexical marker extractor, not a pytest result parser: the outcome
// of a run comes from the exit code and the JUnit file (package junit). The
// lines it returns serve only as context for annotations.
//
// Line splitting follows Python's str.splitlines: a line ends at \n, \r,
// \r\n, \v, \f, \x1c, \x1d, \x1e, \x85, U+2028 or U+2029, and a final line
// break does not start an empty line. Each line is then stripped of the
// characters for which Python's str.isspace is true, which is also the set
// that Python's re module matches with \s. Go's unicode.IsSpace differs (it
// lacks \x1c to \x1f), so the package keeps its own table.
//
// Bytes that are not valid UTF-8 are kept as they are. They are neither line
// breaks nor white space, which matches Python reading the same bytes with
// the surrogateescape error handler.
package pytestlog
