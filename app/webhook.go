package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
)

// maxLogValue caps an unsigned header value in a log line.
const maxLogValue = 100

// ServeHTTP answers one webhook delivery. The order matters: size, then
// signature on the raw body, then everything else. Nothing is stored or
// sent to GitHub for a delivery with a bad signature. The headers are not
// signed, even when the body is: the event name is only a metric label
// when it is one of a fixed set, the delivery id must have GitHub's form
// (a UUID) and is never a path, and a body seen before is a duplicate
// whatever its id.
func (s *server) handleWebhook(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	event := r.Header.Get("X-GitHub-Event")
	delivery := r.Header.Get("X-GitHub-Delivery")
	// The event label stays "unverified" until the signature holds.
	label, result := labelUnverified, "error"
	defer func() { s.metrics.Delivery(label, result, time.Since(start)) }()
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
	// Unsigned senders could start many large bodies at once: the bytes
	// held across requests have a budget. A body of unknown length
	// counts as the largest.
	want := r.ContentLength
	if want < 0 {
		want = MaxBody + 1
	}
	if !s.bodies.take(want) {
		result = "busy"
		w.Header().Set("Retry-After", "1")
		http.Error(w, "too many large deliveries at once", http.StatusServiceUnavailable)
		return
	}
	defer s.bodies.give(want)
	body, err := readBody(r.Body, r.ContentLength)
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
	if !validSignature(s.cfg.WebhookSecret, body, r.Header.Get(SignatureHeader)) {
		result = "bad_signature"
		s.log.Warn("webhook signature does not match", "delivery", clip(delivery), "event", clip(event))
		http.Error(w, "the signature does not match", http.StatusBadRequest)
		return
	}
	label = EventLabel(event)
	if !validDeliveryID(delivery) {
		result = "bad_delivery"
		s.log.Warn("the delivery id is not GitHub's", "delivery", clip(delivery), "event", clip(event))
		http.Error(w, "X-GitHub-Delivery must be a GitHub delivery id: a UUID such as 72d3162e-cc78-11e3-81ab-4c9367dc0958", http.StatusBadRequest)
		return
	}
	delivery = strings.ToLower(delivery)
	log := s.log.With("delivery", delivery, "event", clip(event))
	if event == "ping" {
		result = "ping"
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "pong\n")
		return
	}
	if event == "" {
		result = "bad_headers"
		http.Error(w, "X-GitHub-Event is required", http.StatusBadRequest)
		return
	}
	job, derr := decodeEvent(event, body)
	if derr != nil && !errors.Is(derr, ErrIgnored) {
		result = "bad_payload"
		log.Warn("bad webhook payload", "error", clip(derr.Error()))
		http.Error(w, clip(derr.Error()), http.StatusBadRequest)
		return
	}
	if job != nil {
		job.Delivery, job.State, job.Accepted = delivery, StateAccepted, time.Now().UTC()
	}
	// A delivery is a duplicate of the same id under the same event, and
	// a body of the same body under the same event only: GitHub may send
	// one payload under two events.
	sum := sha256.Sum256(append([]byte(event+"\x00"), body...))
	keys := []string{deliveryKey(delivery, event), bodyKeyPrefix + hex.EncodeToString(sum[:])}
	actx, cancel := context.WithTimeout(r.Context(), s.admitTimeout())
	err = s.q.admit(actx, keys, job)
	cancel()
	switch {
	case errors.Is(err, errSameHead):
		result = "duplicate"
		log.Info("a job of the same head waits, runs or ran; delivery dropped", append(jobAttrs(job), "reason", err.Error())...)
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "duplicate: a job of this head waits, runs or ran\n")
		return
	case errors.Is(err, errDuplicate):
		result = "duplicate"
		log.Info("duplicate delivery dropped")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "duplicate delivery\n")
		return
	case err != nil:
		// The database is down or busy: GitHub's redelivery (or the
		// sender's retry) brings the delivery back.
		result = "store_error"
		log.Error("store the delivery", "error", err)
		w.Header().Set("Retry-After", "10")
		http.Error(w, "the database does not answer; deliver again later", http.StatusServiceUnavailable)
		return
	}
	if job == nil {
		result = "ignored"
		log.Debug("delivery ignored", "reason", clip(derr.Error()))
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, "not handled\n")
		return
	}
	result = "accepted"
	if s.stopping.Load() {
		// GitHub does not send a delivery again by itself: keep it.
		log.Info("delivery accepted while the server stops; another replica or the next start announces it", jobAttrs(job)...)
	} else {
		log.Info("delivery accepted", jobAttrs(job)...)
	}
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, "queued\n")
}

// validDeliveryID reports whether id has the form of GitHub's delivery
// ids: a UUID, 8-4-4-4-12 hexadecimal digits.
func validDeliveryID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// clip cuts an unsigned value for a log line or an answer: at most
// maxLogValue bytes of valid UTF-8, and the full length when cut.
func clip(v string) string {
	if len(v) <= maxLogValue {
		return strings.ToValidUTF8(v, "\uFFFD")
	}
	return fmt.Sprintf("%s… (%d bytes)", strings.ToValidUTF8(v[:maxLogValue], "\uFFFD"), len(v))
}

// jobAttrs are the log attributes of a job.
func jobAttrs(j *Job) []any {
	if j == nil {
		return nil
	}
	return []any{
		slog.Int64("installation", j.Installation),
		slog.String("repo", j.FullName()),
		slog.Int("pr", j.PR),
		slog.String("sha", j.HeadSHA),
	}
}

// maxBodiesInFlight caps the body bytes all webhook requests hold at
// once: four bodies of the largest size.
var maxBodiesInFlight int64 = 4 * MaxBody

// bodyBudget counts the body bytes the webhook requests may still take.
type bodyBudget struct {
	mu   sync.Mutex
	left int64
}

func newBodyBudget() *bodyBudget { return &bodyBudget{left: maxBodiesInFlight} }

// take reserves n bytes; false when they are not there.
func (b *bodyBudget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

func (b *bodyBudget) give(n int64) {
	b.mu.Lock()
	b.left += n
	b.mu.Unlock()
}

// readBody reads a body of length n (-1: unknown) of at most MaxBody+1
// bytes. A known length is read into a buffer of that size, so the
// memory held is the length.
func readBody(r io.Reader, n int64) ([]byte, error) {
	if n < 0 {
		return io.ReadAll(io.LimitReader(r, MaxBody+1))
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("read the body: %w", err)
	}
	return buf, nil
}

// deliveryKey is the key of a delivery id under an event (X-GitHub-Delivery
// and X-GitHub-Event) among the keys admit records.
func deliveryKey(delivery, event string) string {
	return delivery + " " + event
}

// bodyKeyPrefix starts the key of a delivery's SHA-256 (over the event
// name, a zero byte and the body) among the delivery ids.
const bodyKeyPrefix = "sha256:"

// admitTimeout bounds the write of one delivery: a database that does not
// answer by then gets a 503, which GitHub's redelivery brings back.
const admitTimeout = 10 * time.Second

func (s *server) admitTimeout() time.Duration {
	if s.admitWait > 0 {
		return s.admitWait
	}
	return admitTimeout
}
