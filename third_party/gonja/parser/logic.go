package parser

import (
	"github.com/formula-code/template-verify/third_party/gonja/logging"
	"github.com/formula-code/template-verify/third_party/gonja/nodes"
	"github.com/formula-code/template-verify/third_party/gonja/tokens"
)

var compareOps = []tokens.Type{
	tokens.Equals,
	tokens.Ne,
	tokens.GreaterThan,
	tokens.GreaterThanOrEqual,
	tokens.LowerThan,
	tokens.LowerThanOrEqual,
}

func BinOp(token *tokens.Token) *nodes.BinOperator {
	return &nodes.BinOperator{Token: token}
}

func (p *Parser) ParseLogicalExpression() (nodes.Expression, error) {
	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"current": p.Current(),
		}, "ParseLogicalExpression")
	}
	return p.parseOr()
}

func (p *Parser) parseOr() (nodes.Expression, error) {
	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"current": p.Current(),
		}, "parseOr")
	}

	var expr nodes.Expression

	expr, err := p.parseAnd()
	if err != nil {
		return nil, err
	}

	for p.Current(tokens.Or) != nil {
		op := BinOp(p.Pop())
		right, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		expr = &nodes.BinaryExpression{
			Left:     expr,
			Right:    right,
			Operator: op,
		}
	}

	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"expr": expr,
		}, "parseOr return")
	}
	return expr, nil
}

func (p *Parser) parseAnd() (nodes.Expression, error) {
	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"current": p.Current(),
		}, "parseAnd")
	}

	var expr nodes.Expression

	expr, err := p.parseNot()
	if err != nil {
		return nil, err
	}

	for p.Current(tokens.And) != nil {
		op := BinOp(p.Pop())

		right, err := p.parseNot()
		if err != nil {
			return nil, err
		}

		expr = &nodes.BinaryExpression{
			Left:     expr,
			Right:    right,
			Operator: op,
		}
	}

	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"expr": expr,
		}, "parseAnd return")
	}
	return expr, nil
}

func (p *Parser) parseNot() (nodes.Expression, error) {
	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"current": p.Current(),
		}, "parseNot")
	}

	op := p.Match(tokens.Not)
	expr, err := p.parseCompare()
	if err != nil {
		return nil, err
	}

	if op != nil {
		expr = &nodes.Negation{
			Operator: op,
			Term:     expr,
		}
	}

	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"expr": expr,
		}, "parseNot return")
	}
	return expr, nil
}

func (p *Parser) parseCompare() (nodes.Expression, error) {
	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"current": p.Current(),
		}, "parseCompare")
	}

	var expr nodes.Expression

	expr, err := p.ParseMath()
	if err != nil {
		return nil, err
	}

	for p.Current(compareOps...) != nil {
		op := p.Pop()

		right, err := p.ParseMath()
		if err != nil {
			return nil, err
		}

		if right != nil {
			expr = &nodes.BinaryExpression{
				Left:     expr,
				Operator: BinOp(op),
				Right:    right,
			}
		}
	}

	expr, err = p.ParseTest(expr)
	if err != nil {
		return nil, err
	}

	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"expr": expr,
		}, "parseCompare return")
	}
	return expr, nil
}
