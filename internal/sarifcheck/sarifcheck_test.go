package sarifcheck

import (
	"strings"
	"testing"
)

// good is a small log that code scanning takes.
const good = `{
  "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
  "version": "2.1.0",
  "runs": [{
    "tool": {"driver": {"name": "t", "informationUri": "https://example.org/t",
      "rules": [{"id": "render", "shortDescription": {"text": "Renders."}, "helpUri": "https://example.org/t/render.md"}]}},
    "results": [{"ruleId": "render", "level": "error", "message": {"text": "bad"},
      "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a%20b/test.sh", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 1}}}],
      "partialFingerprints": {"x/v1": "abc"}}]
  }]
}`

// TestValidate: the good log passes; each change that breaks one of
// GitHub's rules is refused with a message naming it, and a change that
// breaks the schema is refused by the schema.
func TestValidate(t *testing.T) {
	t.Parallel()
	if err := Validate([]byte(good)); err != nil {
		t.Fatalf("the good log: %v", err)
	}
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"no location", `"locations": [{"physicalLocation": {"artifactLocation": {"uri": "a%20b/test.sh", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 1}}}],`, ``, "0 locations"},
		{"no fingerprint", `"partialFingerprints": {"x/v1": "abc"}`, `"partialFingerprints": {}`, "no partialFingerprints"},
		{"name repeats id", `{"id": "render",`, `{"id": "render", "name": "render",`, "name repeats the id"},
		{"relative helpUri", `"helpUri": "https://example.org/t/render.md"`, `"helpUri": "render.md"`, "helpUri"},
		{"no short description", `"shortDescription": {"text": "Renders."}, `, ``, "no shortDescription"},
		{"unknown rule", `"ruleId": "render"`, `"ruleId": "restore"`, `no rule "restore"`},
		{"absolute file", `"uri": "a%20b/test.sh"`, `"uri": "file:///a/test.sh"`, "not a relative URI"},
		{"related location without id", `"partialFingerprints"`, `"relatedLocations": [{"physicalLocation": {"artifactLocation": {"uri": "b.sh"}}}], "partialFingerprints"`, "without an id"},
		{"related location id twice", `"partialFingerprints"`, `"relatedLocations": [{"id": 1, "physicalLocation": {"artifactLocation": {"uri": "b.sh"}}}, {"id": 1, "physicalLocation": {"artifactLocation": {"uri": "c.sh"}}}], "partialFingerprints"`, "id 1 twice"},
		{"related location absolute", `"partialFingerprints"`, `"relatedLocations": [{"id": 1, "physicalLocation": {"artifactLocation": {"uri": "/b.sh"}}}], "partialFingerprints"`, "related: file"},
	} {
		b := strings.Replace(good, c.old, c.new, 1)
		if b == good {
			t.Fatalf("%s: the change does not apply", c.name)
		}
		err := Validate([]byte(b))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	if err := Schema([]byte(strings.Replace(good, `"level": "error"`, `"level": "failure"`, 1))); err == nil {
		t.Error("the schema takes level \"failure\"")
	}
}
