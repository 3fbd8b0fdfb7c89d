package main

import (
	"slices"
	"sort"
	"strings"
)

// resolve follows a "#/components/<kind>/<name>" reference to a
// parameter, request body or response.
func resolve(comps map[string]any, v any) any {
	for range 5 {
		m, ok := v.(map[string]any)
		ref, _ := m["$ref"].(string)
		if !ok || ref == "" || strings.HasPrefix(ref, "#/components/schemas/") {
			return v
		}
		parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
		if len(parts) != 2 {
			return v
		}
		v = asMap(comps[parts[0]])[parts[1]]
	}
	return v
}

// jsonSchemaOf is the application/json schema of a request body or
// response, or nil.
func jsonSchemaOf(m map[string]any) any {
	for mt, c := range asMap(m["content"]) {
		if strings.HasPrefix(mt, "application/json") || strings.HasSuffix(mt, "+json") {
			return asMap(c)["schema"]
		}
	}
	return nil
}

// closure copies the named schemas and every schema reachable from roots
// through "#/components/schemas/..." references.
func closure(schemas map[string]any, roots any, always []string) map[string]any {
	picked := map[string]any{}
	var walk func(v any)
	add := func(name string) {
		if _, ok := picked[name]; ok {
			return
		}
		s, ok := schemas[name]
		if !ok {
			return
		}
		picked[name] = s
		walk(s)
	}
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && strings.HasPrefix(ref, "#/components/schemas/") {
				add(strings.TrimPrefix(ref, "#/components/schemas/"))
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(roots)
	for _, n := range always {
		add(n)
	}
	return picked
}

// noise are the keys that say nothing to a validator.
var noise = []string{"example", "examples", "x-github", "externalDocs", "x-octokit", "title"}

// strip drops examples (and, with dropDescriptions, descriptions) from a
// schema tree, in place. It skips the "properties" maps' keys themselves.
func strip(v any, dropDescriptions bool) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range noise {
			if _, isSchemaKey := x[k].(map[string]any); k == "title" && isSchemaKey {
				continue // a property named "title"
			}
			if k == "title" {
				if _, ok := x[k].(string); !ok {
					continue
				}
			}
			delete(x, k)
		}
		if dropDescriptions {
			if _, ok := x["description"].(string); ok {
				delete(x, "description")
			}
		}
		for k, c := range x {
			if k == "properties" {
				for _, p := range asMap(c) {
					strip(p, dropDescriptions)
				}
				continue
			}
			strip(c, dropDescriptions)
		}
	case []any:
		for _, c := range x {
			strip(c, dropDescriptions)
		}
	}
}

// stripInResponses drops descriptions and examples from the response
// schemas of an operation and examples from its request body, which keeps
// its descriptions: they state limits the schema does not.
func stripInResponses(op map[string]any) {
	for _, r := range asMap(op["responses"]) {
		strip(asMap(r)["schema"], true)
	}
	strip(op["body"], false)
	for _, p := range list(op["parameters"]) {
		strip(asMap(p)["schema"], true)
	}
}

// nullables turns OpenAPI 3.0's "nullable: true" into JSON Schema, in
// place, and returns v.
func nullables[T any](v T) T {
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if k == "properties" {
					for _, p := range asMap(c) {
						walk(p)
					}
					continue
				}
				walk(c)
			}
			if x["nullable"] == true {
				delete(x, "nullable")
				makeNullable(x)
			} else if _, ok := x["nullable"].(bool); ok {
				delete(x, "nullable")
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(any(v))
	return v
}

func makeNullable(x map[string]any) {
	if enum, ok := x["enum"].([]any); ok && !slices.Contains(enum, nil) {
		x["enum"] = append(enum, nil)
	}
	switch t := x["type"].(type) {
	case string:
		x["type"] = []any{t, "null"}
		return
	case []any:
		if !slices.Contains(t, any("null")) {
			x["type"] = append(t, "null")
		}
		return
	}
	// No type (a $ref or an allOf): anyOf null or the rest.
	rest := map[string]any{}
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "description" {
			continue
		}
		rest[k] = x[k]
		delete(x, k)
	}
	x["anyOf"] = []any{map[string]any{"type": "null"}, rest}
}
