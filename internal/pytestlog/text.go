package pytestlog

import "unicode/utf8"

// IsSpace reports whether Python's str.isspace is true for r (and so
// whether Python's re matches it with \s). utf8.RuneError from an invalid
// byte is not white space.
func IsSpace(r rune) bool {
	switch {
	case r >= '\t' && r <= '\r', r >= 0x1c && r <= 0x20:
		return true
	case r < 0x85:
		return false
	}
	switch r {
	case 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// isLineBreak reports whether Python's str.splitlines ends a line at r.
func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// decodeRune decodes the first rune of s. An invalid byte decodes as
// utf8.RuneError of width 1, so it is never a break or white space; an
// empty string gives utf8.RuneError of width 0.
func decodeRune(s string) (rune, int) {
	return utf8.DecodeRuneInString(s)
}

// Lines splits s as Python's str.splitlines does (without keepends): \r\n
// counts as one break, and a break at the very end adds no empty line.
func Lines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, size := decodeRune(s[i:])
		if !isLineBreak(r) {
			i += size
			continue
		}
		out = append(out, s[start:i])
		i += size
		if r == '\r' && i < len(s) && s[i] == '\n' {
			i++
		}
		start = i
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// Strip removes leading and trailing white space as Python's str.strip()
// does with no argument.
func Strip(s string) string {
	start := 0
	for start < len(s) {
		r, size := decodeRune(s[start:])
		if r == utf8.RuneError || !IsSpace(r) {
			break
		}
		start += size
	}
	end := len(s)
	for end > start {
		r, size := utf8.DecodeLastRuneInString(s[start:end])
		if r == utf8.RuneError || !IsSpace(r) {
			break
		}
		end -= size
	}
	return s[start:end]
}
