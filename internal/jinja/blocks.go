package jinja

import (
	"github.com/formula-code/template-verify/third_party/gonja/tokens"
)

// blockTags are the statements that need an end tag ("set" only in its
// block form, without "=").
var blockTags = map[string]bool{
	"for": true, "if": true, "macro": true, "call": true, "filter": true,
	"with": true, "autoescape": true, "block": true, "raw": true, "trans": true,
	"set": true,
}

type openBlock struct {
	name string
	line int
}

// unclosedBlock lexes src and returns the innermost block statement that
// has no end tag, for an error at the end of the template.
func (e *Env) unclosedBlock(src string) (b openBlock, ok bool) {
	stack, _ := e.blockStack(src)
	if len(stack) == 0 {
		return openBlock{}, false
	}
	return stack[len(stack)-1], true
}

// mismatchedEnd lexes src and returns, at the first end tag that does not
// close the innermost open block ("{% endif %}" inside an open "for"), that
// block and the end tag's line: the block is the one not closed.
func (e *Env) mismatchedEnd(src string) (b openBlock, endLine int, ok bool) {
	_, bad := e.blockStack(src)
	if bad == nil {
		return openBlock{}, 0, false
	}
	return bad.open, bad.endLine, true
}

type badEnd struct {
	open    openBlock
	endLine int
}

// blockStack lexes src and returns the blocks open at its end, or, at the
// first end tag that does not close the innermost open block, the blocks
// open there and that block with the end tag's line.
func (e *Env) blockStack(src string) (stack []openBlock, bad *badEnd) {
	defer func() {
		if recover() != nil {
			stack, bad = nil, nil
		}
	}()
	s := tokens.LexAll(src, e.cfg)
	for !s.End() {
		t := s.Next()
		if t == nil || t.Type != tokens.BlockBegin {
			continue
		}
		name := s.Current()
		if name == nil || name.Type != tokens.Name {
			continue
		}
		s.Next()
		switch {
		case name.Val == "set":
			assign := false
			for !s.End() && s.Current().Type != tokens.BlockEnd {
				if s.Next().Type == tokens.Assign {
					assign = true
				}
			}
			if !assign {
				stack = append(stack, openBlock{name: "set", line: name.Line})
			}
		case blockTags[name.Val]:
			stack = append(stack, openBlock{name: name.Val, line: name.Line})
		case len(name.Val) > 3 && name.Val[:3] == "end" && blockTags[name.Val[3:]]:
			if n := len(stack); n > 0 && stack[n-1].name != name.Val[3:] {
				return stack, &badEnd{open: stack[n-1], endLine: name.Line}
			}
			if n := len(stack); n > 0 {
				stack = stack[:n-1]
			}
		}
	}
	return stack, nil
}

// UnclosedBlockLine returns the line of the innermost block statement of
// the template name (relative to the root) that has no end tag, or 0. A
// Jinja2 "Unexpected end of template" error names the last line; this is
// the line of the "if" or "for" that is not closed.
func (e *Env) UnclosedBlockLine(name string) int {
	src, ok := e.Source(name)
	if !ok {
		return 0
	}
	if b, _, ok := e.mismatchedEnd(src); ok {
		return b.line
	}
	if b, ok := e.unclosedBlock(src); ok {
		return b.line
	}
	return 0
}
