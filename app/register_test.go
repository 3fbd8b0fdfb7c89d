package app

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	templateverify "github.com/formula-code/template-verify"

	"github.com/formula-code/template-verify/internal/fakegithub"
)

const regToken = "0123456789abcdef0123"

func testPEM(t *testing.T) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
}

// regServer starts the registration page against the fake GitHub.
func regServer(t *testing.T, gh *fakegithub.Server, dir string, done func(Credentials)) *httptest.Server {
	t.Helper()
	reg, err := NewRegistrar(RegisterConfig{
		PublicURL: "https://verify.example.org",
		GitHubURL: "https://github.example.org",
		APIURL:    gh.URL,
		Org:       "formula-code",
		Manifest:  templateverify.AppManifest,
		Dir:       dir,
		Token:     regToken,
		Done:      done,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(reg)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var formRE = regexp.MustCompile(`<form action="([^"]*)" method="post">\s*<input type="hidden" name="manifest" value="([^"]*)">`)

// TestRegisterManifestFlow: the page posts app.yml as a manifest to
// GitHub with a state; the callback with GitHub's code and that state
// exchanges the code (POST /app-manifests/{code}/conversions) and writes
// the App id, key and webhook secret 0600 where serve reads them.
func TestRegisterManifestFlow(t *testing.T) {
	t.Parallel()
	gh := fakegithub.New(t)
	key := testPEM(t)
	gh.AddManifestCode("code123", fakegithub.ManifestApp{ID: 4242, Slug: "tv-test", Name: "tv-test", WebhookSecret: "whsec", PEM: key, HTMLURL: "https://github.example.org/apps/tv-test"})
	dir := filepath.Join(t.TempDir(), "app")
	var got []Credentials
	srv := regServer(t, gh, dir, func(c Credentials) { got = append(got, c) })

	if code, _ := get(t, srv.URL+"/register"); code != http.StatusForbidden {
		t.Errorf("page without the token: %d, want 403", code)
	}
	code, body := get(t, srv.URL+"/register?token="+regToken)
	if code != http.StatusOK {
		t.Fatalf("page: %d\n%s", code, body)
	}
	m := formRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no manifest form in the page:\n%s", body)
	}
	action, err := url.Parse(html.UnescapeString(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	if action.Host != "github.example.org" || action.Path != "/organizations/formula-code/settings/apps/new" {
		t.Errorf("form posts to %s", action)
	}
	state := action.Query().Get("state")
	if len(state) < 32 {
		t.Errorf("state %q is short", state)
	}
	var manifest struct {
		Name string `json:"name"`
		Hook struct {
			URL    string `json:"url"`
			Active bool   `json:"active"`
		} `json:"hook_attributes"`
		Redirect string            `json:"redirect_url"`
		Perms    map[string]string `json:"default_permissions"`
		Events   []string          `json:"default_events"`
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(m[2])), &manifest); err != nil {
		t.Fatalf("manifest is not JSON: %v\n%s", err, m[2])
	}
	if manifest.Hook.URL != "https://verify.example.org/webhook" || !manifest.Hook.Active {
		t.Errorf("hook = %+v", manifest.Hook)
	}
	if manifest.Redirect != "https://verify.example.org/register/callback" {
		t.Errorf("redirect_url = %q", manifest.Redirect)
	}
	wantPerms := map[string]string{"checks": "write", "pull_requests": "write", "contents": "read", "metadata": "read", "issues": "read"}
	if len(manifest.Perms) != len(wantPerms) {
		t.Errorf("permissions = %v, want %v", manifest.Perms, wantPerms)
	}
	for k, v := range wantPerms {
		if manifest.Perms[k] != v {
			t.Errorf("permission %s = %q, want %q", k, manifest.Perms[k], v)
		}
	}

	// A forged callback (no state of ours) converts nothing.
	if code, _ := get(t, srv.URL+"/register/callback?code=code123&state=forged"); code != http.StatusBadRequest {
		t.Errorf("callback with a forged state: %d, want 400", code)
	}
	if n := len(gh.Requests()); n != 0 {
		t.Errorf("a forged callback reached GitHub: %d requests", n)
	}
	code, body = get(t, srv.URL+"/register/callback?code=code123&state="+state)
	if code != http.StatusOK || !strings.Contains(body, "tv-test") {
		t.Fatalf("callback: %d\n%s", code, body)
	}
	reqs := gh.Requests()
	if len(reqs) != 1 || reqs[0].Method != http.MethodPost || reqs[0].Path != "/app-manifests/code123/conversions" || reqs[0].Token != "" {
		t.Errorf("requests = %+v, want one POST /app-manifests/code123/conversions without a token", reqs)
	}
	want := map[string]string{FileAppID: "4242\n", FilePrivateKey: key, FileWebhookSecret: "whsec", FileAppSlug: "tv-test\n"}
	for name, content := range want {
		p := filepath.Join(dir, name)
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", name, st.Mode().Perm())
		}
		b, _ := os.ReadFile(p)
		if string(b) != content {
			t.Errorf("%s = %q", name, b)
		}
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", st.Mode().Perm())
	}
	if len(got) != 1 || got[0].AppID != 4242 {
		t.Errorf("Done got %+v", got)
	}
	// Registered: the page and the callback are closed.
	if code, _ := get(t, srv.URL+"/register/callback?code=code123&state="+state); code != http.StatusGone {
		t.Errorf("second callback: %d, want 410", code)
	}
	if code, _ := get(t, srv.URL+"/register?token="+regToken); code != http.StatusServiceUnavailable {
		t.Errorf("page after registration: %d, want 503", code)
	}
}

// TestRegisterFailures: a bad code, an answer without a key, or old
// credentials in the folder write nothing and leave the folder as it was.
func TestRegisterFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		app      *fakegithub.ManifestApp // nil: the code is unknown
		existing bool                    // an app-id file is there
		code     string
		want     string
	}{
		{name: "unknown code", code: "nope", want: "404"},
		{name: "no key", app: &fakegithub.ManifestApp{ID: 1, Slug: "x", WebhookSecret: "s", PEM: "not a key"}, code: "c1", want: "private key"},
		{name: "no webhook secret", app: &fakegithub.ManifestApp{ID: 1, Slug: "x", PEM: "k"}, code: "c2", want: "no webhook secret"},
		{name: "credentials exist", app: &fakegithub.ManifestApp{ID: 1, Slug: "x", WebhookSecret: "s"}, existing: true, code: "c3", want: "exists already"},
		{name: "code with a path", code: "..%2F..%2Fapp", want: "no valid code"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gh := fakegithub.New(t)
			if tc.app != nil {
				a := *tc.app
				if a.PEM == "" {
					a.PEM = testPEM(t)
				}
				gh.AddManifestCode(tc.code, a)
			}
			dir := t.TempDir()
			if tc.existing {
				if err := os.WriteFile(filepath.Join(dir, FileAppID), []byte("7\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			srv := regServer(t, gh, dir, func(Credentials) { t.Error("Done called") })
			_, body := get(t, srv.URL+"/register?token="+regToken)
			m := formRE.FindStringSubmatch(body)
			if m == nil {
				t.Fatalf("no form:\n%s", body)
			}
			action, _ := url.Parse(html.UnescapeString(m[1]))
			code, body := get(t, srv.URL+"/register/callback?code="+tc.code+"&state="+action.Query().Get("state"))
			if code == http.StatusOK || !strings.Contains(body, tc.want) {
				t.Errorf("callback: %d %q, want an error with %q", code, body, tc.want)
			}
			entries, _ := os.ReadDir(dir)
			if n := len(entries); n != map[bool]int{false: 0, true: 1}[tc.existing] {
				t.Errorf("the folder has %d files after a failed registration", n)
			}
		})
	}
}

// TestAppManifestFile: app.yml links to the README's App section, asks
// for no write access to issues, and redirects to the callback path.
func TestAppManifestFile(t *testing.T) {
	t.Parallel()
	text := string(templateverify.AppManifest)
	if strings.Contains(text, "docs/app.md") || !strings.Contains(text, "#run-as-an-app") {
		t.Errorf("app.yml does not link to the README's App section")
	}
	b, err := ManifestJSON(templateverify.AppManifest, "https://h.example")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if p := m["default_permissions"].(map[string]any); p["issues"] != "read" {
		t.Errorf("issues permission = %v, want read", p["issues"])
	}
	if m["redirect_url"] != "https://h.example/register/callback" {
		t.Errorf("redirect_url = %v", m["redirect_url"])
	}
}
