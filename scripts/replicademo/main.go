// Command replicademo is the replica demonstration of scripts/replicas.sh:
// three App servers on one Postgres database behind a fake GitHub, a
// flood of signed deliveries round-robin (duplicates and superseding
// pushes among them), a SIGKILL of one replica in the middle of the runs
// and its restart. It prints one line,
//
//	heads 30, verified 30, comments 30, lost 0, run twice 0, p99 ack N ms
//
// and exits 0 only when every head was verified once with one comment
// and every check run the App opened, a superseded head's too, is
// concluded.
//
// The replicas are this program started again with the argument
// "replica": each is app.ListenAndServe, the server of `template-verify
// serve`, with a stub verification (it reads the head's file from the
// real clone and takes Pace), since the demonstration is about the queue,
// not about verifying templates.
//
//	go run ./scripts/replicademo -database-url postgres://...
package main

// This file is over 400 lines because demo() is the demonstration itself,
// one script read top to bottom in the order scripts/replicas.sh tells it:
// start, flood, kill, restart, wait, count. Its parts are in parts.go.

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/formula-code/template-verify/app"
	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/githttp"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/plan"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

const (
	appID    = 4242
	inst     = 77
	owner    = "octo"
	repoName = "hello"
	full     = owner + "/" + repoName
	secret   = "It's a Secret to Everybody"
	payload  = "app/testdata/github-webhooks/pull_request/synchronize.payload.json"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "replica" {
		if err := replica(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "replica:", err)
			os.Exit(1)
		}
		return
	}
	ok, err := demo()
	if err != nil {
		fmt.Fprintln(os.Stderr, "replicademo:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

// replica serves one App server until SIGTERM.
func replica(args []string) error {
	fs := flag.NewFlagSet("replica", flag.ContinueOnError)
	db := fs.String("database-url", "", "")
	api := fs.String("api-url", "", "")
	keyFile := fs.String("key", "", "")
	data := fs.String("data-dir", "", "")
	listen := fs.String("listen", "", "")
	name := fs.String("name", "", "")
	pace := fs.Duration("pace", time.Second, "")
	rescue := fs.Duration("rescue-after", time.Minute, "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	key, err := os.ReadFile(*keyFile)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return app.ListenAndServe(ctx, app.Config{
		AppID: appID, PrivateKey: key, WebhookSecret: []byte(secret), APIURL: *api, AppSlug: "template-verify",
		DataDir: *data, DatabaseURL: *db, Replica: *name, Workers: 2, RescueAfter: *rescue, WriteInterval: -1,
		ShutdownGrace: 5 * time.Second, AllowUnsandboxed: true, Checks: []string{"render"},
		Verify: stubVerify(*pace),
		Log:    slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
	}, *listen)
}

// stubVerify reads the head's template from the clone after pace and
// reports one passing render check on a changed template (so the App
// comments).
func stubVerify(pace time.Duration) app.VerifyFunc {
	return func(ctx context.Context, in verify.Options) (*report.Report, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pace):
		}
		data, ok, err := gitx.Repo{Dir: in.RepoDir}.ReadFile(ctx, in.Head, "templates/a/test.sh")
		if err != nil || !ok {
			return nil, fmt.Errorf("the clone lacks the head: %v", err)
		}
		return &report.Report{
			Repo: in.RepoName, Base: in.Base, Head: in.Head, BaseRev: in.Base, HeadRev: in.Head,
			Command:   "template-verify run --repo . --base " + in.Base + " --head " + in.Head,
			Templates: []plan.Template{{Group: "tests", Path: "templates/a/test.sh", OldPath: "templates/a/test.sh", Status: plan.Modified}},
			Results:   []checks.Result{{Check: "render", Conclusion: checks.Success, Title: "Rendered 1 template", Summary: "test.sh: " + strings.TrimSpace(string(data))}},
			Overall:   checks.Success, ConfigSource: report.DefaultsSource,
		}, nil
	}
}

// tb lets the fake GitHub and the git server, made for tests, run here.
type tb struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	errs     []string
}

