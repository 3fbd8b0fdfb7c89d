package fakegithub

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/formula-code/template-verify/internal/ghcontract"
)

// ContractEnv turns the contract check off when set to "off". The check
// is on by default: every request that reaches the fake is checked
// against GitHub's published contract (package ghcontract), and so is
// every answer the fake gives; a violation fails the test that made the
// request.
const ContractEnv = "FAKEGITHUB_CONTRACT"

// ContractLogEnv names a file that each server appends its counts to when
// its test ends: one line per operation, "op=ID requests=N answers=N
// violations=N", for the figures of the whole test run.
const ContractLogEnv = "FAKEGITHUB_CONTRACT_LOG"

// contractCheck is the contract state of one server.
type contractCheck struct {
	c             *ghcontract.Contract
	mu            sync.Mutex
	expectInvalid bool
	violations    []string
	counts        map[string]*[3]int // op -> requests, answers, violations
}

func newContractCheck(tb testing.TB) *contractCheck {
	if os.Getenv(ContractEnv) == "off" {
		return nil
	}
	c, err := ghcontract.Load()
	if err != nil {
		tb.Fatalf("fakegithub: %v", err)
	}
	return &contractCheck{c: c, counts: map[string]*[3]int{}}
}

// ExpectInvalidRequests is for tests that send, on purpose, requests
// that break the contract, to see the fake refuse them: such a request
// is then no failure as long as the fake answers it with an error
// status (or the break is one GitHub tolerates, such as per_page over
// 100). The fake's answers are still checked.
func (s *Server) ExpectInvalidRequests() {
	if s.contract == nil {
		return
	}
	s.contract.mu.Lock()
	s.contract.expectInvalid = true
	s.contract.mu.Unlock()
}

// check checks one request and its answer.
func (k *contractCheck) check(method, path string, query url.Values, body []byte, status int, answer []byte) {
	if k == nil {
		return
	}
	op, reqV := k.c.CheckRequest(method, path, query, body)
	var ansV []ghcontract.Violation
	if op != nil {
		ansV = k.c.CheckAnswer(op, status, answer)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	id := method + " " + path
	if op != nil {
		id = op.ID
	}
	n := k.counts[id]
	if n == nil {
		n = &[3]int{}
		k.counts[id] = n
	}
	n[0]++
	if op != nil {
		n[1]++
	}
	if len(reqV) > 0 && k.expectInvalid {
		for _, v := range reqV {
			if status < 400 && !v.Tolerated {
				k.violations = append(k.violations, fmt.Sprintf("%s request: the fake answered %d to a request the contract refuses: %s", id, status, v))
				n[2]++
				break
			}
		}
		reqV = nil
	}
	for _, v := range append(reqV, ansV...) {
		k.violations = append(k.violations, v.String())
		n[2]++
	}
}

// report fails the test for each violation and appends the counts to the
// log of ContractLogEnv.
func (k *contractCheck) report(tb testing.TB) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	const most = 20
	for i, v := range k.violations {
		if i == most {
			tb.Errorf("fakegithub: and %d more violations of GitHub's contract", len(k.violations)-most)
			break
		}
		tb.Errorf("fakegithub: GitHub's contract: %s", v)
	}
	path := os.Getenv(ContractLogEnv)
	if path == "" || len(k.counts) == 0 {
		return
	}
	ids := make([]string, 0, len(k.counts))
	for id := range k.counts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	for _, id := range ids {
		n := k.counts[id]
		fmt.Fprintf(&b, "op=%s requests=%d answers=%d violations=%d\n", strings.ReplaceAll(id, " ", "_"), n[0], n[1], n[2])
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		tb.Errorf("fakegithub: %s: %v", ContractLogEnv, err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(b.String()); err != nil {
		tb.Errorf("fakegithub: %s: %v", ContractLogEnv, err)
	}
}

// recorder keeps a copy of the answer's body for the contract check.
type recorder struct {
	http.ResponseWriter
	body []byte
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body = append(r.body, b...)
	return r.ResponseWriter.Write(b)
}
