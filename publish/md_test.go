package publish

import "github.com/formula-code/template-verify/internal/markdown"

// mdState reads markdown line by line for checkMarkdown (comment_test.go).
//
// Deprecated: forwarding until callers move; use markdown.State.
type mdState struct {
	st                            markdown.State
	fenceLen, tableLines, details int
}

func (s *mdState) line(l string) {
	s.st.Line(l)
	s.fenceLen, s.tableLines, s.details = 0, s.st.TableLines(), s.st.OpenDetails()
	if s.st.InFence() {
		s.fenceLen = 1
	}
}
