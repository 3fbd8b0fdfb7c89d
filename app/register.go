package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/formula-code/template-verify/internal/githubapi"
)

// The files of Credentials in a credentials folder. serve reads them when
// no flag or variable gives the value.
const (
	FileAppID         = "app-id"
	FilePrivateKey    = "private-key.pem"
	FileWebhookSecret = "webhook-secret"
	FileAppSlug       = "app-slug"
)

// DefaultGitHubURL is the web address the registration form posts to.
const DefaultGitHubURL = "https://github.com"

// Credentials are what GitHub gives for an App made from a manifest.
type Credentials struct {
	AppID         int64
	Slug          string
	PrivateKey    []byte // PEM
	WebhookSecret []byte
	HTMLURL       string
}

// RegisterConfig configures the registration page.
type RegisterConfig struct {
	// PublicURL is where GitHub reaches this server (https://HOST, no
	// path): the manifest's webhook is PublicURL/webhook and its
	// redirect PublicURL/register/callback.
	PublicURL string
	// GitHubURL is the web address of GitHub; empty: DefaultGitHubURL.
	GitHubURL string
	// APIURL is the REST API of the conversion; empty: DefaultAPIURL.
	APIURL string
	// Org registers the App under this organisation; empty: under the
	// user who opens the page.
	Org string
	// Manifest is app.yml.
	Manifest []byte
	// Dir is the credentials folder; the files are written 0600 and
	// never overwritten.
	Dir string
	// Token is the one-time secret the page asks for (?token=), so that
	// nobody else who reaches the page registers an App of theirs here.
	Token string
	// HTTPClient makes the conversion call; nil: a client with a 30 s
	// limit.
	HTTPClient *http.Client
	// Done is called once, after the credentials are written.
	Done func(Credentials)
	Log  *slog.Logger
}

// Registrar serves the registration page (GET /register) and the
// callback (GET /register/callback) of GitHub's App manifest flow.
type Registrar struct {
	cfg      RegisterConfig
	manifest []byte // JSON
	mux      *http.ServeMux

	mu     sync.Mutex
	states map[string]time.Time // state -> expiry
	busy   bool
	done   bool
}

// maxStates bounds the outstanding states (one per page view).
const maxStates = 32

// stateTTL is how long a form's state stays valid: GitHub's manifest
// codes expire after an hour.
const stateTTL = time.Hour

// maxConversionBytes bounds the conversion answer (a PEM key and a few
// strings).
const maxConversionBytes = 1 << 20

// codePattern is the shape of a manifest code; anything else never
// reaches the API path.
var (
	codePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)
	orgPattern  = regexp.MustCompile(`^[A-Za-z0-9-]{1,39}$`)
	slugPattern = regexp.MustCompile(`^[a-z0-9-]{0,100}$`)
)

// NewRegistrar checks the settings and turns the manifest into JSON.
func NewRegistrar(cfg RegisterConfig) (*Registrar, error) {
	pub, err := url.Parse(cfg.PublicURL)
	if err != nil || (pub.Scheme != "https" && pub.Scheme != "http") || pub.Host == "" || strings.Trim(pub.Path, "/") != "" {
		return nil, fmt.Errorf("the public URL %q: want http(s)://HOST without a path", cfg.PublicURL)
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	if cfg.GitHubURL == "" {
		cfg.GitHubURL = DefaultGitHubURL
	}
	cfg.GitHubURL = strings.TrimRight(cfg.GitHubURL, "/")
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
	}
	cfg.APIURL = strings.TrimRight(cfg.APIURL, "/")
	if cfg.Org != "" && !orgPattern.MatchString(cfg.Org) {
		return nil, fmt.Errorf("the organisation %q is not a GitHub login", cfg.Org)
	}
	if len(cfg.Token) < 16 {
		return nil, errors.New("the registration token is shorter than 16 characters")
	}
	if cfg.Dir == "" {
		return nil, errors.New("the credentials folder is missing")
	}
	if err := checkCredentialsDir(cfg.Dir); err != nil {
		return nil, err
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	m, err := ManifestJSON(cfg.Manifest, cfg.PublicURL)
	if err != nil {
		return nil, err
	}
	r := &Registrar{cfg: cfg, manifest: m, mux: http.NewServeMux(), states: map[string]time.Time{}}
	r.mux.HandleFunc("GET /register", r.page)
	r.mux.HandleFunc("GET /register/callback", r.callback)
	r.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, "/register", http.StatusSeeOther)
	})
	return r, nil
}

