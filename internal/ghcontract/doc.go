// Package ghcontract holds GitHub's published contract for the REST
// operations and webhooks that template-verify uses, and checks requests,
// answers and webhook payloads against it.
//
// rest.json and webhooks.json are cut by scripts/ghcontract-cut.sh from
// the npm packages @octokit/openapi (api.github.com.json) and
// @octokit/openapi-webhooks; their "x-cut" header names the versions.
// Nothing reads npm at test time: the cut is embedded.
//
// The validator is github.com/santhosh-tekuri/jsonschema/v6: the module
// already uses it for the report's schema, it implements JSON Schema
// 2020-12 (which the webhook description, OpenAPI 3.1, is written in, and
// which the REST description's OpenAPI 3.0 schemas become once the cut
// turns "nullable" into null types), it reports each failure with the
// instance location and the keyword, and it asserts formats (date-time,
// uri, email). kin-openapi reads OpenAPI 3.0 whole but not the 3.1
// webhook description; libopenapi-validator brings a larger dependency
// tree for routing this package does in 40 lines.
//
// Besides the schemas, a check applies the limits that the spec states
// only in prose (rules.go: "The maximum size is 64 KB.", "(max 100)",
// "Required if you provide ...") and the limits it does not state at all,
// each with its source (limits.go).
package ghcontract
