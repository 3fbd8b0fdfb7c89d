package app

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// Metrics holds the counters, gauges and histograms of /metrics in a
// registry of its own (prometheus client_golang), with the Go runtime's
// go_* and the process's process_* metrics beside them. Every
// template_verify_* series has the label replica (Config.Replica), so
// that the replicas of one database can be told apart.
type Metrics struct {
	reg        *prometheus.Registry
	deliveries *prometheus.CounterVec // event, result
	api        *prometheus.CounterVec // status
	runs       prometheus.Histogram
	answer     prometheus.Histogram
	jobs       *prometheus.CounterVec // kind, outcome
	handler    http.Handler

	mu    sync.Mutex
	queue func() (queued, running int)
}

var (
	runBuckets    = []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200}
	answerBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1}
)

// newMetrics returns empty metrics of one replica.
func newMetrics(replica string) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "template_verify_deliveries_total",
			Help: "Webhook deliveries by event and result.",
		}, []string{"event", "result"}),
		api: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "template_verify_github_requests_total",
			Help: "GitHub API responses by HTTP status.",
		}, []string{"status"}),
		runs: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "template_verify_run_duration_seconds",
			Help:    "Duration of one verification, from clone to the last publish.",
			Buckets: runBuckets,
		}),
		answer: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "template_verify_webhook_answer_seconds",
			Help:    "Time to answer one webhook delivery.",
			Buckets: answerBuckets,
		}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "template_verify_jobs_total",
			Help: "Jobs this replica worked, by kind (announce, verify) and outcome.",
		}, []string{"kind", "outcome"}),
	}
	own := prometheus.WrapRegistererWith(prometheus.Labels{"replica": replica}, m.reg)
	own.MustRegister(
		m.deliveries, m.api, m.runs, m.answer, m.jobs,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "template_verify_queue_depth",
			Help: "Verifications waiting for a worker, over all replicas of the database (-1: the database does not answer).",
		}, func() float64 { q, _ := m.depth(); return float64(q) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "template_verify_runs_in_progress",
			Help: "Verifications that run now on this replica.",
		}, func() float64 { _, r := m.depth(); return float64(r) }),
	)
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return m
}

// setQueue sets the function that reads the queue depth.
func (m *Metrics) setQueue(fn func() (queued, running int)) {
	m.mu.Lock()
	m.queue = fn
	m.mu.Unlock()
}

// Job counts one job this replica worked, by kind and outcome.
func (m *Metrics) Job(kind, outcome string) {
	m.jobs.WithLabelValues(strings.TrimPrefix(kind, "template_verify_"), outcome).Inc()
}

// depth reads the queue, zero before the server sets it.
func (m *Metrics) depth() (queued, running int) {
	m.mu.Lock()
	fn := m.queue
	m.mu.Unlock()
	if fn == nil {
		return 0, 0
	}
	return fn()
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
	m.deliveries.WithLabelValues(EventLabel(event), result).Inc()
	m.answer.Observe(took.Seconds())
}

// APICall counts one GitHub API response by status ("error" for none).
func (m *Metrics) APICall(status string) {
	m.api.WithLabelValues(status).Inc()
}

// Run records the duration of one verification.
func (m *Metrics) Run(d time.Duration) {
	m.runs.Observe(d.Seconds())
}

// DeliveryCount returns the count of one event and result.
func (m *Metrics) DeliveryCount(event, result string) float64 {
	var out dto.Metric
	if err := m.deliveries.WithLabelValues(event, result).Write(&out); err != nil {
		return 0
	}
	return out.GetCounter().GetValue()
}

// WriteTo writes every metric in the Prometheus text format.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	families, err := m.reg.Gather()
	if err != nil {
		return 0, fmt.Errorf("gather metrics: %w", err)
	}
	cw := &countWriter{w: w}
	enc := expfmt.NewEncoder(cw, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			return cw.n, fmt.Errorf("write metrics: %w", err)
		}
	}
	return cw.n, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ServeHTTP answers GET /metrics.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.handler.ServeHTTP(w, r)
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
