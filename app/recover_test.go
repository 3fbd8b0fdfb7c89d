package app

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/fakegithub"
)

// A kill between creating the per-check runs and storing their ids left
// them in progress for good; the restart finds them on the head and
// completes them, making no second set (seen in
// TestFloodThenKillRunsEachHeadOnce).
func TestRestartConcludesRunsItHadNotStored(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.gh.SetPermission(testFull, "dev", "write")
	h.addPull(6, h.repo.heads[2], false)
	// The killed server's runs: created, their ids never stored.
	var left []int64
	for _, name := range []string{"template-verify / render", "template-verify / gate"} {
		body := mustJSON(map[string]any{"name": name, "head_sha": h.repo.heads[2], "status": "in_progress"})
		req, _ := http.NewRequest(http.MethodPost, h.gh.URL+"/repos/"+testFull+"/check-runs", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer unused-admin-token")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("create the left-over run: %d", resp.StatusCode)
		}
		left = append(left, h.gh.CheckRuns()[len(h.gh.CheckRuns())-1].ID)
	}
	j := &Job{
		Delivery: testDeliveryID("killed"), Event: "pull_request", Action: "synchronize", Installation: testInst,
		Owner: testOwner, Repo: testRepo, CloneURL: h.git.URL + "/" + testRepo, PR: 6, HeadSHA: h.repo.heads[2],
		BaseSHA: h.repo.base, BaseRef: "main", Author: "dev", State: StateRunning, Accepted: time.Now().UTC(), Attempts: 1,
	}
	h.plant(j)
	v := &stubVerify{}
	h.start(v.fn)
	h.waitFor("the run after the restart", func() bool { return h.idle() && v.calls.Load() == 1 })
	for _, c := range h.gh.CheckRuns() {
		if c.Status != "completed" {
			t.Errorf("run %d %q is still %s", c.ID, c.Name, c.Status)
		}
	}
	// The restart takes the left-over runs up and completes them with the
	// verification's verdict: no second set of runs is made (issue 38:
	// publishing resumes where it stopped).
	names := map[string]int{}
	for _, c := range h.gh.CheckRuns() {
		names[c.Name]++
		if (c.ID == left[0] || c.ID == left[1]) && (c.Status != "completed" || c.Conclusion == "") {
			t.Errorf("left-over run %d %q: %s %q, want completed", c.ID, c.Name, c.Status, c.Conclusion)
		}
	}
	for _, name := range []string{"template-verify / render", "template-verify / gate"} {
		if names[name] != 1 {
			t.Errorf("%d runs %q on the head, want the left-over one only", names[name], name)
		}
	}
}

// Another App's run on the head, even with one of our names, is not ours
// to conclude: the restart finds it in the list of the head's runs and
// leaves it alone (recover.go skips a run whose app.id is another App's).
// Without the skip, the restart PATCHes it.
func TestRestartLeavesOtherAppsRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.gh.SetPermission(testFull, "dev", "write")
	h.addPull(6, h.repo.heads[2], false)
	h.gh.AddToken("ours", fakegithub.Token{Login: h.gh.AppLogin, Installation: true})
	h.gh.AddToken("theirs", fakegithub.Token{Login: "other-ci[bot]", Installation: true, AppID: testAppID + 1, AppSlug: "other-ci"})
	create := func(token string) fakegithub.CheckRun {
		body := mustJSON(map[string]any{"name": "template-verify / render", "head_sha": h.repo.heads[2], "status": "in_progress"})
		req, _ := http.NewRequest(http.MethodPost, h.gh.URL+"/repos/"+testFull+"/check-runs", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("create a left-over run with %s: %d", token, resp.StatusCode)
		}
		runs := h.gh.CheckRuns()
		return runs[len(runs)-1]
	}
	ours, theirs := create("ours"), create("theirs")
	if ours.AppID != testAppID || theirs.AppID != testAppID+1 {
		t.Fatalf("apps of the runs: ours %d, theirs %d", ours.AppID, theirs.AppID)
	}
	j := &Job{
		Delivery: testDeliveryID("killed-other"), Event: "pull_request", Action: "synchronize", Installation: testInst,
		Owner: testOwner, Repo: testRepo, CloneURL: h.git.URL + "/" + testRepo, PR: 6, HeadSHA: h.repo.heads[2],
		BaseSHA: h.repo.base, BaseRef: "main", Author: "dev", State: StateRunning, Accepted: time.Now().UTC(), Attempts: 1,
	}
	h.plant(j)
	v := &stubVerify{}
	h.start(v.fn)
	h.waitFor("the run after the restart", func() bool { return h.idle() && v.calls.Load() == 1 })
	for _, c := range h.gh.CheckRuns() {
		switch c.ID {
		case ours.ID:
			if c.Status != "completed" || c.Conclusion == "" {
				t.Errorf("our left-over run: %s %q, want completed", c.Status, c.Conclusion)
			}
		case theirs.ID:
			if c.Status != "in_progress" || c.Conclusion != "" {
				t.Errorf("the other App's run: %s %q, want in_progress as it was", c.Status, c.Conclusion)
			}
		}
	}
	for _, r := range h.gh.Writes() {
		if strings.HasSuffix(r.Path, fmt.Sprintf("/check-runs/%d", theirs.ID)) {
			t.Errorf("%s %s: the other App's run was written to", r.Method, r.Path)
		}
	}
}
