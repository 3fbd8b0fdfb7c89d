package fakegithub

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestManifestConversion: POST /app-manifests/{code}/conversions needs
// no token, answers 201 with the App once, then 404; other paths still
// need a token.
func TestManifestConversion(t *testing.T) {
	s := New(t)
	s.ExpectInvalidRequests() // a create without a body, to see the 401
	s.AddManifestCode("c1", ManifestApp{ID: 9, Slug: "tv", WebhookSecret: "w", PEM: "k"})
	post := func(path string) *http.Response {
		t.Helper()
		resp, err := http.Post(s.URL+path, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post("/app-manifests/c1/conversions")
	var got ManifestApp
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || got.ID != 9 || got.WebhookSecret != "w" || got.PEM != "k" {
		t.Errorf("first conversion: %d %+v", resp.StatusCode, got)
	}
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/app-manifests/c1/conversions", http.StatusNotFound},   // used once
		{"/app-manifests/nope/conversions", http.StatusNotFound}, // never made
		{"/repos/o/r/check-runs", http.StatusUnauthorized},       // no token
	} {
		r := post(tc.path)
		r.Body.Close()
		if r.StatusCode != tc.want {
			t.Errorf("POST %s: %d, want %d", tc.path, r.StatusCode, tc.want)
		}
	}
}
