package fakegithub

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"
)

// jwt makes an App JWT with the given header algorithm and claims,
// signed with key.
func jwt(t *testing.T, key *rsa.PrivateKey, alg string, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signed := enc(map[string]string{"alg": alg, "typ": "JWT"}) + "." + enc(claims)
	sum := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// The App fake takes only a JWT signed with the App's key, naming the App,
// not expired, on the /app paths; the installation token it makes works
// on the repository paths and not on /app.
func TestAppJWTIsChecked(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	a := NewApp(t, 77, &key.PublicKey)
	now := time.Now()
	claims := func(iss any, exp time.Time) map[string]any {
		return map[string]any{"iss": iss, "iat": now.Add(-time.Minute).Unix(), "exp": exp.Unix()}
	}
	good := jwt(t, key, "RS256", claims(77, now.Add(9*time.Minute)))
	cases := []struct {
		name, token string
		want        int
		message     string
	}{
		{"good JWT, iss a number", good, 201, ""},
		{"good JWT, iss a string", jwt(t, key, "RS256", claims("77", now.Add(9*time.Minute))), 201, ""},
		{"no token", "", 401, "Requires authentication"},
		{"not a JWT", "ghs_plain", 401, "A JSON web token could not be decoded"},
		{"three parts, not a JWT", "a.b.c", 401, "A JSON web token could not be decoded"},
		{"signed with another key", jwt(t, other, "RS256", claims(77, now.Add(9*time.Minute))), 401, "A JSON web token could not be decoded"},
		{"another algorithm", jwt(t, key, "HS256", claims(77, now.Add(9*time.Minute))), 401, "A JSON web token could not be decoded"},
		{"another App", jwt(t, key, "RS256", claims(78, now.Add(9*time.Minute))), 401, "Integration not found"},
		{"expired", jwt(t, key, "RS256", claims(77, now.Add(-time.Minute))), 401, "'Expiration time' claim ('exp') is too far in the future or in the past"},
		{"too far ahead", jwt(t, key, "RS256", claims(77, now.Add(30*time.Minute))), 401, "'Expiration time' claim ('exp') is too far in the future or in the past"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, _, body := call(t, a.Server, "POST", "/app/installations/5/access_tokens", tc.token, nil)
			if st != tc.want {
				t.Fatalf("status %d, want %d: %v", st, tc.want, body)
			}
			if tc.message != "" && field(body, "message") != tc.message {
				t.Fatalf("message %v, want %q", field(body, "message"), tc.message)
			}
		})
	}
	st, _, app := call(t, a.Server, "GET", "/app", good, nil)
	if st != 200 || field(app, "id") != float64(77) || field(app, "slug") != a.Slug {
		t.Fatalf("GET /app: %d %v", st, app)
	}
	_, _, tok := call(t, a.Server, "POST", "/app/installations/5/access_tokens", good, nil)
	inst := field(tok, "token").(string)
	if st, _, _ := call(t, a.Server, "GET", "/app", inst, nil); st != 401 {
		t.Errorf("GET /app with an installation token: %d, want 401", st)
	}
	a.AddPull(repo, Pull{Number: 3})
	if st, _, body := call(t, a.Server, "GET", "/repos/"+repo+"/pulls/3", inst, nil); st != 200 {
		t.Errorf("GET a pull with the installation token: %d %v", st, body)
	}
	var statuses []int
	for _, r := range a.Requests() {
		if r.Path == "/app/installations/5/access_tokens" {
			statuses = append(statuses, r.Status)
		}
	}
	if len(statuses) != len(cases)+1 {
		t.Fatalf("recorded %d token requests, want %d", len(statuses), len(cases)+1)
	}
}
