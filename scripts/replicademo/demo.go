// The demonstration itself, in the order scripts/replicas.sh tells it:
// start, flood with a kill at the admits, a kill during a verification,
// the Postgres outage, a kill during publishing, wait, count.

package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/formula-code/template-verify/app"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/githttp"
)

// options are the demonstration's flags.
type options struct {
	dbURL, pgDir, pgScript string
	outage                 time.Duration
	prs, perHead           int
	pace, wait             time.Duration
	keep                   bool
}

func parseOptions() (options, error) {
	var o options
	flag.StringVar(&o.dbURL, "database-url", os.Getenv("TEMPLATE_VERIFY_DATABASE_URL"), "the Postgres database of the replicas")
	flag.StringVar(&o.pgDir, "pg-dir", os.Getenv("PG_DIR"), "the folder of scripts/pg.sh's cluster, for the outage (pg.sh run sets PG_DIR)")
	flag.StringVar(&o.pgScript, "pg-script", "scripts/pg.sh", "scripts/pg.sh, whose restart makes the outage")
	flag.DurationVar(&o.outage, "outage", 10*time.Second, "how long Postgres stays stopped in the middle; 0: no outage")
	flag.IntVar(&o.prs, "heads", 30, "pull requests, each with one final head")
	flag.IntVar(&o.perHead, "deliveries", 10, "deliveries per pull request (its superseded head's and its final head's)")
	flag.DurationVar(&o.pace, "pace", 700*time.Millisecond, "how long one stub verification takes")
	flag.DurationVar(&o.wait, "wait", 15*time.Minute, "how long to wait for the runs after the last fault")
	flag.BoolVar(&o.keep, "keep", false, "keep the work folder (the replicas' logs) and print its path")
	flag.Parse()
	switch {
	case o.dbURL == "":
		return o, errors.New("-database-url (or TEMPLATE_VERIFY_DATABASE_URL) is required")
	case o.outage > 0 && o.pgDir == "":
		return o, errors.New("-pg-dir (or PG_DIR) is required for the outage (scripts/pg.sh run sets it), or -outage 0")
	case o.prs < 1 || o.perHead < 3:
		return o, errors.New("-heads must be at least 1 and -deliveries at least 3")
	}
	return o, nil
}

