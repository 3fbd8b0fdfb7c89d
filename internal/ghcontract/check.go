package ghcontract

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Violation is one break of the contract.
type Violation struct {
	Operation string // operation id or webhook name
	Where     string // "request", "answer 201", "payload"
	Field     string // JSON pointer in the body, or "query per_page", "path check_run_id"
	Rule      string // the schema keyword or the stated rule
	Message   string
	// Tolerated marks a break GitHub answers anyway: a query parameter
	// the operation does not have (ignored), per_page over its maximum
	// (capped). The tool must not send it, but a fake may take it.
	Tolerated bool
}

func (v Violation) String() string {
	return fmt.Sprintf("%s %s: field %s: rule %s: %s", v.Operation, v.Where, v.Field, v.Rule, v.Message)
}

// CheckRequest checks a request against its operation: the path and
// query parameters, the body's schema, the rules of its descriptions and
// the Limits. op is nil (with one violation) when no operation of the cut
// has this method and path.
func (c *Contract) CheckRequest(method, path string, query url.Values, body []byte) (*Operation, []Violation) {
	op := c.Match(method, path)
	if op == nil {
		return nil, []Violation{{Operation: method + " " + path, Where: "request", Field: "path", Rule: "operation", Message: "no operation of the cut has this method and path"}}
	}
	var out []Violation
	add := func(vs []Violation) {
		for _, v := range vs {
			v.Operation, v.Where = op.ID, "request"
			out = append(out, v)
		}
	}
	pathVals := op.pathValues(path)
	known := map[string]bool{}
	for _, p := range op.params {
		var raw string
		var present bool
		switch p.in {
		case "path":
			raw, present = pathVals[p.name]
		case "query":
			known[p.name] = true
			_, present = query[p.name]
			raw = query.Get(p.name)
		default:
			continue
		}
		where := p.in + " " + p.name
		if !present {
			if p.required {
				add([]Violation{{Field: where, Rule: "required", Message: "missing"}})
			}
			continue
		}
		v, err := coerce(raw, p.typ)
		if err != nil {
			add([]Violation{{Field: where, Rule: "type " + p.typ, Message: fmt.Sprintf("%q: %v", raw, err)}})
			continue
		}
		add(prefix(where, c.validate(p.schema, v)))
		for _, r := range p.rules {
			if n, ok := v.(int64); ok && r.kind == "maximum" && n > int64(r.limit) {
				add([]Violation{{Field: where, Rule: fmt.Sprintf("maximum %d (description: %q)", r.limit, r.text), Message: strconv.FormatInt(n, 10), Tolerated: true}})
			}
		}
	}
	for name := range query {
		if !known[name] {
			add([]Violation{{Field: "query " + name, Rule: "parameters", Message: "not a parameter of the operation", Tolerated: true}})
		}
	}
	// An optional body sent as JSON null (ghinstallation does, for the
	// installation token without options) is no body.
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || (!op.bodyRequired && string(trimmed) == "null") {
		if op.bodyRequired {
			add([]Violation{{Field: "body", Rule: "requestBody required", Message: "no body"}})
		}
		return op, out
	}
	if op.body == "" {
		add([]Violation{{Field: "body", Rule: "requestBody", Message: "the operation takes no body"}})
		return op, out
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		add([]Violation{{Field: "body", Rule: "JSON", Message: err.Error()}})
		return op, out
	}
	add(c.validate(op.body, inst))
	for _, r := range op.rules {
		add(r.apply(inst))
	}
	for _, l := range Limits {
		add(l.apply(op.ID, inst))
	}
	return op, out
}

// CheckAnswer checks an answer of op against the response schema of its
// status. An error status the spec does not list for op is checked
// against GitHub's basic-error: GitHub gives 401, 403 and 5xx on any
// path.
func (c *Contract) CheckAnswer(op *Operation, status int, body []byte) []Violation {
	where := "answer " + strconv.Itoa(status)
	var out []Violation
	add := func(vs []Violation) {
		for _, v := range vs {
			v.Operation, v.Where = op.ID, where
			out = append(out, v)
		}
	}
	loc, listed := op.responses[strconv.Itoa(status)]
	if !listed {
		if status < 400 {
			return []Violation{{Operation: op.ID, Where: where, Field: "status", Rule: "responses", Message: fmt.Sprintf("the spec lists no %d (it lists %s)", status, strings.Join(op.Statuses(), ", "))}}
		}
		loc = basicErrorLoc
	}
	if loc == "" {
		if len(bytes.TrimSpace(body)) > 0 {
			add([]Violation{{Field: "body", Rule: "responses", Message: "the spec gives this status no body"}})
		}
		return out
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		add([]Violation{{Field: "body", Rule: "JSON", Message: err.Error()}})
		return out
	}
	add(c.validate(loc, inst))
	return out
}

// Statuses are the statuses the spec lists for op, sorted.
func (op *Operation) Statuses() []string {
	out := make([]string, 0, len(op.responses))
	for s := range op.responses {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Webhooks are the names of the cut's webhooks, such as
// "pull-request-opened".
func (c *Contract) Webhooks() []string {
	out := make([]string, 0, len(c.hooks))
	for n := range c.hooks {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// WebhookName is the cut's name of an event (X-GitHub-Event) and action:
// "pull_request", "ready_for_review" gives "pull-request-ready-for-review".
func WebhookName(event, action string) string {
	name := strings.ReplaceAll(event, "_", "-")
	if action != "" {
		name += "-" + strings.ReplaceAll(action, "_", "-")
	}
	return name
}

// CheckWebhook checks a payload against the webhook's schema.
func (c *Contract) CheckWebhook(name string, payload []byte) ([]Violation, error) {
	if !c.hooks[name] {
		return nil, fmt.Errorf("ghcontract: no webhook %q in the cut", name)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("ghcontract: webhook %s: %w", name, err)
	}
	var out []Violation
	for _, v := range c.validate(location(webhooksURL, "webhooks", name), inst) {
		v.Operation, v.Where = name, "payload"
		out = append(out, v)
	}
	return out, nil
}

// validate runs the schema at loc and returns one violation per failing
// keyword.
func (c *Contract) validate(loc string, inst any) []Violation {
	s, err := c.schema(loc)
	if err != nil {
		return []Violation{{Field: "schema", Rule: "compile", Message: err.Error()}}
	}
	err = s.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Violation{{Field: "body", Rule: "schema", Message: err.Error()}}
	}
	var out []Violation
	var leaves func(e *jsonschema.ValidationError)
	leaves = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				leaves(c)
			}
			return
		}
		msg := strings.TrimSpace(e.BasicOutput().Error.String())
		out = append(out, Violation{Field: "/" + strings.Join(e.InstanceLocation, "/"), Rule: strings.Join(e.ErrorKind.KeywordPath(), "/"), Message: msg})
	}
	leaves(ve)
	return out
}

func prefix(where string, vs []Violation) []Violation {
	for i := range vs {
		vs[i].Field = where + strings.TrimSuffix(vs[i].Field, "/")
	}
	return vs
}

// coerce reads a path or query value as its schema's type.
func coerce(raw, typ string) (any, error) {
	switch typ {
	case "integer":
		return strconv.ParseInt(raw, 10, 64)
	case "number":
		return strconv.ParseFloat(raw, 64)
	case "boolean":
		return strconv.ParseBool(raw)
	}
	return raw, nil
}