func (t *tb) Helper()          {}
func (t *tb) Cleanup(f func()) { t.mu.Lock(); t.cleanups = append(t.cleanups, f); t.mu.Unlock() }
func (t *tb) Errorf(f string, a ...any) {
	t.mu.Lock()
	t.errs = append(t.errs, fmt.Sprintf(f, a...))
	t.mu.Unlock()
}
func (t *tb) Fatalf(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...); os.Exit(1) }
func (t *tb) Logf(f string, a ...any)   { fmt.Fprintf(os.Stderr, f+"\n", a...) }
func (t *tb) close() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func demo() (bool, error) {
	dbURL := flag.String("database-url", os.Getenv("TEMPLATE_VERIFY_DATABASE_URL"), "the Postgres database of the replicas")
	prs := flag.Int("heads", 30, "pull requests, each with one final head")
	perHead := flag.Int("deliveries", 10, "deliveries per pull request (its superseded head's and its final head's)")
	pace := flag.Duration("pace", 700*time.Millisecond, "how long one stub verification takes")
	wait := flag.Duration("wait", 10*time.Minute, "how long to wait for the runs after the restart")
	keep := flag.Bool("keep", false, "keep the work folder (the replicas' logs) and print its path")
	flag.Parse()
	if *dbURL == "" {
		return false, errors.New("-database-url (or TEMPLATE_VERIFY_DATABASE_URL) is required")
	}
	work, err := os.MkdirTemp("", "replicademo-")
	if err != nil {
		return false, err
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "replicademo: the work folder is", work)
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
	base, heads, err := makeRepo(filepath.Join(root, repoName), 2**prs)
	if err != nil {
		return false, err
	}
	git := githttp.Start(t, root)

	// Three replicas on one database: migrate once first (they would
	// each migrate too, one after another under an advisory lock).
	if err := app.Migrate(context.Background(), app.Config{DatabaseURL: *dbURL}); err != nil {
		return false, err
	}
	self, err := os.Executable()
	if err != nil {
		return false, err
	}
	addrs := make([]string, 3)
	procs := make([]*proc, 3)
	start := func(i int) error {
		args := []string{"replica", "-database-url", *dbURL, "-api-url", gh.URL, "-key", keyFile,
			"-data-dir", filepath.Join(work, fmt.Sprintf("data-%d", i)), "-listen", addrs[i],
			"-name", fmt.Sprintf("replica-%d", i), "-pace", pace.String()}
		logf, err := os.OpenFile(filepath.Join(work, fmt.Sprintf("replica-%d.log", i)), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		cmd := exec.Command(self, args...)
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			return err
		}
		p := &proc{cmd: cmd, done: make(chan struct{})}
		go func() { _ = cmd.Wait(); logf.Close(); close(p.done) }()
		procs[i] = p
		return waitHealthy("http://"+addrs[i], p)
	}
	for i := range addrs {
		if addrs[i], err = freeAddr(); err != nil {
			return false, err
		}
		if err := start(i); err != nil {
			return false, err
		}
	}
	defer func() {
		for _, p := range procs {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			<-p.done
		}
	}()

	// The deliveries: per pull request, the superseded head's first,
	// then the final head's; a share are duplicates (the same id sent
	// again, or the same head under a new id and action).
	raw, err := os.ReadFile(payload)
	if err != nil {
		return false, err
	}
	type delivery struct {
		id   string
		body []byte
	}
	var early, final []delivery
	actions := []string{"opened", "synchronize", "reopened", "ready_for_review"}
	for i := 0; i < *prs; i++ {
		n := 100 + i
		gh.AddPull(full, fakegithub.Pull{Number: n, HeadSHA: heads[2*i+1], HeadRef: "feature", BaseSHA: base, BaseRef: "main", Author: "dev", Body: "A change."})
		for k := 0; k < *perHead; k++ {
			head, list := heads[2*i+1], &final
			if k < *perHead/3 {
				head, list = heads[2*i], &early
			}
			body, err := pullBody(raw, actions[k%len(actions)], n, head, base, git.URL, k)
			if err != nil {
				return false, err
			}
			id := uuid(fmt.Sprint("d", i, k))
			if k%5 == 4 {
				id = (*list)[len(*list)-1].id // a redelivery of the last id
				body = (*list)[len(*list)-1].body
			}
			*list = append(*list, delivery{id: id, body: body})
		}
	}
	all := append(early, final...)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}, Timeout: 30 * time.Second}
	var times []time.Duration
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	var killed bool
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(all); i += 6 {
				target := "http://" + addrs[i%3]
				req, _ := http.NewRequest(http.MethodPost, target+"/webhook", bytes.NewReader(all[i].body))
				req.Header.Set("X-GitHub-Event", "pull_request")
				req.Header.Set("X-GitHub-Delivery", all[i].id)
				req.Header.Set(app.SignatureHeader, app.Sign([]byte(secret), all[i].body))
				t0 := time.Now()
				resp, err := client.Do(req)
				took := time.Since(t0)
				code := 0
				if err == nil {
					code = resp.StatusCode
					resp.Body.Close()
				}
				mu.Lock()
				statuses[code]++
				times = append(times, took)
				mu.Unlock()
				if code != http.StatusAccepted && code != http.StatusOK {
					// A replica that is down: GitHub redelivers; so do we,
					// to the next replica.
					for try := 1; try <= 3 && code != http.StatusAccepted && code != http.StatusOK; try++ {
						time.Sleep(time.Second)
						req, _ := http.NewRequest(http.MethodPost, "http://"+addrs[(i+try)%3]+"/webhook", bytes.NewReader(all[i].body))
						req.Header.Set("X-GitHub-Event", "pull_request")
						req.Header.Set("X-GitHub-Delivery", all[i].id)
						req.Header.Set(app.SignatureHeader, app.Sign([]byte(secret), all[i].body))
						if resp, err := client.Do(req); err == nil {
							code = resp.StatusCode
							resp.Body.Close()
						}
					}
					mu.Lock()
					statuses[-code]++
					mu.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()

	// SIGKILL replica 1 once runs are under way, and start it again.
	appRunsDone := func() int {
		n := 0
		for _, c := range gh.CheckRuns() {
			if c.Name == app.RunName && c.Status == "completed" {
				n++
			}
		}
		return n
	}
	if err := waitFor(2*time.Minute, func() bool { return appRunsDone() >= 5 }); err != nil {
		return false, fmt.Errorf("five finished runs before the kill: %w", err)
	}
	if err := procs[1].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return false, err
	}
	<-procs[1].done
	killed = true
	doneAtKill := appRunsDone()
	time.Sleep(time.Second)
	if err := start(1); err != nil {
		return false, err
	}
	fmt.Fprintf(os.Stderr, "replicademo: %d deliveries, answers %v; killed replica 1 with %d App runs finished, restarted it\n", len(all), statuses, doneAtKill)

	finals := map[string]int{} // head -> pull request
	for i := 0; i < *prs; i++ {
		finals[heads[2*i+1]] = 100 + i
	}
	concluded := func() int {
		n := 0
		for _, c := range gh.CheckRuns() {
			if c.Name == app.RunName && c.Status == "completed" && finals[c.HeadSHA] != 0 {
				n++
			}
		}
		return n
	}
	// River's leader rescues the killed replica's runs after RescueAfter,
	// at its next pass (every 30 s).
	last := time.Now()
	_ = waitFor(*wait, func() bool {
		if time.Since(last) > 30*time.Second {
			last = time.Now()
			fmt.Fprintf(os.Stderr, "replicademo: %d of %d final heads concluded\n", concluded(), *prs)
		}
		return concluded() >= *prs && quiet(gh)
	})

	open := 0
	for _, c := range gh.CheckRuns() {
		if c.Status != "completed" {
			open++
			fmt.Fprintf(os.Stderr, "replicademo: check run %d %q of %s is still %s\n", c.ID, c.Name, c.HeadSHA, c.Status)
		}
	}

	appRuns, gates := map[string]int{}, map[string]int{}
	verified := map[string]bool{}
	for _, c := range gh.CheckRuns() {
		if finals[c.HeadSHA] == 0 {
			continue
		}
		switch c.Name {
		case app.RunName:
			appRuns[c.HeadSHA]++
			if c.Status == "completed" && c.Conclusion == "success" {
				verified[c.HeadSHA] = true
			}
		case "template-verify / gate":
			if c.Status == "completed" && c.Conclusion != "cancelled" {
				gates[c.HeadSHA]++
			}
		}
	}
	var nVerified, nComments, lost, twice int
	for head, pr := range finals {
		if verified[head] {
			nVerified++
		} else {
			lost++
		}
		if len(gh.Comments(full, pr)) == 1 {
			nComments++
		}
		if appRuns[head] > 1 || gates[head] > 1 {
			twice++
		}
	}
	slices.Sort(times)
	p99 := times[int(float64(len(times)-1)*0.99)]
	fmt.Printf("heads %d, verified %d, comments %d, lost %d, run twice %d, p99 ack %d ms\n",
		len(finals), nVerified, nComments, lost, twice, p99.Milliseconds())
	ok := killed && open == 0 && nVerified == len(finals) && nComments == len(finals) && lost == 0 && twice == 0 && len(t.errs) == 0
	for _, e := range t.errs {
		fmt.Fprintln(os.Stderr, "fake GitHub:", e)
	}
	if !ok {
		for i := range procs {
			b, _ := os.ReadFile(filepath.Join(work, fmt.Sprintf("replica-%d.log", i)))
			for _, line := range strings.Split(string(b), "\n") {
				if strings.Contains(line, `"level":"ERROR"`) {
					fmt.Fprintf(os.Stderr, "replica %d: %.300s\n", i, line)
				}
			}
		}
	}
	return ok, nil
}
