package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"html"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/fakegithub"
)

// lockedBuffer is a bytes.Buffer that a running command and the test
// share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeRegisterThenServeReadsCredentials: `serve --register` prints
// the page's address with its token, GitHub's callback makes it write the
// credentials and exit 0, and serve then finds the App id, key and secret
// in the data folder without flags.
func TestServeRegisterThenServeReadsCredentials(t *testing.T) {
	clearServeEnv(t)
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	key := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
	gh := fakegithub.New(t)
	gh.AddManifestCode("abc", fakegithub.ManifestApp{ID: 77, Slug: "tv", WebhookSecret: "sekrit", PEM: key})
	data := t.TempDir()

	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"serve", "--register", "--listen", "127.0.0.1:0",
			"--public-url", "https://verify.example.org", "--api-url", gh.URL, "--data-dir", data}, &stdout, &stderr)
	}()
	lineRE := regexp.MustCompile(`register\?token=([0-9a-f]+) in a browser .*listening on (127\.0\.0\.1:\d+)`)
	var m []string
	for range 200 {
		if m = lineRE.FindStringSubmatch(stderr.String()); m != nil {
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve --register exited %d:\n%s", code, stderr.String())
		case <-time.After(25 * time.Millisecond):
		}
	}
	if m == nil {
		t.Fatalf("no registration address on stderr:\n%s", stderr.String())
	}
	base := "http://" + m[2]
	page := httpGet(t, base+"/register?token="+m[1])
	am := regexp.MustCompile(`<form action="([^"]*)"`).FindStringSubmatch(page)
	if am == nil {
		t.Fatalf("no form:\n%s", page)
	}
	action, _ := url.Parse(html.UnescapeString(am[1]))
	if got := action.Scheme + "://" + action.Host + action.Path; got != "https://github.com/settings/apps/new" {
		t.Errorf("form posts to %s", got)
	}
	httpGet(t, base+"/register/callback?code=abc&state="+url.QueryEscape(action.Query().Get("state")))
	if code := <-done; code != exitPass {
		t.Fatalf("serve --register exited %d:\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "Registered the App tv (id 77)") {
		t.Errorf("stdout:\n%s", stdout.String())
	}

	appID, keyFile, secretFile, slug := "", "", "", ""
	if err := credentialFiles(filepath.Join(data, "app"), &appID, &keyFile, &secretFile, &slug); err != nil {
		t.Fatal(err)
	}
	gotKey, err := secretValue(keyFile, "TEMPLATE_VERIFY_PRIVATE_KEY", "private key")
	if err != nil {
		t.Fatal(err)
	}
	gotSecret, err := secretValue(secretFile, "TEMPLATE_VERIFY_WEBHOOK_SECRET", "webhook secret")
	if err != nil {
		t.Fatal(err)
	}
	if appID != "77" || slug != "tv" || string(gotSecret) != "sekrit" || string(gotKey) != strings.TrimRight(key, "\n") {
		t.Errorf("serve reads app id %q, slug %q, secret %q, key %d bytes", appID, slug, gotSecret, len(gotKey))
	}

	// A second --register refuses to replace the App.
	code, _, errOut := invoke(t, "serve", "--register", "--listen", "127.0.0.1:0", "--public-url", "https://verify.example.org", "--data-dir", data)
	if code != exitUsage || !strings.Contains(errOut, "holds an App already") {
		t.Errorf("second --register: exit %d\n%s", code, errOut)
	}
}

func httpGet(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", u, resp.StatusCode, b)
	}
	return string(b)
}
