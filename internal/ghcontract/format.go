package ghcontract

import (
	"errors"
	"regexp"
	"strings"
)

// uriTemplate checks RFC 6570 URI templates. The validator's own check
// splits the template at "/" before it pairs the braces, so it refuses
// GitHub's "{/other_user}" (a path-segment expansion); this one pairs
// the braces over the whole template and checks each expression.
func uriTemplate(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	for {
		open := strings.IndexAny(s, "{}")
		if open < 0 {
			return nil
		}
		if s[open] == '}' {
			return errors.New("a closing brace without an opening one")
		}
		end := strings.IndexAny(s[open+1:], "{}")
		if end < 0 || s[open+1+end] == '{' {
			return errors.New("no matching closing brace")
		}
		if expr := s[open+1 : open+1+end]; !expression.MatchString(expr) {
			return errors.New("not an RFC 6570 expression: {" + expr + "}")
		}
		s = s[open+1+end+1:]
	}
}

// expression is an RFC 6570 expression: an optional operator and a
// comma-separated list of variables with an optional modifier.
var expression = regexp.MustCompile(`^[+#./;?&=,!@|]?([A-Za-z0-9_.%]+(:[1-9][0-9]{0,3}|\*)?)(,[A-Za-z0-9_.%]+(:[1-9][0-9]{0,3}|\*)?)*$`)