// ManifestJSON turns app.yml into the JSON manifest that GitHub takes,
// with the webhook and redirect URLs of publicURL.
func ManifestJSON(appYML []byte, publicURL string) ([]byte, error) {
	var m map[string]any
	if err := yaml.Unmarshal(appYML, &m); err != nil {
		return nil, fmt.Errorf("read the App manifest: %w", err)
	}
	if m == nil {
		return nil, errors.New("the App manifest is empty")
	}
	hook, _ := m["hook_attributes"].(map[string]any)
	if hook == nil {
		hook = map[string]any{}
	}
	hook["url"] = publicURL + "/webhook"
	hook["active"] = true
	m["hook_attributes"] = hook
	m["redirect_url"] = publicURL + "/register/callback"
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode the App manifest: %w", err)
	}
	return b, nil
}

// ServeHTTP serves the page and the callback.
func (r *Registrar) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Frame-Options", "DENY")
	r.mux.ServeHTTP(w, req)
}

var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Register template-verify</title></head>
<body>
<h1>Register the template-verify GitHub App</h1>
<p>The button sends the manifest below to GitHub. GitHub asks you to name the App and then returns here, and this server writes the App id, key and webhook secret to <code>{{.Dir}}</code>.</p>
<form action="{{.Action}}" method="post">
<input type="hidden" name="manifest" value="{{.Manifest}}">
<button type="submit">Create the App on GitHub</button>
</form>
<pre>{{.Manifest}}</pre>
</body></html>
`))

var doneTmpl = template.Must(template.New("done").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>template-verify registered</title></head>
<body>
<h1>The App {{.Slug}} is registered</h1>
<p>App id {{.ID}}. The id, the private key and the webhook secret are in <code>{{.Dir}}</code>. Install the App on the repositories to verify{{if .HTMLURL}} (<a href="{{.HTMLURL}}/installations/new">install</a>){{end}}, then start <code>template-verify serve</code>.</p>
</body></html>
`))

func (r *Registrar) page(w http.ResponseWriter, req *http.Request) {
	if !r.tokenOK(req.URL.Query().Get("token")) {
		http.Error(w, "This page needs the registration token that template-verify serve --register printed.", http.StatusForbidden)
		return
	}
	state, err := r.newState()
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	action := r.cfg.GitHubURL + "/settings/apps/new"
	if r.cfg.Org != "" {
		action = r.cfg.GitHubURL + "/organizations/" + r.cfg.Org + "/settings/apps/new"
	}
	action += "?state=" + url.QueryEscape(state)
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, map[string]any{"Action": action, "Manifest": string(r.manifest), "Dir": r.cfg.Dir}); err != nil {
		http.Error(w, "render the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

func (r *Registrar) tokenOK(got string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(r.cfg.Token)) == 1
}

// newState makes the state of one form, or fails when the registration
// is over or too many forms are open.
func (r *Registrar) newState() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a state: %w", err)
	}
	s := hex.EncodeToString(b)
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return "", errors.New("the App is registered already")
	}
	for k, exp := range r.states {
		if now.After(exp) {
			delete(r.states, k)
		}
	}
	if len(r.states) >= maxStates {
		return "", errors.New("too many open registration forms; restart template-verify serve --register")
	}
	r.states[s] = now.Add(stateTTL)
	return s, nil
}

