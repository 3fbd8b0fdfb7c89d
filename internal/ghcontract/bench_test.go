package ghcontract

import (
	"testing"
)

// BenchmarkLoad is the one-time cost per test process: decode and
// compile the cut.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := load(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckCreate is the cost of one checked create: the request
// and a 201 answer of a check run.
func BenchmarkCheckCreate(b *testing.B) {
	c, err := Load()
	if err != nil {
		b.Fatal(err)
	}
	req := []byte(`{"name":"template-verify / render","head_sha":"3484a3fb816e0859fd6e1cea078d76385ff50625","status":"in_progress","output":{"title":"t","summary":"s","annotations":[{"path":"a.sh","start_line":1,"end_line":1,"annotation_level":"warning","message":"m"}]}}`)
	answer := []byte(`{"id":1,"node_id":"CR_1","name":"n","head_sha":"abc","status":"queued","conclusion":null,"started_at":"2026-01-01T00:00:00Z","completed_at":null,"details_url":null,"external_id":"","url":"http://127.0.0.1/x","html_url":"http://127.0.0.1/y","output":{"title":null,"summary":null,"text":null,"annotations_count":0,"annotations_url":"http://127.0.0.1/z"},"check_suite":{"id":2},"app":null,"pull_requests":[]}`)
	for b.Loop() {
		op, vs := c.CheckRequest("POST", "/repos/o/r/check-runs", nil, req)
		if len(vs) > 0 {
			b.Fatal(vs)
		}
		if vs := c.CheckAnswer(op, 201, answer); len(vs) > 0 {
			b.Fatal(vs)
		}
	}
}
