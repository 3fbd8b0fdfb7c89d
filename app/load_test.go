package app

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkWebhookLoad sends 500 signed pull_request deliveries in 10
// bursts of 50, one burst every 250 ms (200 a second), to the server on
// loopback, with the fake GitHub and the git server behind it. One in ten
// has a bad signature and must be rejected. It reports accepted,
// rejected, p50 and p99 time to answer, then waits until every accepted
// delivery has its completed "template-verify" check run: none lost.
//
//	go test -run XXX -bench WebhookLoad -benchtime 1x ./app
func BenchmarkWebhookLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		loadOnce(b, i)
	}
}

func loadOnce(b *testing.B, round int) {
	const total, burst = 500, 50
	h := newHarness(b)
	v := &stubVerify{}
	h.start(v.fn)
	h.gh.SetPermission(testFull, "dev", "write")
	bodies := make([][]byte, total)
	for i := range bodies {
		n := 1000 + i
		h.addPull(n, h.repo.heads[i%3], false)
		bodies[i] = h.pullPayload("synchronize", n, h.repo.heads[i%3], false)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: burst}}
	var mu sync.Mutex
	var times []time.Duration
	accepted, rejected, other := 0, 0, 0
	b.ResetTimer()
	start := time.Now()
	for k := 0; k < total/burst; k++ {
		next := start.Add(time.Duration(k) * 250 * time.Millisecond)
		time.Sleep(time.Until(next))
		var wg sync.WaitGroup
		for i := k * burst; i < (k+1)*burst; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				sig := Sign([]byte(testSecret), bodies[i])
				if i%10 == 9 {
					sig = Sign([]byte("wrong"), bodies[i])
				}
				req, _ := http.NewRequest(http.MethodPost, h.web.URL+"/webhook", bytes.NewReader(bodies[i]))
				req.Header.Set("X-GitHub-Event", "pull_request")
				req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("load-%d-%d", round, i))
				req.Header.Set(SignatureHeader, sig)
				t0 := time.Now()
				resp, err := client.Do(req)
				d := time.Since(t0)
				mu.Lock()
				defer mu.Unlock()
				times = append(times, d)
				switch {
				case err != nil:
					other++
				case resp.StatusCode == http.StatusAccepted:
					accepted++
				case resp.StatusCode == http.StatusBadRequest:
					rejected++
				default:
					other++
				}
				if resp != nil {
					resp.Body.Close()
				}
			}(i)
		}
		wg.Wait()
	}
	sendTime := time.Since(start)
	b.StopTimer()
	slices.Sort(times)
	p50, p99 := percentile(times, 0.50), percentile(times, 0.99)
	if accepted != total*9/10 || rejected != total/10 || other != 0 {
		b.Fatalf("accepted %d, rejected %d, other %d", accepted, rejected, other)
	}
	b.Logf("answers: accepted %d, rejected %d, p50 %v, p99 %v, max %v, sent in %v", accepted, rejected, p50, p99, times[len(times)-1], sendTime)
	waitUntil(b, 15*time.Minute, "every accepted delivery to finish", func() bool {
		return countCompleted(h, RunName) == accepted && h.idle()
	})
	drain := time.Since(start)
	b.ReportMetric(float64(accepted), "accepted")
	b.ReportMetric(float64(rejected), "rejected")
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(total)/sendTime.Seconds(), "deliveries/s")
	b.ReportMetric(drain.Seconds(), "drain-s")
	b.Logf("accepted %d, rejected %d, lost 0, p50 %v, p99 %v, max %v, sent in %v, all %d runs done after %v",
		accepted, rejected, p50, p99, times[len(times)-1], sendTime, accepted, drain)
	h.stop()
}

func countCompleted(h *harness, name string) int {
	n := 0
	for _, c := range h.gh.CheckRuns() {
		if c.Name == name && c.Status == "completed" {
			n++
		}
	}
	return n
}

// percentile returns the p-th percentile of sorted durations.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[int(float64(len(d)-1)*p)]
}