func demo() (bool, error) {
	o, err := parseOptions()
	if err != nil {
		return false, err
	}
	began := time.Now()
	logf := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "replicademo %5.1fs: "+format+"\n", append([]any{time.Since(began).Seconds()}, a...)...)
	}
	work, err := os.MkdirTemp("", "replicademo-")
	if err != nil {
		return false, err
	}
	if o.keep {
		logf("the work folder is %s", work)
	} else {
		defer os.RemoveAll(work)
	}
	t := &tb{}
	defer t.close()

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return false, err
	}
	keyFile := filepath.Join(work, "key.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return false, err
	}
	gh := fakegithub.NewApp(t, appID, &key.PublicKey)
	gh.SetPermission(full, "dev", "write")
	root := filepath.Join(work, "git")
	base, heads, err := makeRepo(filepath.Join(root, repoName), 2*o.prs)
	if err != nil {
		return false, err
	}
	git := githttp.Start(t, root)
	pulls, finals := map[string]int{}, map[string]bool{}
	for i := 0; i < o.prs; i++ {
		n := 100 + i
		gh.AddPull(full, fakegithub.Pull{Number: n, HeadSHA: heads[2*i+1], HeadRef: "feature", BaseSHA: base, BaseRef: "main", Author: "dev", Body: "A change."})
		pulls[heads[2*i]], pulls[heads[2*i+1]] = n, n
		finals[heads[2*i+1]] = true
	}

	// Three replicas on one database: migrate once first (they would
	// each migrate too, one after another under an advisory lock).
	if err := app.Migrate(context.Background(), app.Config{DatabaseURL: o.dbURL}); err != nil {
		return false, err
	}
	self, err := os.Executable()
	if err != nil {
		return false, err
	}
	stubFile := filepath.Join(work, "stub.log")
	fl := &fleet{self: self, work: work, procs: make([]*proc, 3)}
	fronts := make([]*front, 3)
	for i := range 3 {
		fronts[i] = &front{target: gh.URL, client: &http.Client{Timeout: time.Minute}}
		srv := httptest.NewServer(fronts[i])
		defer srv.Close()
		f := replicaFlags{db: o.dbURL, api: srv.URL, keyFile: keyFile, data: filepath.Join(work, fmt.Sprintf("data-%d", i)),
			record: stubFile, index: i, pace: o.pace}
		if f.listen, err = freeAddr(); err != nil {
			return false, err
		}
		if f.metrics, err = freeAddr(); err != nil {
			return false, err
		}
		fl.flags = append(fl.flags, f)
	}
	for i := range 3 {
		if err := fl.start(i); err != nil {
			return false, err
		}
	}
	defer fl.stop()
	addrs := []string{fl.flags[0].listen, fl.flags[1].listen, fl.flags[2].listen}

	raw, err := os.ReadFile(payload)
	if err != nil {
		return false, err
	}
	all, err := deliveries(raw, o.prs, o.perHead, heads, base, git.URL)
	if err != nil {
		return false, err
	}

	// 1. While the deliveries are admitted: replica 0, once a third of
	// them is sent; the senders redeliver to the next replica.
	admitted := make(chan error, 1)
	var admitOnce sync.Once
	logf("%d deliveries for %d pull requests, round-robin to 3 replicas", len(all), o.prs)
	fr := flood(all, addrs, func(n int) {
		if n < len(all)/3 {
			return
		}
		admitOnce.Do(func() {
			go func() {
				err := fl.kill(0, fmt.Sprintf("while the deliveries were admitted (%d of %d sent)", n, len(all)))
				logf("killed replica 0 with %d of %d deliveries sent", n, len(all))
				if err == nil {
					err = fl.restart(0)
				}
				admitted <- err
			}()
		})
	})
	if err := <-admitted; err != nil {
		return false, err
	}
	logf("deliveries answered %v (0: no answer; -N: the redelivery's answer); p99 of the first answers %d ms; replica 0 is back", fr.statuses, fr.p99.Milliseconds())

	// 2. During a verification: replica 1, as soon as its stub starts to
	// verify a final head.
	_, before, err := stubRecord(stubFile)
	if err != nil {
		return false, err
	}
	var victim stubLine
	err = waitFor(3*time.Minute, func() bool {
		_, lines, _ := stubRecord(stubFile)
		for _, l := range lines[min(len(before), len(lines)):] {
			if l.event == "start" && l.replica == 1 && finals[l.head] {
				victim = l
				return true
			}
		}
		return false
	})
	if err != nil {
		return false, fmt.Errorf("no verification started on replica 1: %w", err)
	}
	if err := fl.kill(1, fmt.Sprintf("while it verified head %s of #%d", short(victim.head), pulls[victim.head])); err != nil {
		return false, err
	}
	missed := false
	if _, lines, err := stubRecord(stubFile); err == nil {
		for _, l := range lines {
			if l.event == "done" && l.replica == 1 && l.head == victim.head {
				missed = true // it had finished that verification when it died
			}
		}
	}
	logf("killed replica 1 while it verified head %s of #%d (finished before the kill: %v)", short(victim.head), pulls[victim.head], missed)
	if err := fl.restart(1); err != nil {
		return false, err
	}

	// 3. Postgres stops for the outage and starts on the same data.
	if o.outage > 0 {
		logf("Postgres stops for %v", o.outage)
		cmd := exec.Command("bash", o.pgScript, "restart", o.pgDir, strconv.FormatFloat(o.outage.Seconds(), 'f', -1, 64))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return false, fmt.Errorf("restart Postgres: %w", err)
		}
		// The App's store retries back off up to 5 s: 10 s on, each has
		// tried again. A kill before that can hit a verification that
		// finished while its result waited for the database, held in
		// that process's memory only; run again, it is verified twice,
		// which is right (nothing was stored) but is not what this kill
		// is for.
		logf("Postgres is back; the kill during publishing comes 10 s on")
		time.Sleep(10 * time.Second)
	}

	// 4. During publishing: replica 2, once GitHub has done its first
	// completion of a check's run with the verification's result, before
	// the replica reads the answer.
	published := make(chan struct{})
	var armed atomic.Bool
	armed.Store(true)
	var publishWhat string
	fronts[2].killAfter = func(method, path string, body []byte) bool {
		if method != http.MethodPatch || !armed.Load() {
			return false
		}
		c, ok := publishedRun(gh, path, body)
		if !ok || !armed.CompareAndSwap(true, false) {
			return false
		}
		publishWhat = fmt.Sprintf("while it published head %s of #%d (GitHub had completed its run %q)", short(c.HeadSHA), pulls[c.HeadSHA], c.Name)
		return true
	}
	fronts[2].kill = func() {
		if err := fl.kill(2, publishWhat); err != nil {
			logf("%v", err)
		}
		close(published)
	}
	select {
	case <-published:
	case <-time.After(5 * time.Minute):
		armed.Store(false)
		return false, errors.New("replica 2 published nothing for 5 minutes after the outage")
	}
	logf("killed replica 2 %s", publishWhat)
	if err := fl.restart(2); err != nil {
		return false, err
	}

	// Wait until every final head is concluded, no check run is open and
	// the queue holds nothing to do.
	concluded := func() int {
		heads := map[string]bool{}
		for _, c := range gh.CheckRuns() {
			if c.Name == app.RunName && c.Status == "completed" && finals[c.HeadSHA] {
				heads[c.HeadSHA] = true
			}
		}
		return len(heads)
	}
	last := time.Now()
	err = waitFor(o.wait, func() bool {
		time.Sleep(900 * time.Millisecond) // waitFor polls every 100 ms; the database every second is enough
		if time.Since(last) > 30*time.Second {
			last = time.Now()
			open := 0
			for _, c := range gh.CheckRuns() {
				if c.Status != "completed" {
					open++
				}
			}
			logf("%d of %d final heads concluded, %d check runs open, queue pending %d", concluded(), o.prs, open, pending(o.dbURL))
		}
		return concluded() >= o.prs && quiet(gh) && pending(o.dbURL) == 0
	})
	if err != nil {
		logf("the runs did not settle: %v", err)
	} else {
		logf("every final head concluded, no check run open, nothing queued")
	}
	done, _, err := stubRecord(stubFile)
	if err != nil {
		return false, err
	}
	comments := map[int][]fakegithub.Comment{}
	for i := 0; i < o.prs; i++ {
		comments[100+i] = gh.Comments(full, 100+i)
	}
	res := count(record{runs: gh.CheckRuns(), comments: comments, pulls: pulls, finals: finals, verified: done})
	for _, k := range fl.kills {
		logf("killed %s", k)
	}
	for _, n := range res.notes {
		logf("%s", n)
	}
	fmt.Println(res.line())
	ok := res.ok() && len(fl.kills) == 3 && !missed && len(t.errs) == 0
	if missed {
		logf("the verification kill came after replica 1 had finished verifying %s", short(victim.head))
	}
	for _, e := range t.errs {
		fmt.Fprintln(os.Stderr, "fake GitHub:", e)
	}
	if !ok {
		for i := range 3 {
			b, _ := os.ReadFile(fl.log(i))
			for _, line := range strings.Split(string(b), "\n") {
				if strings.Contains(line, `"level":"ERROR"`) {
					fmt.Fprintf(os.Stderr, "replica %d: %.300s\n", i, line)
				}
			}
		}
	}
	return ok, nil
}

