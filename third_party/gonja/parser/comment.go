package parser

import (
	"fmt"

	"github.com/formula-code/template-verify/third_party/gonja/logging"
	"github.com/formula-code/template-verify/third_party/gonja/nodes"
	"github.com/formula-code/template-verify/third_party/gonja/tokens"
)

func (p *Parser) ParseComment() (*nodes.Comment, error) {
	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"current": p.Current(),
		}, "ParseComment")
	}

	tok := p.Match(tokens.CommentBegin)
	if tok == nil {
		msg := fmt.Sprintf(`Expected '%s' , got %s`, p.Config.CommentStartString, p.Current())
		return nil, p.Error(msg, p.Current())
	}

	comment := &nodes.Comment{
		Start: tok,
	}

	tok = p.Match(tokens.Data)
	if tok == nil {
		comment.Text = ""
	} else {
		comment.Text = tok.Val
	}

	tok = p.Match(tokens.CommentEnd)
	if tok == nil {
		msg := fmt.Sprintf(`Expected '%s' , got %s`, p.Config.CommentEndString, p.Current())
		return nil, p.Error(msg, p.Current())
	}
	comment.End = tok
	if data := p.Current(tokens.Data); data != nil {
		data.Trim = data.Trim || len(comment.End.Val) > 0 && comment.End.Val[0] == '-'
	}

	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"node": comment,
		}, "ParseComment return")
	}
	return comment, nil
}
