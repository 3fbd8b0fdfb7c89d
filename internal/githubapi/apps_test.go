package githubapi

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/fakegithub"
)

// TestApps drives the App's two clients against the fake: GET /app with
// the JWT, then one installation client, made once, whose token comes
// from POST /app/installations/{id}/access_tokens.
func TestApps(t *testing.T) {
	t.Parallel()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ParseKey(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
	if err != nil {
		t.Fatal(err)
	}
	srv := fakegithub.NewApp(t, 42, &k.PublicKey)
	apps := &Apps{AppID: 42, Key: key, APIURL: srv.URL}
	ctx := context.Background()
	ac, err := apps.App()
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := ac.Apps.Get(ctx, "")
	if err != nil || a.GetSlug() != srv.Slug {
		t.Fatalf("GET /app: %v %v, want slug %s", a.GetSlug(), err, srv.Slug)
	}
	in, err := apps.Installation(7)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := apps.Installation(7); again != in {
		t.Error("a second Installation(7) made a new client")
	}
	tok, err := in.Token(ctx)
	if err != nil || !strings.HasPrefix(tok, "ghs_") {
		t.Fatalf("Token = %q, %v", tok, err)
	}
	if _, _, err := in.Client.Checks.GetCheckRun(ctx, "o", "r", 1); StatusOf(err) != 404 {
		t.Errorf("GET a missing run with the installation client: %v, want 404", err)
	}
	var paths []string
	for _, r := range srv.Requests() {
		paths = append(paths, r.Method+" "+r.Path)
	}
	want := "GET /app|POST /app/installations/7/access_tokens|GET /repos/o/r/check-runs/1"
	if got := strings.Join(paths, "|"); got != want {
		t.Errorf("requests %s, want %s", got, want)
	}
	if _, err := ParseKey([]byte("not a key")); err == nil {
		t.Error("ParseKey took a bad key")
	}
}

func TestRedactTokens(t *testing.T) {
	t.Parallel()
	got := RedactTokens("fatal: https://x-access-token:ghs_abcDEF123_x@host/repo: 401 github_pat_11AB_cd")
	if strings.Contains(got, "ghs_") || strings.Contains(got, "github_pat_") || !strings.Contains(got, "[token]@host") {
		t.Fatalf("RedactTokens: %q", got)
	}
}
