// Command cut copies, out of GitHub's published OpenAPI descriptions, the
// operations and webhooks that template-verify uses and the schemas they
// reference, into the two small documents that package ghcontract embeds.
// scripts/ghcontract-cut.sh installs the descriptions with npm into a
// temporary folder and runs it; nothing reads npm at test time.
//
// The REST description is OpenAPI 3.0, whose "nullable" is not JSON
// Schema: the cut turns it into a "null" type (or a "null" enum value, or
// an anyOf with {"type": "null"}), so a JSON Schema 2020-12 validator
// reads every schema as the spec means it. The webhook description is
// OpenAPI 3.1 and is JSON Schema already.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// Operation is one REST operation the tool calls (or the fake serves for
// the tool's tests), with the code that calls it.
type operation struct {
	Method, Path, Caller string
}

// operations are the REST operations of the tool: every request of
// internal/githubapi, publish, app, action and checks/ledger, found with
// grep for the go-github calls and the hand-made requests.
var operations = []operation{
	{"POST", "/repos/{owner}/{repo}/check-runs", "publish/checkruns.go, app/checkrun.go"},
	{"PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}", "publish/checkruns.go, app/checkrun.go"},
	{"GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}", "app/checkrun.go"},
	{"GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations", "tests read what the tool appended"},
	{"GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", "app/recover.go, checks/ledger/github.go"},
	{"GET", "/repos/{owner}/{repo}/commits/{commit_sha}/pulls", "app/announce.go, action/publishrun.go"},
	{"GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", "publish/comment.go"},
	{"GET", "/repos/{owner}/{repo}/issues/comments/{comment_id}", "tests read what the tool wrote"},
	{"POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", "publish/comment.go"},
	{"PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}", "publish/comment.go"},
	{"DELETE", "/repos/{owner}/{repo}/issues/comments/{comment_id}", "publish/comment.go"},
	{"GET", "/repos/{owner}/{repo}/pulls/{pull_number}", "app/announce.go, action/publishrun.go, checks/ledger/github.go"},
	{"GET", "/user", "publish/comment.go"},
	{"GET", "/app", "app/server.go"},
	{"POST", "/app/installations/{installation_id}/access_tokens", "internal/githubapi/apps.go (ghinstallation)"},
	{"POST", "/app-manifests/{code}/conversions", "app/register.go"},
	{"GET", "/repos/{owner}/{repo}/collaborators/{username}/permission", "app/announce.go"},
}

// webhooks are the webhook payloads the tool decodes: the App's events
// (app/event.go) and the Action's (action/run.go), one per action the
// tests send.
var webhooks = []string{
	"ping",
	"pull-request-opened", "pull-request-synchronize", "pull-request-reopened",
	"pull-request-ready-for-review", "pull-request-closed", "pull-request-labeled",
	"pull-request-converted-to-draft",
	"check-run-created", "check-run-completed", "check-run-rerequested", "check-run-requested-action",
	"check-suite-requested", "check-suite-rerequested",
	"issue-comment-created",
	"installation-created", "installation-deleted",
	"installation-repositories-added", "installation-repositories-removed",
	"merge-group-checks-requested", "workflow-run-completed",
}

// alwaysSchemas are cut even when no operation names them: the error
// bodies GitHub gives on any path.
var alwaysSchemas = []string{"basic-error", "validation-error"}

func main() {
	rest := flag.String("rest", "", "the REST description (api.github.com.json of @octokit/openapi)")
	hooks := flag.String("webhooks", "", "the webhook description (api.github.com.json of @octokit/openapi-webhooks)")
	restVersion := flag.String("rest-version", "", "the version of @octokit/openapi")
	hooksVersion := flag.String("webhooks-version", "", "the version of @octokit/openapi-webhooks")
	out := flag.String("out", "", "the folder to write rest.json and webhooks.json into")
	flag.Parse()
	if *rest == "" || *hooks == "" || *out == "" || *restVersion == "" || *hooksVersion == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*rest, *hooks, *restVersion, *hooksVersion, *out); err != nil {
		slog.Error("cut", "err", err)
		os.Exit(1)
	}
}

