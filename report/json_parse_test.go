package report

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestParseJSONRoundTrip: every fixture read back from its JSON is the
// same report, except the fields the JSON does not hold (Links, Duration,
// ConfigSource, a template's group-relative paths), and its JSON encodes to the same bytes again.
func TestParseJSONRoundTrip(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			want := fx.make()
			data, err := want.JSON()
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseJSON(data)
			if err != nil {
				t.Fatal(err)
			}
			want.Links, want.Duration, want.ConfigSource = Links{}, 0, ""
			for i := range want.Templates {
				tp := &want.Templates[i]
				tp.Rel, tp.OldRel = "", "" // group-relative paths: not in the JSON
				if tp.OldPath == "" {
					tp.OldPath = tp.Path
				}
			}
			if len(want.Notes) == 0 {
				want.Notes = nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ParseJSON(JSON()) differs:\n got %+v\nwant %+v", got, want)
			}
			again, err := got.JSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(data) {
				t.Errorf("JSON of the parsed report differs:\n%s\nwant\n%s", again, data)
			}
		})
	}
}

// TestParseJSONErrors: a decoding error wraps encoding/json's, so a
// caller can place it by its offset.
func TestParseJSONErrors(t *testing.T) {
	t.Parallel()
	_, err := ParseJSON([]byte(`{"results": [{"check": 5}]}`))
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || !strings.HasSuffix(te.Field, "check") {
		t.Fatalf("type error: err = %v, want a *json.UnmarshalTypeError on the check field", err)
	}
	_, err = ParseJSON([]byte(`{"overall": "success",}`))
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("syntax error: err = %v, want a *json.SyntaxError", err)
	}
}