// publishedRun is the run of a check (not the App's, not the gate) that
// the PATCH of path with body completed as success, as publishing the
// stub's result does.
func publishedRun(gh *fakegithub.AppServer, path string, body []byte) (fakegithub.CheckRun, bool) {
	const prefix = "/repos/" + full + "/check-runs/"
	id, err := strconv.ParseInt(strings.TrimPrefix(path, prefix), 10, 64)
	if !strings.HasPrefix(path, prefix) || err != nil {
		return fakegithub.CheckRun{}, false
	}
	var in struct{ Name, Status, Conclusion string }
	if json.NewDecoder(bytes.NewReader(body)).Decode(&in) != nil || in.Status != "completed" || in.Conclusion != "success" {
		return fakegithub.CheckRun{}, false
	}
	for _, c := range gh.CheckRuns() {
		if c.ID == id {
			return c, c.Name != app.RunName && c.Name != gateName
		}
	}
	return fakegithub.CheckRun{}, false
}

// pending is the number of announce and verify jobs River has yet to
// finish plus the verifications whose state the App keeps (a job River
// finished whose runs the leader's settle job has yet to conclude), or
// -1 when the database does not answer.
func pending(dbURL string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return -1
	}
	defer conn.Close(ctx)
	var n int
	err = conn.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM river_job WHERE kind IN ('template_verify_announce', 'template_verify_verify')
			AND state NOT IN ('completed', 'cancelled', 'discarded'))
		+ (SELECT count(*) FROM template_verify_jobs)`).Scan(&n)
	if err != nil {
		return -1
	}
	return n
}
