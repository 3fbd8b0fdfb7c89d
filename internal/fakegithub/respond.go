package fakegithub

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
)

type tokenKey struct{}

func withToken(ctx context.Context, t Token) context.Context {
	return context.WithValue(ctx, tokenKey{}, t)
}

func tokenFrom(ctx context.Context) Token {
	t, _ := ctx.Value(tokenKey{}).(Token)
	return t
}

const docsURL = "https://docs.github.com/rest"

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError answers like GitHub: {"message": ..., "documentation_url": ...}.
func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]any{"message": message, "documentation_url": docsURL, "status": strconv.Itoa(status)})
}

// fieldError is one entry of a 422's "errors" list.
type fieldError struct {
	Resource string `json:"resource"`
	Field    string `json:"field"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

// writeInvalid answers 422 Validation Failed with the field errors.
func writeInvalid(w http.ResponseWriter, errs []fieldError) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
		"message":           "Validation Failed",
		"errors":            errs,
		"documentation_url": docsURL,
		"status":            "422",
	})
}

// pathID reads a numeric path value; ok is false when it is not a number.
func pathID(r *http.Request, name string) (int64, bool) {
	n, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	return n, err == nil && n > 0
}
