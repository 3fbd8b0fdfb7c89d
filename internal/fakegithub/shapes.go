package fakegithub

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strings"
)

// The objects GitHub nests in its answers, with every field the
// published schema requires (package ghcontract checks them) and
// plausible values: ids from the names, node ids in GitHub's form, URLs
// on the server's base.

// accountCreated is the creation time of every user, repository and App.
const accountCreated = "2011-01-26T19:01:12Z"

// GitHubActionsAppID and GitHubActionsSlug are the App of check runs made
// with an Action's GITHUB_TOKEN.
const (
	GitHubActionsAppID = 15368
	GitHubActionsSlug  = "github-actions"
)

// nameID is a stable positive id for a name (not case-sensitive, as
// GitHub's logins and repository names are not).
func nameID(kind, name string) int64 {
	h := fnv.New32a()
	h.Write([]byte(kind + ":" + strings.ToLower(name)))
	return int64(h.Sum32()&0x7fffffff) + 1
}

// nodeID is a global node id in GitHub's newer form: a type prefix and
// the base64 of the database id.
func nodeID(prefix string, id int64) string {
	b := binary.BigEndian.AppendUint64([]byte{0x8c, 0xa0}, uint64(id))
	return prefix + "_kwDO" + base64.RawURLEncoding.EncodeToString(b)
}

// userJSON is a simple-user.
func (s *Server) userJSON(login string) map[string]any {
	id := nameID("user", login)
	typ := userType(login)
	api := s.URL + "/users/" + login
	return map[string]any{
		"login": login, "id": id, "node_id": nodeID("U", id), "type": typ, "site_admin": false,
		"avatar_url":          fmt.Sprintf("%s/avatars/u/%d?v=4", s.URL, id),
		"gravatar_id":         "",
		"url":                 api,
		"html_url":            s.URL + "/" + login,
		"followers_url":       api + "/followers",
		"following_url":       api + "/following{/other_user}",
		"gists_url":           api + "/gists{/gist_id}",
		"starred_url":         api + "/starred{/owner}{/repo}",
		"subscriptions_url":   api + "/subscriptions",
		"organizations_url":   api + "/orgs",
		"repos_url":           api + "/repos",
		"events_url":          api + "/events{/privacy}",
		"received_events_url": api + "/received_events",
		"user_view_type":      "public",
	}
}

// privateUserJSON is the private-user of GET /user: the token's own user.
func (s *Server) privateUserJSON(login string) map[string]any {
	u := s.userJSON(login)
	for k, v := range map[string]any{
		"name": nil, "company": nil, "blog": "", "location": nil, "email": nil, "hireable": nil, "bio": nil,
		"public_repos": 2, "public_gists": 0, "followers": 0, "following": 0,
		"created_at": accountCreated, "updated_at": accountCreated,
		"private_gists": 0, "total_private_repos": 0, "owned_private_repos": 0, "disk_usage": 0, "collaborators": 0,
		"two_factor_authentication": true, "user_view_type": "private",
	} {
		u[k] = v
	}
	return u
}

// repoJSON is a repository (owner/name).
func (s *Server) repoJSON(fullName string, fork bool) map[string]any {
	owner, name, _ := strings.Cut(fullName, "/")
	id := repoID(fullName)
	api := s.URL + "/repos/" + fullName
	r := map[string]any{
		"id": id, "node_id": nodeID("R", id), "name": name, "full_name": fullName, "private": false, "fork": fork,
		"owner": s.userJSON(owner), "description": nil, "homepage": nil, "language": "Python", "license": nil,
		"html_url": s.URL + "/" + fullName, "url": api, "default_branch": "main", "visibility": "public",
		"clone_url": s.URL + "/" + fullName + ".git", "git_url": "git://" + strings.TrimPrefix(strings.TrimPrefix(s.URL, "http://"), "https://") + "/" + fullName + ".git",
		"ssh_url": "git@localhost:" + fullName + ".git", "svn_url": s.URL + "/" + fullName, "mirror_url": nil,
		"forks": 0, "forks_count": 0, "open_issues": 0, "open_issues_count": 0, "stargazers_count": 0, "watchers": 0, "watchers_count": 0, "size": 100,
		"has_downloads": true, "has_issues": true, "has_projects": true, "has_wiki": false, "has_pages": false, "archived": false, "disabled": false,
		"created_at": accountCreated, "updated_at": accountCreated, "pushed_at": accountCreated,
	}
	for _, k := range []string{"deployments", "downloads", "events", "forks", "hooks", "languages", "merges", "stargazers", "subscribers", "subscription", "tags", "teams", "contributors"} {
		r[k+"_url"] = api + "/" + k
	}
	for k, tmpl := range map[string]string{
		"archive": "/{archive_format}{/ref}", "assignees": "/assignees{/user}", "blobs": "/git/blobs{/sha}", "branches": "/branches{/branch}",
		"collaborators": "/collaborators{/collaborator}", "comments": "/comments{/number}", "commits": "/commits{/sha}", "compare": "/compare/{base}...{head}",
		"contents": "/contents/{+path}", "git_commits": "/git/commits{/sha}", "git_refs": "/git/refs{/sha}", "git_tags": "/git/tags{/sha}",
		"issue_comment": "/issues/comments{/number}", "issue_events": "/issues/events{/number}", "issues": "/issues{/number}", "keys": "/keys{/key_id}",
		"labels": "/labels{/name}", "milestones": "/milestones{/number}", "notifications": "/notifications{?since,all,participating}",
		"pulls": "/pulls{/number}", "releases": "/releases{/id}", "statuses": "/statuses/{sha}", "trees": "/git/trees{/sha}",
	} {
		r[k+"_url"] = api + tmpl
	}
	return r
}

// appJSON is an integration: the App id with its slug.
func (s *Server) appJSON(id int64, slug string) map[string]any {
	owner := "octo-org"
	if id == GitHubActionsAppID {
		owner = "github"
	}
	return map[string]any{
		"id": id, "slug": slug, "node_id": nodeID("A", id), "name": slug, "description": nil,
		"owner": s.userJSON(owner), "client_id": fmt.Sprintf("Iv1.%016x", id),
		"external_url": s.URL + "/apps/" + slug, "html_url": s.URL + "/apps/" + slug,
		"created_at": accountCreated, "updated_at": accountCreated,
		"permissions": map[string]any{"checks": "write", "pull_requests": "write", "contents": "read", "metadata": "read"},
		"events":      []any{"check_run", "check_suite", "issue_comment", "pull_request"},
	}
}
