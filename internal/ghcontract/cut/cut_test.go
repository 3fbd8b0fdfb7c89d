package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNullables(t *testing.T) {
	t.Parallel()
	in := map[string]any{
		"properties": map[string]any{
			"s":        map[string]any{"type": "string", "nullable": true},
			"e":        map[string]any{"type": "string", "enum": []any{"a"}, "nullable": true},
			"r":        map[string]any{"allOf": []any{map[string]any{"$ref": "#/x"}}, "nullable": true, "description": "d"},
			"nullable": map[string]any{"type": "integer", "nullable": false},
		},
	}
	got, _ := json.Marshal(nullables(in))
	want := `{"properties":{"e":{"enum":["a",null],"type":["string","null"]},"nullable":{"type":"integer"},"r":{"anyOf":[{"type":"null"},{"allOf":[{"$ref":"#/x"}]}],"description":"d"},"s":{"type":["string","null"]}}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestDedupe(t *testing.T) {
	t.Parallel()
	big := func() map[string]any {
		return map[string]any{"type": "object", "description": strings.Repeat("x", minShared), "properties": map[string]any{"id": map[string]any{"type": "integer"}}}
	}
	schemas := map[string]any{"a": map[string]any{"properties": map[string]any{"user": big()}}}
	roots := map[string]any{"hook": map[string]any{"properties": map[string]any{"sender": big(), "properties": big()}}}
	dedupe(schemas, roots)
	out, _ := json.Marshal(map[string]any{"schemas": schemas, "roots": roots})
	if n := strings.Count(string(out), strings.Repeat("x", minShared)); n != 1 {
		t.Errorf("the shared schema is in the output %d times, want once: %s", n, out)
	}
	// A property named "properties" is a schema; the properties map is not.
	hook := roots["hook"].(map[string]any)["properties"].(map[string]any)
	if _, ok := hook["$ref"]; ok {
		t.Error("a properties map was replaced by a $ref")
	}
	if ref, _ := hook["properties"].(map[string]any)["$ref"].(string); !strings.HasPrefix(ref, "#/components/schemas/shared-") {
		t.Errorf("the property named properties: %v", hook["properties"])
	}
}
