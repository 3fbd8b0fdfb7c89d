package ghcontract

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// webhookDirs are the folders of the tests' webhook payloads: one folder
// per event (X-GitHub-Event), a payload per file.
var webhookDirs = []string{"../../app/testdata/github-webhooks", "../../action/testdata/github-webhooks"}

// TestWebhookTestdata checks every webhook payload of the tests against
// the webhook description: a payload is complete, as GitHub sends it.
func TestWebhookTestdata(t *testing.T) {
	t.Parallel()
	c := mustLoad(t)
	n := 0
	for _, dir := range webhookDirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
				return err
			}
			n++
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var head struct {
				Action string `json:"action"`
			}
			if err := json.Unmarshal(data, &head); err != nil {
				t.Errorf("%s: %v", path, err)
				return nil
			}
			event := filepath.Base(filepath.Dir(path))
			vs, err := c.CheckWebhook(WebhookName(event, head.Action), data)
			if err != nil {
				t.Errorf("%s: %v", path, err)
			}
			for _, v := range vs {
				t.Errorf("%s: %s", path, v)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n != 24 {
		t.Errorf("%d payloads checked, want the 24 of the tests", n)
	}
}
