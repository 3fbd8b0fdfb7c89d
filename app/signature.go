package app

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// SignatureHeader is the header that carries the HMAC-SHA256 of the body.
const SignatureHeader = "X-Hub-Signature-256"

// Sign returns the X-Hub-Signature-256 value of body: "sha256=" and the
// hex HMAC-SHA256 with secret.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// validSignature reports whether header is the signature of body with
// secret. It compares in constant time. An empty secret never matches.
func validSignature(secret, body []byte, header string) bool {
	if len(secret) == 0 {
		return false
	}
	hexSum, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSum)
	if err != nil || len(got) != sha256.Size {
		return false
	}
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
}
