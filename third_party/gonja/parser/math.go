package parser

import (
	"fmt"

	"github.com/formula-code/template-verify/third_party/gonja/logging"
	"github.com/formula-code/template-verify/third_party/gonja/nodes"
	"github.com/formula-code/template-verify/third_party/gonja/tokens"
)

func (p *Parser) ParseMath() (nodes.Expression, error) {
	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"current": p.Current(),
		}, "ParseMath")
	}

	expr, err := p.parseConcat()
	if err != nil {
		return nil, err
	}

	for p.Current(tokens.Addition, tokens.Subtraction) != nil {
		op := BinOp(p.Pop())
		right, err := p.parseConcat()
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
		}, "ParseMath return")
	}
	return expr, nil
}

func (p *Parser) parseConcat() (nodes.Expression, error) {
	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"current": p.Current(),
		}, "parseConcat")
	}

	expr, err := p.ParseMathPrioritary()
	if err != nil {
		return nil, err
	}

	for p.Current(tokens.Tilde) != nil {
		op := BinOp(p.Pop())
		right, err := p.ParseMathPrioritary()
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
		}, "parseConcat return")
	}
	return expr, nil
}

func (p *Parser) ParseMathPrioritary() (nodes.Expression, error) {
	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"current": p.Current(),
		}, "ParseMathPrioritary")
	}

	expr, err := p.ParsePower()
	if err != nil {
		return nil, err
	}

	for p.Current(tokens.Multiply, tokens.Division, tokens.FloorDivision, tokens.Modulo) != nil {
		op := BinOp(p.Pop())
		right, err := p.ParsePower()
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
		}, "ParseMathPrioritary return")
	}
	return expr, nil
}

func (p *Parser) parseUnary() (nodes.Expression, error) {
	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"current": p.Current(),
		}, "parseUnary")
	}

	sign := p.Match(tokens.Addition, tokens.Subtraction)

	expr, err := p.ParseVariableOrLiteral()
	if err != nil {
		return nil, err
	}

	if sign != nil {
		expr = &nodes.UnaryExpression{
			Operator: sign,
			Negative: sign.Val == "-",
			Term:     expr,
		}
	}

	expr, err = p.ParseFilterExpression(expr)
	if err != nil {
		return nil, err
	}

	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"expr": expr,
		}, "parseUnary return")
	}
	return expr, nil
}

func (p *Parser) ParsePower() (nodes.Expression, error) {
	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"current": p.Current(),
		}, "ParsePower")
	}

	if p.Current(tokens.In) != nil {
		return nil, nil
	}

	expr, err := p.parseUnary()
	if err != nil {
		return nil, err
	}

	for p.Current(tokens.Power) != nil {
		op := BinOp(p.Pop())
		right, err := p.parseUnary()
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
			"type": fmt.Sprintf("%T", expr),
			"expr": expr,
		}, "ParsePower return")
	}
	return expr, nil
}
