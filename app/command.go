package app

import "strings"

// CommandWord is the comment command that starts a verification.
const CommandWord = "/template-verify"

// parseCommand reports whether a comment body asks for a verification: a
// line that starts with /template-verify, alone or followed by white
// space and more words ("/template-verify run"). Lines in code blocks
// and quoted lines ("> /template-verify") do not count, so quoting an
// earlier request does not start a run.
func parseCommand(body string) bool {
	inFence := false
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		rest, ok := strings.CutPrefix(t, CommandWord)
		if !ok {
			continue
		}
		if rest == "" || rest[0] == ' ' || rest[0] == '\t' {
			return true
		}
	}
	return false
}
