package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
)

// minShared is the size (in bytes of compact JSON) from which a subtree
// that occurs more than once is kept once, under components/schemas.
const minShared = 400

// dedupe keeps each large schema subtree that occurs more than once in
// roots and schemas once, as schemas["shared-<hash>"], and puts a $ref in
// its places: the webhook description inlines the same pull request,
// repository and user objects in every event. The documents mean the
// same to a validator.
func dedupe(schemas map[string]any, roots ...any) {
	count := map[string]int{}
	tally := func(v any) {
		walkSchemas(v, func(s map[string]any) {
			if h, ok := hashOf(s); ok {
				count[h]++
			}
		})
	}
	for _, r := range roots {
		tally(r)
	}
	for _, s := range schemas {
		tally(s)
	}
	replace := func(s map[string]any) (string, bool) {
		h, ok := hashOf(s)
		if !ok || count[h] < 2 {
			return "", false
		}
		name := "shared-" + h
		if _, seen := schemas[name]; !seen {
			cp := map[string]any{}
			for k, v := range s {
				cp[k] = v
			}
			schemas[name] = cp
		}
		return "#/components/schemas/" + name, true
	}
	for _, r := range roots {
		substitute(r, replace)
	}
	// Replacing adds shared schemas; go over the map until none is new.
	done := map[string]bool{}
	for len(done) < len(schemas) {
		for _, name := range sortedKeys(schemas) {
			if !done[name] {
				done[name] = true
				substitute(schemas[name], replace)
			}
		}
	}
}

// hashOf is a short hash of a large subtree; ok is false for small ones.
func hashOf(s map[string]any) (string, bool) {
	b, _ := json.Marshal(s)
	if len(b) < minShared {
		return "", false
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6]), true
}

// schemaMaps are the keywords whose value maps names to schemas: the map
// itself is no schema. notSchemas are the keywords whose value is data.
var (
	schemaMaps = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}
	notSchemas = map[string]bool{"enum": true, "const": true, "default": true, "examples": true, "example": true, "required": true}
)

// children calls f with each subschema directly below the schema v and a
// setter that replaces it.
func children(v any, f func(m map[string]any, set func(any))) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			switch {
			case notSchemas[k]:
			case schemaMaps[k]:
				pm, _ := c.(map[string]any)
				for name, p := range pm {
					if m, ok := p.(map[string]any); ok {
						f(m, func(r any) { pm[name] = r })
					}
				}
			default:
				switch cv := c.(type) {
				case map[string]any:
					f(cv, func(r any) { x[k] = r })
				case []any:
					for i, e := range cv {
						if m, ok := e.(map[string]any); ok {
							f(m, func(r any) { cv[i] = r })
						}
					}
				}
			}
		}
	}
}

// walkSchemas calls f on every subschema below v (not v itself).
func walkSchemas(v any, f func(map[string]any)) {
	children(v, func(m map[string]any, _ func(any)) {
		f(m)
		walkSchemas(m, f)
	})
}

// substitute replaces, below v, each subschema that replace names with a
// $ref to it; it does not go into a replaced one.
func substitute(v any, replace func(map[string]any) (string, bool)) {
	children(v, func(m map[string]any, set func(any)) {
		if ref, ok := replace(m); ok {
			set(map[string]any{"$ref": ref})
			return
		}
		substitute(m, replace)
	})
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
