package synccheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
	"go.yaml.in/yaml/v3"
)

// The lists of data files are read with their own parsers: go.yaml.in/yaml/v3
// for YAML, encoding/json for JSON, github.com/pelletier/go-toml/v2 for
// TOML. A list is a sequence or array whose elements are all strings; its
// name is its key path ("restore.patterns", "jobs[0].paths").

// keyPath joins a key path and a key.
func keyPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func indexPath(parent string, i int) string { return parent + "[" + strconv.Itoa(i) + "]" }

// yamlLists reads every document of a YAML file.
func yamlLists(src string) ([]List, error) {
	dec := yaml.NewDecoder(strings.NewReader(src))
	var lists []List
	for doc := 0; ; doc++ {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return lists, nil
			}
			return nil, fmt.Errorf("yaml: %w", err)
		}
		prefix := ""
		if doc > 0 {
			prefix = fmt.Sprintf("document %d:", doc+1)
		}
		yamlWalk(&n, prefix, &lists, 0)
	}
}

// maxDepth bounds the nesting that the data walkers follow.
const maxDepth = 64

func yamlWalk(n *yaml.Node, at string, lists *[]List, depth int) {
	if depth > maxDepth || len(*lists) > maxListsPerFile {
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			yamlWalk(c, at, lists, depth+1)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			yamlWalk(n.Content[i+1], keyPath(at, n.Content[i].Value), lists, depth+1)
		}
	case yaml.SequenceNode:
		l := List{Kind: "YAML list", Name: at, Line: n.Line}
		plain := true
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode || c.Tag != "!!str" {
				plain = false
				break
			}
			l.Items = append(l.Items, Item{Value: c.Value, Line: c.Line})
		}
		if plain {
			*lists = append(*lists, l)
			return
		}
		for i, c := range n.Content {
			yamlWalk(c, indexPath(at, i), lists, depth+1)
		}
	}
}

// jsonLists reads a JSON file token by token with encoding/json, so that
// each string has its line.
func jsonLists(src string) ([]List, error) {
	dec := json.NewDecoder(strings.NewReader(src))
	dec.UseNumber()
	nl := newLineIndex(src)
	// start finds the offset where the next token begins.
	start := func(off int) int {
		for off < len(src) && strings.IndexByte(" \t\r\n,:", src[off]) >= 0 {
			off++
		}
		return off
	}
	type frame struct {
		array bool
		path  string
		key   string // the object's current key
		want  bool   // an object awaits a key
		n     int    // elements seen (arrays)
		list  List
		plain bool // every element so far is a string
	}
	var stack []*frame
	var lists []List
	childPath := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if top.array {
			return indexPath(top.path, top.n)
		}
		return keyPath(top.path, top.key)
	}
	for {
		off := start(int(dec.InputOffset()))
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if len(stack) > 0 {
				return nil, errors.New("json: the document ends inside a value")
			}
			return lists, nil
		}
		if err != nil {
			return nil, fmt.Errorf("json: %w", err)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && !top.array && top.want {
			if k, ok := tok.(string); ok {
				top.key, top.want = k, false
				continue
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '[', '{':
				if top != nil && top.array {
					top.plain = false
				}
				f := &frame{array: t == '[', path: childPath(), want: t == '{', plain: true}
				f.list = List{Kind: "JSON list", Name: f.path, Line: nl.line(off)}
				if len(stack) > maxDepth {
					return nil, errors.New("json: nested too deep")
				}
				stack = append(stack, f)
				continue
			case ']':
				if top.plain && len(lists) < maxListsPerFile {
					lists = append(lists, top.list)
				}
			}
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				parent := stack[len(stack)-1]
				parent.n++
				parent.want = !parent.array
			}
		case string:
			if top != nil && top.array {
				if top.plain && len(top.list.Items) < maxItems+1 {
					top.list.Items = append(top.list.Items, Item{Value: t, Line: nl.line(off)})
				}
				top.n++
			} else if top != nil {
				top.want = true
			}
		default:
			if top != nil && top.array {
				top.plain = false
				top.n++
			} else if top != nil {
				top.want = true
			}
		}
	}
}

// tomlLists reads a TOML file: it must decode (go-toml's decoder checks
// keys defined twice), and go-toml's parser gives each array and string
// its bytes, so its line.
func tomlLists(src string) ([]List, error) {
	var doc map[string]any
	if err := toml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, fmt.Errorf("toml: %w", err)
	}
	nl := newLineIndex(src)
	var p unstable.Parser
	p.Reset([]byte(src))
	var lists []List
	table := ""
	arrayTables := map[string]int{}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			table = tomlKey(e.Key())
		case unstable.ArrayTable:
			k := tomlKey(e.Key())
			table = indexPath(k, arrayTables[k])
			arrayTables[k]++
		case unstable.KeyValue:
			tomlValue(e.Value(), keyPath(table, tomlKey(e.Key())), nl.line(int(e.Raw.Offset)), nl, &lists, 0)
		}
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("toml: %w", err)
	}
	return lists, nil
}

func tomlKey(it unstable.Iterator) string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return strings.Join(parts, ".")
}

// tomlValue walks a value whose key is on line.
func tomlValue(v *unstable.Node, at string, line int, nl lineIndex, lists *[]List, depth int) {
	if v == nil || depth > maxDepth || len(*lists) > maxListsPerFile {
		return
	}
	switch v.Kind {
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			kv := it.Node()
			if kv.Kind == unstable.KeyValue {
				tomlValue(kv.Value(), keyPath(at, tomlKey(kv.Key())), nl.line(int(kv.Raw.Offset)), nl, lists, depth+1)
			}
		}
	case unstable.Array:
		l := List{Kind: "TOML array", Name: at, Line: line}
		var elems []*unstable.Node
		plain := true
		it := v.Children()
		for it.Next() {
			c := it.Node()
			if c.Kind == unstable.Comment {
				continue
			}
			elems = append(elems, c)
			if c.Kind != unstable.String {
				plain = false
				continue
			}
			l.Items = append(l.Items, Item{Value: string(bytes.Clone(c.Data)), Line: nl.line(int(c.Raw.Offset))})
		}
		if plain {
			*lists = append(*lists, l)
			return
		}
		for i, c := range elems {
			first := line
			if c.Kind == unstable.Array {
				if s := c.Children(); s.Next() && s.Node().Kind == unstable.String {
					first = nl.line(int(s.Node().Raw.Offset))
				}
			}
			tomlValue(c, indexPath(at, i), first, nl, lists, depth+1)
		}
	}
}

// DataList returns the items of the list of strings at key path key
// ("restore.patterns", "jobs.0.paths") in a YAML, JSON or TOML file.
func DataList(src, format, key string) ([]Item, error) {
	var lists []List
	var err error
	switch format {
	case "yaml":
		lists, err = yamlLists(src)
	case "json":
		lists, err = jsonLists(src)
	case "toml":
		lists, err = tomlLists(src)
	default:
		return nil, fmt.Errorf("unknown data format %q", format)
	}
	if err != nil {
		return nil, err
	}
	for _, l := range lists {
		if dottedPath(l.Name) == key {
			return l.Items, nil
		}
	}
	return nil, fmt.Errorf("no %s list of strings at %s: %w", strings.ToUpper(format), key, errNotFound)
}

// dottedPath writes the indexes of a key path as keys: "a[0].b" is "a.0.b".
func dottedPath(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "[", "."), "]", "")
}
