package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestMetricsExposition: /metrics keeps the App's metric names and adds
// the go_* and process_* metrics operators expect (issue 11.7).
func TestMetricsExposition(t *testing.T) {
	t.Parallel()
	m := newMetrics("r1")
	m.setQueue(func() (int, int) { return 2, 1 })
	m.Job(kindVerify, "verified")
	m.Delivery("pull_request", "accepted", 3*time.Millisecond)
	m.Delivery("no-such-event", "ignored", time.Millisecond)
	m.APICall("201")
	m.Run(42 * time.Second)

	srv := httptest.NewServer(m)
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	text := string(body)
	for _, want := range []string{
		`template_verify_deliveries_total{event="pull_request",replica="r1",result="accepted"} 1`,
		`template_verify_deliveries_total{event="other",replica="r1",result="ignored"} 1`,
		`template_verify_github_requests_total{replica="r1",status="201"} 1`,
		`template_verify_run_duration_seconds_bucket{replica="r1",le="60"} 1`,
		`template_verify_run_duration_seconds_bucket{replica="r1",le="30"} 0`,
		`template_verify_run_duration_seconds_count{replica="r1"} 1`,
		`template_verify_webhook_answer_seconds_bucket{replica="r1",le="+Inf"} 2`,
		`template_verify_queue_depth{replica="r1"} 2`,
		`template_verify_runs_in_progress{replica="r1"} 1`,
		`template_verify_jobs_total{kind="verify",outcome="verified",replica="r1"} 1`,
		"# TYPE go_goroutines gauge",
		"# TYPE go_memstats_heap_alloc_bytes gauge",
		"# TYPE process_resident_memory_bytes gauge",
		"# TYPE process_open_fds gauge",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if got := m.DeliveryCount("pull_request", "accepted"); got != 1 {
		t.Errorf("DeliveryCount = %v, want 1", got)
	}
	if got := m.DeliveryCount("ping", "ping"); got != 0 {
		t.Errorf("DeliveryCount of an unseen pair = %v, want 0", got)
	}
}

// TestMetricsTwoServers: two servers in one process (the tests start
// many) each count their own deliveries.
func TestMetricsTwoServers(t *testing.T) {
	t.Parallel()
	a, b := newMetrics("r1"), newMetrics("r1")
	a.Delivery("ping", "ping", 0)
	var sa, sb strings.Builder
	if _, err := a.WriteTo(&sa); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteTo(&sb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sa.String(), `template_verify_deliveries_total{event="ping",replica="r1",result="ping"} 1`) {
		t.Errorf("first metrics lack their delivery:\n%s", sa.String())
	}
	if strings.Contains(sb.String(), `event="ping"`) {
		t.Errorf("second metrics show the first's delivery")
	}
}

// /metrics is on the webhook listener only when Config.MetricsAddr is
// empty or MetricsOnWebhook; with an address of its own the webhook
// listener answers 404 for it (serve's default is DefaultMetricsAddr).
func TestMetricsListener(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr      string
		onWebhook bool
	}{
		{"", true},
		{MetricsOnWebhook, true},
		{DefaultMetricsAddr, false},
	} {
		s := &server{cfg: Config{MetricsAddr: tc.addr}, metrics: newMetrics("r")}
		rec := httptest.NewRecorder()
		s.handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		if got := rec.Code == http.StatusOK; got != tc.onWebhook {
			t.Errorf("MetricsAddr %q: /metrics on the webhook listener answered %d, want it served: %v", tc.addr, rec.Code, tc.onWebhook)
		}
		if got := !tc.onWebhook; got != (&Config{MetricsAddr: tc.addr}).metricsApart() {
			t.Errorf("MetricsAddr %q: metricsApart %v", tc.addr, !got)
		}
	}
}
