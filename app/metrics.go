package app

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Metrics holds the counters, gauges and histograms of /metrics and
// writes them in the Prometheus text format.
type Metrics struct {
	mu         sync.Mutex
	deliveries map[[2]string]float64 // event, result
	api        map[string]float64    // status
	queue      func() (queued, running int)
	runs       *histogram
	answer     *histogram
}

var (
	runBuckets    = []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200}
	answerBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1}
)

// NewMetrics returns empty metrics.
func NewMetrics() *Metrics {
	return &Metrics{
		deliveries: map[[2]string]float64{},
		api:        map[string]float64{},
		runs:       newHistogram(runBuckets),
		answer:     newHistogram(answerBuckets),
	}
}

// labelUnverified is the event label of a delivery whose signature was
// not checked or did not hold: its headers are anyone's.
const labelUnverified = "unverified"

// knownEvents are the event labels of /metrics: the events the App acts
// on and those GitHub sends every App. Any other name is "other", so
// that the number of series does not grow with what senders write.
var knownEvents = map[string]bool{
	"pull_request": true, "check_suite": true, "check_run": true, "issue_comment": true, "ping": true,
	"installation": true, "installation_repositories": true, "github_app_authorization": true,
	labelUnverified: true,
}

// EventLabel is the metric label of an event name: the name when it is
// one of the fixed set, else "other".
func EventLabel(event string) string {
	if knownEvents[event] {
		return event
	}
	return "other"
}

// Delivery counts one delivery by event and result (accepted, duplicate,
// ignored, bad_signature, bad_delivery, too_large, bad_payload, error,
// ping). An event outside the fixed set counts as "other".
func (m *Metrics) Delivery(event, result string, took time.Duration) {
	event = EventLabel(event)
	m.mu.Lock()
	m.deliveries[[2]string{event, result}]++
	m.answer.observe(took.Seconds())
	m.mu.Unlock()
}

// APICall counts one GitHub API response by status ("error" for none).
func (m *Metrics) APICall(status string) {
	m.mu.Lock()
	m.api[status]++
	m.mu.Unlock()
}

// Run records the duration of one verification.
func (m *Metrics) Run(d time.Duration) {
	m.mu.Lock()
	m.runs.observe(d.Seconds())
	m.mu.Unlock()
}

// DeliveryCount returns the count of one event and result.
func (m *Metrics) DeliveryCount(event, result string) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.deliveries[[2]string{event, result}]
}

// WriteTo writes every metric in the Prometheus text format.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	m.mu.Lock()
	b.WriteString("# HELP template_verify_deliveries_total Webhook deliveries by event and result.\n# TYPE template_verify_deliveries_total counter\n")
	keys := make([][2]string, 0, len(m.deliveries))
	for k := range m.deliveries {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, c int) bool { return keys[a][0]+"\x00"+keys[a][1] < keys[c][0]+"\x00"+keys[c][1] })
	for _, k := range keys {
		fmt.Fprintf(&b, "template_verify_deliveries_total{event=%s,result=%s} %s\n", label(k[0]), label(k[1]), num(m.deliveries[k]))
	}
	b.WriteString("# HELP template_verify_github_requests_total GitHub API responses by HTTP status.\n# TYPE template_verify_github_requests_total counter\n")
	statuses := make([]string, 0, len(m.api))
	for k := range m.api {
		statuses = append(statuses, k)
	}
	sort.Strings(statuses)
	for _, k := range statuses {
		fmt.Fprintf(&b, "template_verify_github_requests_total{status=%s} %s\n", label(k), num(m.api[k]))
	}
	m.runs.write(&b, "template_verify_run_duration_seconds", "Duration of one verification, from clone to the last publish.")
	m.answer.write(&b, "template_verify_webhook_answer_seconds", "Time to answer one webhook delivery.")
	queueFn := m.queue
	m.mu.Unlock()
	if queueFn != nil {
		q, r := queueFn()
		fmt.Fprintf(&b, "# HELP template_verify_queue_depth Jobs waiting for a worker.\n# TYPE template_verify_queue_depth gauge\ntemplate_verify_queue_depth %d\n", q)
		fmt.Fprintf(&b, "# HELP template_verify_runs_in_progress Verifications that run now.\n# TYPE template_verify_runs_in_progress gauge\ntemplate_verify_runs_in_progress %d\n", r)
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// ServeHTTP answers GET /metrics.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = m.WriteTo(w)
}

// label quotes a label value as the text format wants it.
func label(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(v) + `"`
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

type histogram struct {
	bounds []float64
	counts []float64 // per bucket, not cumulative
	sum    float64
	n      float64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]float64, len(bounds))}
}

func (h *histogram) observe(v float64) {
	h.sum += v
	h.n++
	for i, b := range h.bounds {
		if v <= b {
			h.counts[i]++
			return
		}
	}
}

func (h *histogram) write(b *strings.Builder, name, help string) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	cum := 0.0
	for i, bound := range h.bounds {
		cum += h.counts[i]
		fmt.Fprintf(b, "%s_bucket{le=%s} %s\n", name, label(num(bound)), num(cum))
	}
	fmt.Fprintf(b, "%s_bucket{le=\"+Inf\"} %s\n%s_sum %s\n%s_count %s\n", name, num(h.n), name, num(h.sum), name, num(h.n))
}

// countingTransport counts GitHub API responses by status.
type countingTransport struct {
	base http.RoundTripper
	m    *Metrics
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		t.m.APICall("error")
		return nil, err
	}
	t.m.APICall(strconv.Itoa(resp.StatusCode))
	return resp, nil
}
