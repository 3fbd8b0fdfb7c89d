package ghcontract

import (
	"bytes"
	_ "embed" // the cut
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed rest.json
var restJSON []byte

//go:embed webhooks.json
var webhooksJSON []byte

const (
	restURL     = "https://ghcontract.local/rest.json"
	webhooksURL = "https://ghcontract.local/webhooks.json"
)

// Contract is the cut. Its schemas compile when first used: a test
// process uses a few of them.
type Contract struct {
	// Source names the packages and versions the cut was made from.
	Source     []string
	Operations []*Operation
	hooks      map[string]bool

	mu       sync.Mutex // guards compiler and compiled
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

// schema compiles (once) the schema at a location of the cut.
func (c *Contract) schema(loc string) (*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.compiled[loc]; ok {
		return s, nil
	}
	s, err := c.compiler.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("ghcontract: compile %s: %w", loc, err)
	}
	c.compiled[loc] = s
	return s, nil
}

// location is the URL of the schema at a JSON pointer of a document.
func location(base string, ptr ...string) string {
	loc := base + "#"
	for _, p := range ptr {
		loc += "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(p)
	}
	return loc
}

// Operation is one REST operation of the cut.
type Operation struct {
	ID, Method, Path string
	segments         []string
	params           []*param
	body             string // location of the body's schema; "": none
	bodyRequired     bool
	rules            []rule
	responses        map[string]string // status -> location of the schema; "": no body
}

type param struct {
	name, in, typ string
	required      bool
	schema        string // location
	rules         []rule
}

// Load returns the contract, compiled once per process.
var Load = sync.OnceValues(load)

func load() (*Contract, error) {
	rest, err := jsonschema.UnmarshalJSON(bytes.NewReader(restJSON))
	if err != nil {
		return nil, fmt.Errorf("ghcontract: rest.json: %w", err)
	}
	hooks, err := jsonschema.UnmarshalJSON(bytes.NewReader(webhooksJSON))
	if err != nil {
		return nil, fmt.Errorf("ghcontract: webhooks.json: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "uri-template", Validate: uriTemplate})
	if err := c.AddResource(restURL, rest); err != nil {
		return nil, fmt.Errorf("ghcontract: %w", err)
	}
	if err := c.AddResource(webhooksURL, hooks); err != nil {
		return nil, fmt.Errorf("ghcontract: %w", err)
	}
	out := &Contract{hooks: map[string]bool{}, compiler: c, compiled: map[string]*jsonschema.Schema{}}
	restDoc, hooksDoc := rest.(map[string]any), hooks.(map[string]any)
	for _, d := range []map[string]any{restDoc, hooksDoc} {
		if h, ok := d["x-cut"].(map[string]any); ok {
			out.Source = append(out.Source, fmt.Sprint(h["source"]))
		}
	}
	ops, _ := restDoc["operations"].(map[string]any)
	ids := make([]string, 0, len(ops))
	for id := range ops {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	r := resolver{restDoc}
	for _, id := range ids {
		raw := ops[id].(map[string]any)
		op := &Operation{ID: id, Method: raw["method"].(string), Path: raw["path"].(string), responses: map[string]string{}}
		op.segments = strings.Split(strings.Trim(op.Path, "/"), "/")
		for i, p := range list(raw["parameters"]) {
			pm := p.(map[string]any)
			sm, _ := pm["schema"].(map[string]any)
			typ, _ := sm["type"].(string)
			req, _ := pm["required"].(bool)
			desc, _ := pm["description"].(string)
			op.params = append(op.params, &param{name: pm["name"].(string), in: pm["in"].(string), typ: typ, required: req,
				schema: location(restURL, "operations", id, "parameters", fmt.Sprint(i), "schema"), rules: paramRules(desc)})
		}
		if body, ok := raw["body"]; ok {
			op.body = location(restURL, "operations", id, "body")
			op.rules = uniqueRules(r.rules(body, nil))
		}
		op.bodyRequired, _ = raw["body_required"].(bool)
		for status, rr := range raw["responses"].(map[string]any) {
			op.responses[status] = ""
			if _, ok := rr.(map[string]any)["schema"]; ok {
				op.responses[status] = location(restURL, "operations", id, "responses", status, "schema")
			}
		}
		out.Operations = append(out.Operations, op)
	}
	names, _ := hooksDoc["webhooks"].(map[string]any)
	for name := range names {
		out.hooks[name] = true
	}
	// Compile what every check needs now, so a broken cut fails Load.
	if _, err := out.schema(basicErrorLoc); err != nil {
		return nil, err
	}
	return out, nil
}

var basicErrorLoc = location(restURL, "components", "schemas", "basic-error")

// Match finds the operation of a request. A literal segment beats a
// parameter, so issues/comments/{id} is not issues/{number}/comments.
func (c *Contract) Match(method, path string) *Operation {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var best *Operation
	bestScore := -1
	for _, op := range c.Operations {
		if op.Method != method || len(op.segments) != len(segs) {
			continue
		}
		score := 0
		for i, s := range op.segments {
			if strings.HasPrefix(s, "{") {
				if segs[i] == "" {
					score = -1
					break
				}
				continue
			}
			if s != segs[i] {
				score = -1
				break
			}
			score++
		}
		if score > bestScore {
			best, bestScore = op, score
		}
	}
	return best
}

// pathValues are the path parameters of a request that matched op.
func (op *Operation) pathValues(path string) map[string]string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	out := map[string]string{}
	for i, s := range op.segments {
		if strings.HasPrefix(s, "{") && i < len(segs) {
			v, err := url.PathUnescape(segs[i])
			if err != nil {
				v = segs[i]
			}
			out[strings.Trim(s, "{}")] = v
		}
	}
	return out
}

func list(v any) []any { l, _ := v.([]any); return l }