func run(restPath, hooksPath, restVersion, hooksVersion, out string) error {
	restDoc, err := readJSON(restPath)
	if err != nil {
		return err
	}
	restCut, err := cutREST(restDoc, restVersion)
	if err != nil {
		return fmt.Errorf("%s: %w", restPath, err)
	}
	hooksDoc, err := readJSON(hooksPath)
	if err != nil {
		return err
	}
	hooksCut, err := cutWebhooks(hooksDoc, hooksVersion)
	if err != nil {
		return fmt.Errorf("%s: %w", hooksPath, err)
	}
	if err := writeJSON(filepath.Join(out, "rest.json"), restCut); err != nil {
		return err
	}
	return writeJSON(filepath.Join(out, "webhooks.json"), hooksCut)
}

func readJSON(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

func writeJSON(path string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func header(pkg, version, file string, doc map[string]any, extra string) map[string]any {
	info, _ := doc["info"].(map[string]any)
	return map[string]any{
		"source":  fmt.Sprintf("%s %s, generated/%s", pkg, version, file),
		"openapi": doc["openapi"],
		"info":    info["version"],
		"cut_by":  "scripts/ghcontract-cut.sh (internal/ghcontract/cut); do not edit by hand",
		"note":    extra,
	}
}

// cutREST makes the REST cut: {"x-cut", "operations", "components"}.
func cutREST(doc map[string]any, version string) (map[string]any, error) {
	paths, _ := doc["paths"].(map[string]any)
	comps, _ := doc["components"].(map[string]any)
	ops := map[string]any{}
	for _, o := range operations {
		item, _ := paths[o.Path].(map[string]any)
		op, _ := item[strings.ToLower(o.Method)].(map[string]any)
		if op == nil {
			return nil, fmt.Errorf("no operation %s %s", o.Method, o.Path)
		}
		id, _ := op["operationId"].(string)
		cut := map[string]any{"method": o.Method, "path": o.Path, "caller": o.Caller}
		var params []any
		for _, p := range append(list(item["parameters"]), list(op["parameters"])...) {
			p = resolve(comps, p)
			pm, _ := p.(map[string]any)
			params = append(params, pick(pm, "name", "in", "required", "description", "schema"))
		}
		if params != nil {
			cut["parameters"] = params
		}
		if rb, ok := op["requestBody"].(map[string]any); ok {
			rb, _ = resolve(comps, rb).(map[string]any)
			cut["body_required"] = rb["required"] == true
			if s := jsonSchemaOf(rb); s != nil {
				cut["body"] = s
			}
		}
		resps := map[string]any{}
		for status, r := range asMap(op["responses"]) {
			rm, _ := resolve(comps, r).(map[string]any)
			entry := map[string]any{"description": rm["description"]}
			if s := jsonSchemaOf(rm); s != nil {
				entry["schema"] = s
			}
			resps[status] = entry
		}
		cut["responses"] = resps
		ops[id] = cut
	}
	schemas := asMap(comps["schemas"])
	for _, o := range ops {
		stripInResponses(o.(map[string]any))
	}
	picked := closure(schemas, ops, alwaysSchemas)
	for _, s := range picked {
		strip(s, true)
	}
	nullables(ops)
	nullables(picked)
	dedupe(picked, ops)
	return map[string]any{
		"x-cut": header("@octokit/openapi", version, "api.github.com.json", doc,
			"OpenAPI 3.0 nullable turned into JSON Schema null types; descriptions kept in request bodies and parameters only; examples dropped"),
		"operations": ops,
		"components": map[string]any{"schemas": picked},
	}, nil
}

// cutWebhooks makes the webhook cut: {"x-cut", "webhooks", "components"}.
func cutWebhooks(doc map[string]any, version string) (map[string]any, error) {
	all := asMap(doc["webhooks"])
	comps := asMap(doc["components"])
	out := map[string]any{}
	for _, name := range webhooks {
		post := asMap(asMap(all[name])["post"])
		s := jsonSchemaOf(asMap(post["requestBody"]))
		if s == nil {
			return nil, fmt.Errorf("no webhook %s", name)
		}
		out[name] = s
	}
	picked := closure(asMap(comps["schemas"]), out, nil)
	for _, s := range picked {
		strip(s, true)
	}
	dedupe(picked, out)
	return map[string]any{
		"x-cut":      header("@octokit/openapi-webhooks", version, "api.github.com.json", doc, "descriptions and examples dropped"),
		"webhooks":   out,
		"components": map[string]any{"schemas": picked},
	}, nil
}

func list(v any) []any { l, _ := v.([]any); return l }

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

func pick(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}
