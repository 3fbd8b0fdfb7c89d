// The deliveries: per pull request a superseded head's and the final
// head's, a share of them redeliveries, sent round-robin to the replicas
// as GitHub would, with GitHub's redelivery when a replica is down.

package main

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/formula-code/template-verify/app"
)

type delivery struct {
	id   string
	body []byte
}

// deliveries are perHead deliveries of each of prs pull requests (100,
// 101, …): the first third for the superseded head heads[2i], the rest
// for the final head heads[2i+1]; every fifth is a redelivery of the
// delivery before it (the same id and body). The superseded heads'
// deliveries come first.
func deliveries(raw []byte, prs, perHead int, heads []string, base, gitURL string) ([]delivery, error) {
	var early, final []delivery
	actions := []string{"opened", "synchronize", "reopened", "ready_for_review"}
	for i := 0; i < prs; i++ {
		n := 100 + i
		for k := 0; k < perHead; k++ {
			head, list := heads[2*i+1], &final
			if k < perHead/3 {
				head, list = heads[2*i], &early
			}
			body, err := pullBody(raw, actions[k%len(actions)], n, head, base, gitURL, k)
			if err != nil {
				return nil, err
			}
			d := delivery{id: uuid(fmt.Sprint("d", i, k)), body: body}
			if k%5 == 4 && len(*list) > 0 {
				d = (*list)[len(*list)-1] // a redelivery of the last id
			}
			*list = append(*list, d)
		}
	}
	return append(early, final...), nil
}

// floodResult is what the flood saw.
type floodResult struct {
	statuses map[int]int // first answer's status (0: no answer); -status: the last redelivery's
	p99      time.Duration
}

// flood sends all round-robin over addrs from 6 senders. A delivery that
// gets no 200 or 202 is sent again to the next replica after a second,
// up to 3 times, as GitHub's redelivery would. sent is called after each
// first send with the number sent so far.
func flood(all []delivery, addrs []string, sent func(n int)) floodResult {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}, Timeout: 30 * time.Second}
	post := func(addr string, d delivery) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", bytes.NewReader(d.body))
		req.Header.Set("X-GitHub-Event", "pull_request")
		req.Header.Set("X-GitHub-Delivery", d.id)
		req.Header.Set(app.SignatureHeader, app.Sign([]byte(secret), d.body))
		resp, err := client.Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	okCode := func(c int) bool { return c == http.StatusAccepted || c == http.StatusOK }
	var mu sync.Mutex
	var times []time.Duration
	statuses := map[int]int{}
	var n atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(all); i += 6 {
				t0 := time.Now()
				code := post(addrs[i%len(addrs)], all[i])
				took := time.Since(t0)
				mu.Lock()
				statuses[code]++
				times = append(times, took)
				mu.Unlock()
				sent(int(n.Add(1)))
				if okCode(code) {
					continue
				}
				for try := 1; try <= 3 && !okCode(code); try++ {
					time.Sleep(time.Second)
					code = post(addrs[(i+try)%len(addrs)], all[i])
				}
				mu.Lock()
				statuses[-code]++
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	slices.Sort(times)
	return floodResult{statuses: statuses, p99: times[int(float64(len(times)-1)*0.99)]}
}
