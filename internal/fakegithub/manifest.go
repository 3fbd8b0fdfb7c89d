package fakegithub

import (
	"net/http"
	"strings"
)

// ManifestApp is what POST /app-manifests/{code}/conversions answers for
// a code: the App that GitHub made from a manifest, with its secrets.
type ManifestApp struct {
	ID            int64  `json:"id"`
	Slug          string `json:"slug"`
	Name          string `json:"name"`
	ClientID      string `json:"client_id"`
	ClientSecret  string `json:"client_secret"`
	WebhookSecret string `json:"webhook_secret"`
	PEM           string `json:"pem"`
	HTMLURL       string `json:"html_url"`
}

// isManifestPath reports whether a path is the manifest conversion,
// which GitHub answers without authentication: the code is the secret.
func isManifestPath(p string) bool { return strings.HasPrefix(p, "/app-manifests/") }

// AddManifestCode makes code convertible, once, into app.
func (s *Server) AddManifestCode(code string, app ManifestApp) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.manifests == nil {
		s.manifests = map[string]ManifestApp{}
		s.mux.HandleFunc("POST /app-manifests/{code}/conversions", s.convertManifest)
	}
	s.manifests[code] = app
}

// convertManifest answers 201 with the App of a known code and forgets
// the code (GitHub's codes are single use), else 404.
func (s *Server) convertManifest(w http.ResponseWriter, r *http.Request) {
	code := r.PathValue("code")
	s.mu.Lock()
	app, ok := s.manifests[code]
	delete(s.manifests, code)
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	out := s.appJSON(app.ID, app.Slug)
	for k, v := range map[string]string{"name": app.Name, "html_url": app.HTMLURL} {
		if v != "" {
			out[k] = v
		}
	}
	out["client_id"], out["client_secret"], out["webhook_secret"], out["pem"] = app.ClientID, app.ClientSecret, app.WebhookSecret, app.PEM
	writeJSON(w, http.StatusCreated, out)
}
