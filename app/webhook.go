package app

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// ServeHTTP answers one webhook delivery. The order matters: size, then
// signature on the raw body, then everything else. Nothing is stored or
// sent to GitHub for a delivery with a bad signature.
func (s *Server) handleWebhook(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	event := r.Header.Get("X-GitHub-Event")
	delivery := r.Header.Get("X-GitHub-Delivery")
	result := "error"
	defer func() { s.metrics.Delivery(event, result, time.Since(start)) }()
	if r.Method != http.MethodPost {
		result = "bad_method"
		http.Error(w, "use POST", http.StatusMethodNotAllowed)
		return
	}
	if r.ContentLength > MaxBody {
		result = "too_large"
		http.Error(w, "the body is over 25 MB", http.StatusRequestEntityTooLarge)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil {
		result = "read_error"
		http.Error(w, "read the body", http.StatusBadRequest)
		return
	}
	if len(body) > MaxBody {
		result = "too_large"
		http.Error(w, "the body is over 25 MB", http.StatusRequestEntityTooLarge)
		return
	}
	if !ValidSignature(s.cfg.WebhookSecret, body, r.Header.Get(SignatureHeader)) {
		result = "bad_signature"
		s.log.Warn("webhook signature does not match", "delivery", delivery, "event", event)
		http.Error(w, "the signature does not match", http.StatusBadRequest)
		return
	}
	log := s.log.With("delivery", delivery, "event", event)
	if event == "ping" {
		result = "ping"
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "pong\n")
		return
	}
	if delivery == "" || event == "" {
		result = "bad_headers"
		http.Error(w, "X-GitHub-Event and X-GitHub-Delivery are required", http.StatusBadRequest)
		return
	}
	if s.stopping.Load() {
		result = "stopping"
		http.Error(w, "the server is stopping", http.StatusServiceUnavailable)
		return
	}
	job, derr := DecodeEvent(event, body)
	if derr != nil && !errors.Is(derr, ErrIgnored) {
		result = "bad_payload"
		log.Warn("bad webhook payload", "error", derr)
		http.Error(w, derr.Error(), http.StatusBadRequest)
		return
	}
	if job != nil {
		job.Delivery, job.State, job.Accepted = delivery, StateAccepted, time.Now().UTC()
	}
	switch err := s.store.Accept(delivery, time.Now(), job); {
	case errors.Is(err, errDuplicate):
		result = "duplicate"
		log.Info("duplicate delivery dropped")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "duplicate delivery\n")
		return
	case err != nil:
		result = "store_error"
		log.Error("store the delivery", "error", err)
		http.Error(w, "store the delivery", http.StatusInternalServerError)
		return
	}
	if job == nil {
		result = "ignored"
		log.Debug("delivery ignored", "reason", derr.Error())
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, "not handled\n")
		return
	}
	result = "accepted"
	log.Info("delivery accepted", jobAttrs(job)...)
	s.announce(job.Delivery)
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, "queued\n")
}

// jobAttrs are the log attributes of a job.
func jobAttrs(j *Job) []any {
	return []any{
		slog.Int64("installation", j.Installation),
		slog.String("repo", j.FullName()),
		slog.Int("pr", j.PR),
		slog.String("sha", j.HeadSHA),
	}
}
