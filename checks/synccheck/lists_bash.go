package synccheck

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/formula-code/template-verify/internal/shparse"
)

// bashLists returns the arrays of a shell script (every NAME=(...), also
// under declare or local; "-e" before each pattern is dropped) and, for each
// grep command, its -e patterns and its -f files. mvdan.cc/sh parses it.
func bashLists(src string) ([]List, error) {
	f, err := shparse.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("bash: %w", err)
	}
	var lists []List
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name == nil || n.Array == nil || n.Append {
				return true
			}
			l := List{Kind: "bash array", Name: n.Name.Value, Line: int(n.Pos().Line())}
			for _, el := range n.Array.Elems {
				if el.Value == nil || el.Index != nil {
					return true // an associative array is not a list
				}
				l.Items = append(l.Items, Item{Value: wordValue(src, el.Value), Line: int(el.Value.Pos().Line())})
			}
			l.Items = dropFlags(l.Items)
			lists = append(lists, l)
		case *syntax.CallExpr:
			lists = append(lists, grepLists(src, n)...)
		case *syntax.CaseClause:
			lists = append(lists, caseLists(src, n)...)
		}
		return true
	})
	return lists, nil
}

// dropFlags removes the "-e" words of an array written as grep arguments,
// "-e PAT -e PAT ...": only when every other word is "-e".
func dropFlags(items []Item) []Item {
	if len(items) < 2 || len(items)%2 != 0 {
		return items
	}
	var out []Item
	for i := 0; i < len(items); i += 2 {
		if items[i].Value != "-e" {
			return items
		}
		out = append(out, items[i+1])
	}
	return out
}

// grepCommands are the commands whose -e and -f arguments form lists.
var grepCommands = map[string]bool{"grep": true, "egrep": true, "fgrep": true}

// grepLists returns the -e patterns and the -f files of a grep command.
func grepLists(src string, c *syntax.CallExpr) []List {
	if len(c.Args) == 0 || !grepCommands[wordValue(src, c.Args[0])] {
		return nil
	}
	pats := List{Kind: "grep -e words", Line: int(c.Pos().Line())}
	files := List{Kind: "grep -f files", Line: int(c.Pos().Line())}
	args := c.Args[1:]
	for i := 0; i < len(args); i++ {
		w := wordValue(src, args[i])
		next := func() (Item, bool) {
			if i+1 >= len(args) {
				return Item{}, false
			}
			i++
			return Item{Value: wordValue(src, args[i]), Line: int(args[i].Pos().Line())}, true
		}
		line := int(args[i].Pos().Line())
		switch {
		case w == "--":
			i = len(args)
		case w == "-e" || w == "--regexp":
			if it, ok := next(); ok {
				pats.Items = append(pats.Items, it)
			}
		case w == "-f" || w == "--file":
			if it, ok := next(); ok {
				files.Items = append(files.Items, it)
			}
		case strings.HasPrefix(w, "--regexp="):
			pats.Items = append(pats.Items, Item{Value: strings.TrimPrefix(w, "--regexp="), Line: line})
		case strings.HasPrefix(w, "--file="):
			files.Items = append(files.Items, Item{Value: strings.TrimPrefix(w, "--file="), Line: line})
		case strings.HasPrefix(w, "-e") && len(w) > 2:
			pats.Items = append(pats.Items, Item{Value: w[2:], Line: line})
		case strings.HasPrefix(w, "-f") && len(w) > 2:
			files.Items = append(files.Items, Item{Value: w[2:], Line: line})
		}
	}
	return []List{pats, files}
}

// caseLists returns the globs of each arm of a case statement, named by
// the word the statement matches ("$path"). An arm's globs are a set: the
// order of "a|b|c)" does not change what it matches.
func caseLists(src string, c *syntax.CaseClause) []List {
	name := ""
	if c.Word != nil {
		name = wordValue(src, c.Word)
	}
	var lists []List
	for _, arm := range c.Items {
		l := List{Kind: "case globs", Name: name, Line: int(arm.Pos().Line())}
		for _, w := range arm.Patterns {
			l.Items = append(l.Items, Item{Value: wordValue(src, w), Line: int(w.Pos().Line())})
		}
		lists = append(lists, l)
	}
	return lists
}
