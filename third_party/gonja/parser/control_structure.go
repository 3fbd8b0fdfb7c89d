package parser

import (
	"fmt"

	"github.com/formula-code/template-verify/third_party/gonja/logging"
	"github.com/formula-code/template-verify/third_party/gonja/nodes"
	"github.com/formula-code/template-verify/third_party/gonja/tokens"
)

type ControlStructureParser func(parser *Parser, args *Parser) (nodes.ControlStructure, error)

func (p *Parser) ParseControlStructureBlock() (*nodes.ControlStructureBlock, error) {
	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"current": p.Current(),
		}, "ParseControlStructureBlock")
	}

	begin := p.Match(tokens.BlockBegin)
	if begin == nil {
		return nil, fmt.Errorf(`Expected "%s" got "%s"`, p.Config.BlockStartString, p.Current())
	}

	name := p.Match(tokens.Name)
	if name == nil {
		return nil, p.Error("Expected a controlStructure name here", p.Current())
	}

	controlStructureParser, exists := p.controlStructures.Get(name.Val)
	if !exists {
		return nil, p.Error(fmt.Sprintf("ControlStructure '%s' not found (or beginning not provided)", name.Val), name)
	}

	if logging.Enabled() {
		logging.Trace(nil, "args")
	}
	var args []*tokens.Token
	for p.Current(tokens.BlockEnd) == nil && !p.Stream().End() {
		if logging.Enabled() {
			logging.Trace(nil, "for args")
		}
		args = append(args, p.Next())
	}
	if logging.Enabled() {
		logging.Trace(nil, "loop ended")
	}

	end := p.Match(tokens.BlockEnd)
	if end == nil {
		return nil, p.Error(fmt.Sprintf(`Expected end of block "%s"`, p.Config.BlockEndString), p.Current())
	}
	if data := p.Current(tokens.Data); data != nil {
		data.Trim = data.Trim || len(end.Val) > 0 && end.Val[0] == '-'
	}

	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"args": args,
		}, "Matched end block")
	}

	stream := tokens.NewStream(args)
	if logging.Enabled() {
		logging.Trace(logging.Fields{
			"stream": stream,
		}, "Got stream")
	}
	argParser := NewParser(p.identifier, stream, p.Config, p.Loader, p.controlStructures)
	if logging.Enabled() {
		logging.Trace(nil, "argparser")
	}

	controlStructure, err := controlStructureParser(p, argParser)
	if err != nil {
		return nil, fmt.Errorf(`Unable to parse controlStructure "%s": %w`, name.Val, err)
	}
	if logging.Enabled() {
		logging.Trace(nil, "got controlStructure and return")
	}
	return &nodes.ControlStructureBlock{
		Location:         begin,
		Name:             name.Val,
		ControlStructure: controlStructure,
	}, nil
}