// takeState consumes a state once; it also claims the conversion, so two
// callbacks never convert at once.
func (r *Registrar) takeState(s string) (int, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.done:
		return http.StatusGone, "The App is registered already."
	case r.busy:
		return http.StatusConflict, "A registration is under way."
	}
	exp, ok := r.states[s]
	if !ok || time.Now().After(exp) {
		return http.StatusBadRequest, "Unknown or expired state: open the registration page again."
	}
	delete(r.states, s)
	r.busy = true
	return 0, ""
}

func (r *Registrar) callback(w http.ResponseWriter, req *http.Request) {
	q := req.URL.Query()
	code := q.Get("code")
	if !codePattern.MatchString(code) {
		http.Error(w, "The callback has no valid code.", http.StatusBadRequest)
		return
	}
	if status, msg := r.takeState(q.Get("state")); status != 0 {
		http.Error(w, msg, status)
		return
	}
	creds, err := r.convert(req.Context(), code)
	if err == nil {
		err = writeCredentials(r.cfg.Dir, creds)
	}
	r.mu.Lock()
	r.busy = false
	r.done = err == nil
	r.mu.Unlock()
	if err != nil {
		r.cfg.Log.Error("app registration", "error", err)
		http.Error(w, "The registration failed: "+err.Error(), http.StatusBadGateway)
		return
	}
	r.cfg.Log.Info("app registered", "app_id", creds.AppID, "slug", creds.Slug, "dir", r.cfg.Dir)
	var buf bytes.Buffer
	if err := doneTmpl.Execute(&buf, map[string]any{"Slug": creds.Slug, "ID": creds.AppID, "Dir": r.cfg.Dir, "HTMLURL": safeHTTPS(creds.HTMLURL)}); err == nil {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(buf.Bytes())
	}
	if r.cfg.Done != nil {
		r.cfg.Done(creds)
	}
}

// safeHTTPS returns u when it is an http(s) URL, else "".
func safeHTTPS(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") {
		return ""
	}
	return u
}

// convert exchanges a manifest code for the App's credentials:
// POST /app-manifests/{code}/conversions, which takes no token.
func (r *Registrar) convert(ctx context.Context, code string) (Credentials, error) {
	u := r.cfg.APIURL + "/app-manifests/" + url.PathEscape(code) + "/conversions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
	if err != nil {
		return Credentials{}, fmt.Errorf("the conversion request: %w", err)
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	resp, err := r.cfg.HTTPClient.Do(req)
	if err != nil {
		return Credentials{}, fmt.Errorf("exchange the manifest code: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxConversionBytes+1))
	if err != nil {
		return Credentials{}, fmt.Errorf("read the conversion answer: %w", err)
	}
	if len(body) > maxConversionBytes {
		return Credentials{}, errors.New("the conversion answer is larger than 1 MB")
	}
	if resp.StatusCode != http.StatusCreated {
		return Credentials{}, fmt.Errorf("GitHub answered %s to the manifest code (codes work once, for an hour)", resp.Status)
	}
	var got struct {
		ID            int64  `json:"id"`
		Slug          string `json:"slug"`
		WebhookSecret string `json:"webhook_secret"`
		PEM           string `json:"pem"`
		HTMLURL       string `json:"html_url"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		return Credentials{}, fmt.Errorf("decode the conversion answer: %w", err)
	}
	c := Credentials{AppID: got.ID, Slug: got.Slug, PrivateKey: []byte(got.PEM), WebhookSecret: []byte(got.WebhookSecret), HTMLURL: got.HTMLURL}
	switch {
	case c.AppID <= 0:
		return Credentials{}, errors.New("the conversion answer has no App id")
	case len(c.WebhookSecret) == 0:
		return Credentials{}, errors.New("the conversion answer has no webhook secret")
	case !slugPattern.MatchString(c.Slug):
		return Credentials{}, fmt.Errorf("the conversion answer has an odd slug %q", c.Slug)
	}
	if _, err := githubapi.ParseKey(c.PrivateKey); err != nil {
		return Credentials{}, fmt.Errorf("the conversion answer: %w", err)
	}
	return c, nil
}
