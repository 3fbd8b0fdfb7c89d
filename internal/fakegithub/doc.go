// Package fakegithub is a fake of GitHub's REST API on httptest, for tests
// of the publisher, the Action and the App. It keeps state (check runs with
// their outputs and appended annotations, comments with authors, pull
// requests), answers with GitHub's status codes, headers and error bodies,
// paginates lists with Link headers, and validates like GitHub: a 422 for a
// comment body over 65,536 bytes, an output summary or text over 65,535
// bytes, an annotation message over 64,000 bytes, or more than 50
// annotations in one request; a 404 for an unknown id. Its answers carry
// every field GitHub's published schema requires.
//
// Every request that reaches the fake, and every answer it gives, is
// checked against GitHub's published contract (package ghcontract); a
// violation fails the test (see ContractEnv and ExpectInvalidRequests). It can answer the next requests with a fault (a secondary or
// primary rate limit, a 5xx, a 422, a 403), and it records every request.
package fakegithub
